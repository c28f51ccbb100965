/* The Groth16 trust chain, in snarkjs's verbs and argument order:
 *   groth16 setup CIRCUIT.r1cs POT.ptau KEY.zkey
 *   zkey contribute OLD.zkey NEW.zkey [--name N] [--entropy E]
 *   zkey beacon OLD.zkey NEW.zkey BEACONHASH EXP [--name N]
 *   zkey verify CIRCUIT.r1cs POT.ptau KEY.zkey
 * (the library side is prover/mpc.c). */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nncert/prover.h"

void nnc_cli_print_hash(const char *title, const unsigned char h[64])
{
    printf("%s\n", title);
    for (int i = 0; i < 4; i++) {
        printf("\t\t");
        for (int j = 0; j < 4; j++) {
            const unsigned char *p = h + 16 * i + 4 * j;
            printf("%02x%02x%02x%02x%s", p[0], p[1], p[2], p[3], j < 3 ? " " : "\n");
        }
    }
}

void nnc_cli_print_contributions(const nnc_prv_mpc *m)
{
    nnc_cli_print_hash("Circuit Hash:", m->cs_hash);
    for (uint32_t i = m->n; i-- > 0;) {
        const nnc_prv_mpc_contrib *c = &m->c[i];
        char title[300], name[256];
        size_t k;
        /* a name is the contributor's text: control bytes are not passed to the terminal */
        for (k = 0; c->name[k] && k + 1 < sizeof name; k++)
            name[k] = (unsigned char)c->name[k] < 0x20 || c->name[k] == 0x7f ? '?' : c->name[k];
        name[k] = 0;
        printf("-------------------------\n");
        snprintf(title, sizeof title, "contribution #%u %s:", i + 1, name);
        nnc_cli_print_hash(title, c->hash);
        if (c->type == 1) {
            printf("Beacon generator: ");
            for (uint32_t k = 0; k < c->beacon_len; k++) printf("%02x", c->beacon_hash[k]);
            printf("\nBeacon iterations Exp: %u\n", c->num_iter_exp);
        }
    }
    printf("-------------------------\n");
}

int nnc_cmd_g16_setup_ptau(const char *r1cs_path, const char *ptau_path, const char *out)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_prv_r1cs cs;
    nnc_prv_ptau p;
    nnc_prv_zkey z;
    nnc_status st;
    if ((st = nnc_prv_r1cs_read_file(&cs, r1cs_path, err, sizeof err))) return nnc_cli_fail(st, err);
    if ((st = nnc_prv_ptau_open(&p, ptau_path, err, sizeof err))) {
        nnc_prv_r1cs_clear(&cs);
        return nnc_cli_fail(st, err);
    }
    st = nnc_prv_g16_setup_ptau(&z, &cs, &p, 0, err, sizeof err);
    nnc_prv_ptau_clear(&p);
    nnc_prv_r1cs_clear(&cs);
    if (st) return nnc_cli_fail(st, err);
    nnc_cli_print_hash("Circuit Hash:", z.contributions);
    st = nnc_prv_zkey_write_file(out, &z, err, sizeof err);
    nnc_prv_zkey_clear(&z);
    if (st) {
        fprintf(stderr, "nncert: error: %s\n", err);
        return EXIT_CANTCREAT;
    }
    fprintf(stderr,
            "nncert: note: this key has no contribution yet (delta = 1): anyone can forge proofs with it until\n"
            "at least one party runs 'nncert zkey contribute' (or snarkjs's) and keeps no copy of its secret\n");
    return EXIT_OK;
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Read KEY, apply a contribution or a beacon, write NEW. */
static int contribute(const char *in, const char *out, const char *name, const char *entropy, const unsigned char *beacon,
                      size_t blen, uint32_t exp)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_prv_zkey z;
    unsigned char hash[64];
    nnc_status st;
    int rc;
    if (name && strlen(name) > 64) return nnc_cli_usage_error("zkey", "--name is longer than 64 bytes");
    if ((rc = nnc_cli_check_output(out))) return rc;
    if ((st = nnc_prv_zkey_read_file(&z, in, 0, err, sizeof err))) return nnc_cli_fail(st, err);
    if (z.contributions == NULL) {
        nnc_prv_zkey_clear(&z);
        return nnc_cli_fail(NNC_STATUS_PARSE, "the key has no contributions section (10): it was not set up from a "
                                              "powers of tau file (nncert's single-party setup?)");
    }
    if (beacon)
        st = nnc_prv_zkey_beacon(&z, beacon, blen, exp, name, hash, 0, err, sizeof err);
    else
        st = nnc_prv_zkey_contribute(&z, entropy, name, hash, 0, err, sizeof err);
    if (st) {
        nnc_prv_zkey_clear(&z);
        return nnc_cli_fail(st, err);
    }
    if (!beacon) nnc_cli_print_hash("Circuit Hash:", z.contributions);
    st = nnc_prv_zkey_write_file(out, &z, err, sizeof err);
    nnc_prv_zkey_clear(&z);
    if (st) {
        fprintf(stderr, "nncert: error: %s\n", err);
        return EXIT_CANTCREAT;
    }
    nnc_cli_print_hash("Contribution Hash:", hash);
    return EXIT_OK;
}

