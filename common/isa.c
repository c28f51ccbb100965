/* Run-time instruction-set selection (common/isa.h). */
#include "common/isa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NNC_ISA_X86 1
#include <cpuid.h>
#endif

/* Write-once caches: every thread computes and stores the same values. */
static int cpu_level = -1, cpu_adx = -1, cpu_ifma = -1, env_cap = -2, set_cap = -1;

static void probe(void)
{
    if (cpu_level >= 0) return;
#ifdef NNC_ISA_X86
    __builtin_cpu_init();
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    int avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                 __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
    /* BMI2 and ADX from CPUID leaf 7 (EBX bits 8 and 19): clang's
     * __builtin_cpu_supports does not know "adx"; they use no new registers,
     * so no OS support check is needed */
    unsigned a = 0, b = 0, c = 0, d = 0;
    cpu_adx = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b >> 8 & 1) && (b >> 19 & 1);
    cpu_ifma = avx512 && __builtin_cpu_supports("avx512ifma");
    cpu_level = avx512 ? NNC_ISA_AVX512 : avx2 ? NNC_ISA_AVX2 : NNC_ISA_GENERIC;
#else
    cpu_adx = 0;
    cpu_ifma = 0;
    cpu_level = NNC_ISA_GENERIC;
#endif
}

/* The level NNC_ISA names, -1 when unset or empty, -2 when unknown. */
static int parse_env(void)
{
    const char *s = getenv("NNC_ISA");
    if (s == NULL || s[0] == '\0') return -1;
    if (strcmp(s, "generic") == 0) return NNC_ISA_GENERIC;
    if (strcmp(s, "avx2") == 0) return NNC_ISA_AVX2;
    if (strcmp(s, "avx512") == 0) return NNC_ISA_AVX512;
    return -2;
}

nnc_isa_level nnc_isa_cpu(void)
{
    probe();
    return (nnc_isa_level)cpu_level;
}

nnc_isa_level nnc_isa(void)
{
    probe();
    if (env_cap == -2) {
        int e = parse_env();
        /* an unknown value caps at generic: the portable path is always
         * right; the CLI refuses the value before any work (nnc_isa_env_check) */
        env_cap = e == -2 ? NNC_ISA_GENERIC : e;
    }
    int l = cpu_level;
    if (env_cap >= 0 && env_cap < l) l = env_cap;
    if (set_cap >= 0 && set_cap < l) l = set_cap;
    return (nnc_isa_level)l;
}

int nnc_isa_adx_state = -1;

int nnc_isa_adx(void)
{
    int on = nnc_isa() >= NNC_ISA_AVX2 && cpu_adx;
    nnc_isa_adx_state = on;
    return on;
}

int nnc_isa_ifma(void)
{
    if (nnc_isa() < NNC_ISA_AVX512 || !cpu_ifma) return 0;
    const char *e = getenv("NNC_NO_IFMA");
    return !(e && e[0] != '\0' && strcmp(e, "0") != 0);
}

const char *nnc_isa_name(nnc_isa_level level)
{
    switch (level) {
    case NNC_ISA_GENERIC: return "generic";
    case NNC_ISA_AVX2: return "avx2";
    case NNC_ISA_AVX512: return "avx512";
    }
    return "?";
}

void nnc_isa_set_cap(int cap)
{
    set_cap = cap < 0 ? -1 : cap;
    nnc_isa_adx_state = -1;
}

int nnc_isa_env_check(char *err, size_t errlen)
{
    if (parse_env() != -2) return 0;
    if (err && errlen) snprintf(err, errlen, "NNC_ISA='%s': expected generic, avx2 or avx512", getenv("NNC_ISA"));
    return -1;
}

void nnc_isa_describe(char *buf, size_t len)
{
    nnc_isa_level l = nnc_isa();
    snprintf(buf, len, "%s (cpu %s%s; bmi2/adx field products %s, avx512ifma %s)", nnc_isa_name(l),
             nnc_isa_name(nnc_isa_cpu()), l < nnc_isa_cpu() ? ", capped by NNC_ISA" : "", nnc_isa_adx() ? "on" : "off",
             nnc_isa_ifma() ? "on" : "off");
}
