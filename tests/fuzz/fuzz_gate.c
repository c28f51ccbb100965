/* libFuzzer target: the gate configuration parser and the attestation
 * checker on the same bytes.  Invariants checked: a configuration that
 * parses has 1..NNC_GATE_MAX_CHECKS uniquely named checks; the canonical
 * form of any JSON object is itself JSON whose canonical form is the same
 * bytes (a fixed point); a summary that was never signed by the fuzzer's
 * key is never accepted. */
#include "nncert/json.h"
#include "gate/gate_impl.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    char err[256];
    const char *text = (const char *)data;
    nnc_gate_config *cfg;
    if (nnc_gate_config_parse(&cfg, text, size, "/nonexistent", "fuzz.json", err, sizeof err) == NNC_STATUS_OK) {
        if (cfg->n < 1 || cfg->n > NNC_GATE_MAX_CHECKS) abort();
        for (int i = 0; i < cfg->n; i++)
            for (int j = 0; j < i; j++)
                if (strcmp(cfg->checks[i].name, cfg->checks[j].name) == 0) abort();
        nnc_gate_config_destroy(cfg);
    }
    nnc_json_doc *d;
    if (nnc_json_parse(&d, text, size, err, sizeof err) == NNC_STATUS_OK) {
        char *c1, *c2;
        size_t n1, n2;
        if (nnc_gate_canonical_json(&c1, &n1, nnc_json_root(d), NULL, err, sizeof err) == NNC_STATUS_OK) {
            nnc_json_doc *d2;
            if (nnc_json_parse(&d2, c1, n1, err, sizeof err) != NNC_STATUS_OK) abort();
            if (nnc_gate_canonical_json(&c2, &n2, nnc_json_root(d2), NULL, err, sizeof err) != NNC_STATUS_OK) abort();
            if (n1 != n2 || memcmp(c1, c2, n1) != 0) abort();
            free(c2);
            nnc_json_doc_destroy(d2);
            free(c1);
        }
        nnc_json_doc_destroy(d);
    }
    /* a fixed key nobody signed these bytes with */
    static const uint8_t pk[32] = {0x3d, 0x40, 0x17, 0xc3, 0xe8, 0x43, 0x89, 0x5a, 0x92, 0xb7, 0x0a, 0xa7, 0x4d, 0x1b, 0x7e, 0xbc,
                                   0x9c, 0x98, 0x2c, 0xcf, 0x2e, 0xc4, 0x96, 0x8c, 0xc0, 0xcd, 0x55, 0xf1, 0x2a, 0xf4, 0x66, 0x0c};
    int valid = 0;
    if (nnc_gate_attest_verify(&valid, text, size, pk, err, sizeof err) == NNC_STATUS_OK && valid) abort();
    return 0;
}