int nnc_cmd_zkey_ceremony(int argc, char **argv)
{
    const char *pos[4], *name = NULL, *entropy = NULL;
    int np = 0;
    int is_contrib = strcmp(argv[0], "contribute") == 0, is_beacon = strcmp(argv[0], "beacon") == 0;
    const char *v;
    int k, rc0;
    for (int i = 1; (k = nnc_cli_getopt(&nnc_cli_zkey_doc, argc, argv, &i, &v, &rc0)) != NNC_CLI_END;) {
        switch (k) {
        case NNC_CLI_EXIT: return rc0;
        case NNC_CLI_ARG:
            if (v[0] == '-' && v[1]) return nnc_cli_unknown_option("zkey", v);
            if (np == 4) return nnc_cli_usage_error("zkey", "too many arguments");
            pos[np++] = v;
            break;
        case NNC_CLI_ZKEY_NAME: case NNC_CLI_ZKEY_N: name = v; break;
        case NNC_CLI_ZKEY_ENTROPY: case NNC_CLI_ZKEY_E:
            if (!is_contrib) return nnc_cli_unknown_option("zkey", nnc_cli_zkey_doc.opts[k].name);
            entropy = v;
            break;
        }
    }
    if (is_contrib) {
        if (np != 2) return nnc_cli_usage_error("zkey", "contribute takes OLD.zkey NEW.zkey [--name N] [--entropy E]");
        return contribute(pos[0], pos[1], name, entropy, NULL, 0, 0);
    }
    if (is_beacon) {
        if (np != 4) return nnc_cli_usage_error("zkey", "beacon takes OLD.zkey NEW.zkey BEACONHASH EXP [--name N]");
        unsigned char b[255];
        size_t hl = strlen(pos[2]);
        if (hl == 0 || hl % 2 || hl > 510)
            return nnc_cli_usage_error("zkey", "the beacon hash must be 1 to 255 bytes as an even number of hex digits "
                                               "(no 0x)");
        for (size_t k = 0; k < hl / 2; k++) {
            int h = hexval(pos[2][2 * k]), l = hexval(pos[2][2 * k + 1]);
            if (h < 0 || l < 0)
                return nnc_cli_usage_error("zkey", "the beacon hash must be hex digits only (no 0x)");
            b[k] = (unsigned char)(h << 4 | l);
        }
        uint64_t e;
        if (nnc_cli_parse_u64(pos[3], &e) || e < 10 || e > 63)
            return nnc_cli_usage_error("zkey", "the beacon's iteration exponent must be an integer in 10..63");
        return contribute(pos[0], pos[1], name, NULL, b, hl / 2, (uint32_t)e);
    }
    /* verify */
    if (name) return nnc_cli_unknown_option("zkey", "--name");
    if (np != 3) return nnc_cli_usage_error("zkey", "verify takes CIRCUIT.r1cs POT.ptau KEY.zkey");
    char err[NNC_ERRBUF_SIZE], why[512];
    nnc_prv_r1cs cs;
    nnc_prv_ptau p;
    nnc_prv_zkey z;
    nnc_prv_mpc m;
    nnc_status st;
    int ok;
    if ((st = nnc_prv_r1cs_read_file(&cs, pos[0], err, sizeof err))) return nnc_cli_fail(st, err);
    if ((st = nnc_prv_ptau_open(&p, pos[1], err, sizeof err))) {
        nnc_prv_r1cs_clear(&cs);
        return nnc_cli_fail(st, err);
    }
    if ((st = nnc_prv_zkey_read_file(&z, pos[2], NNC_PRV_ZKEY_CHECK_SUBGROUP, err, sizeof err)) == NNC_STATUS_OK) {
        st = nnc_prv_zkey_verify(&ok, why, sizeof why, &m, &cs, &p, &z, 0, err, sizeof err);
        nnc_prv_zkey_clear(&z);
    }
    nnc_prv_ptau_clear(&p);
    nnc_prv_r1cs_clear(&cs);
    if (st) return nnc_cli_fail(st, err);
    if (!ok) {
        printf("INVALID: %s\n", why);
        return EXIT_FAILED;
    }
    nnc_cli_print_contributions(&m);
    if (m.n == 0)
        printf("warning: no contribution: delta = 1, so anyone can forge proofs with this key\n");
    printf("ZKey Ok!\n");
    nnc_prv_mpc_clear(&m);
    return EXIT_OK;
}
