/* Instruction-set paths, chosen at run time.
 *
 * Every kernel with code for a vector extension has a generic C twin that
 * computes the same function (bit for bit, or within the error bound its
 * header states).  nnc_isa() is the widest path this process may use: what
 * the CPU reports through CPUID, capped by the environment variable
 * NNC_ISA=generic|avx2|avx512 (read once, at the first call), so tests and
 * benchmarks can run the paths that other users' CPUs take.
 *
 *   NNC_ISA_GENERIC  portable C (the only level off x86-64)
 *   NNC_ISA_AVX2     AVX2 and FMA
 *   NNC_ISA_AVX512   AVX-512 F, DQ, BW and VL (and AVX2, FMA)
 *
 * Features that ride on a level: BMI2+ADX field products (level >= AVX2 and
 * the CPU has both), AVX-512 IFMA (level AVX512, the CPU has IFMA, and
 * NNC_NO_IFMA unset or "0"). */
#ifndef NNC_ISA_H
#define NNC_ISA_H

#include <stddef.h>

typedef enum nnc_isa_level {
    NNC_ISA_GENERIC = 0,
    NNC_ISA_AVX2 = 1,
    NNC_ISA_AVX512 = 2
} nnc_isa_level;

/* The level the CPU supports (CPUID), ignoring NNC_ISA. */
nnc_isa_level nnc_isa_cpu(void);

/* The level in use: min(nnc_isa_cpu(), NNC_ISA cap, nnc_isa_set_cap cap). */
nnc_isa_level nnc_isa(void);

/* Whether the BMI2/ADX (MULX, ADCX, ADOX) field products are in use;
 * caches the answer in nnc_isa_adx_state (-1 until the first call, reset
 * by nnc_isa_set_cap), which the inline field product reads. */
int nnc_isa_adx(void);
extern int nnc_isa_adx_state;

/* Whether the AVX-512 IFMA units are in use (NNC_NO_IFMA read at each call). */
int nnc_isa_ifma(void);

/* "generic", "avx2" or "avx512". */
const char *nnc_isa_name(nnc_isa_level level);

/* Caps the level for this process (tests and benchmarks); a negative cap
 * returns to the NNC_ISA setting.  Not thread-safe against kernels running. */
void nnc_isa_set_cap(int cap);

/* Returns 0 when NNC_ISA is unset, empty or names a level; otherwise -1 and
 * a one-line message naming the bad value in err. */
int nnc_isa_env_check(char *err, size_t errlen);

/* One line naming the paths in use into buf, e.g. "avx2 (cpu avx512,
 * capped by NNC_ISA; bmi2/adx field products on, avx512ifma off)". */
void nnc_isa_describe(char *buf, size_t len);

#endif
