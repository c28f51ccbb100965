/* specs module tests: VNN-LIB parsing into the normal form, the writer
 * (parse(write(s)) == s), error reporting, resource limits and the L-inf
 * builder.  The VNN-COMP files under $SHARED/data/verification (default
 * ../shared) are parsed when present; without them those tests print a note
 * and check nothing else. */
#include "nncert/spec.h"
#include "tests/unit/harness.h"

#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ helpers */

static nnc_status parse_str(nnc_spec **s, const char *text, char *err, size_t errlen)
{
    return nnc_spc_parse(s, text, strlen(text), err, errlen);
}

static nnc_spec *must_parse(const char *text)
{
    nnc_spec *s = NULL;
    char err[NNC_ERRBUF_SIZE];
    nnc_status st = parse_str(&s, text, err, sizeof err);
    ck_assert_msg(st == NNC_STATUS_OK, "parse failed (%s): %s\n--- text ---\n%s", nnc_status_string(st), err,
                  text);
    return s;
}

/* Writes s, parses the text back, checks equality; returns the text length. */
static size_t check_roundtrip(const nnc_spec *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    char err[NNC_ERRBUF_SIZE];
    ck_assert_int_eq(nnc_spc_write_vnnlib(f, s, err, sizeof err), NNC_STATUS_OK);
    fclose(f);
    nnc_spec *t = NULL;
    nnc_status st = nnc_spc_parse(&t, buf, len, err, sizeof err);
    ck_assert_msg(st == NNC_STATUS_OK, "reparse failed: %s", err);
    ck_assert_msg(nnc_spc_equal(s, t), "round trip differs; written text:\n%.2000s", buf);
    ck_assert(nnc_spc_equal(t, s));
    nnc_spc_destroy(t);
    free(buf);
    return len;
}

static void expect_lin(const nnc_spc_lin *l, int n, const int *idx, const double *coef, double rhs)
{
    ck_assert_int_eq(l->n, n);
    for (int t = 0; t < n; t++) {
        ck_assert_int_eq(l->idx[t], idx[t]);
        ck_assert_double_eq(l->coef[t], coef[t]);
    }
    ck_assert_double_eq(l->rhs, rhs);
}

/* Appends declarations of X_0..X_{nx-1} and Y_0..Y_{ny-1}. */
static char *decls(char *p, int nx, int ny)
{
    for (int i = 0; i < nx; i++) p += sprintf(p, "(declare-const X_%d Real)\n", i);
    for (int i = 0; i < ny; i++) p += sprintf(p, "(declare-const Y_%d Real)\n", i);
    return p;
}

static const char *data_dir(void)
{
    static char path[1024];
    const char *sh = getenv("SHARED");
    snprintf(path, sizeof path, "%s/data/verification", sh && *sh ? sh : "../shared");
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    return path;
}

/* ------------------------------------------------------- basic parsing */

START_TEST(test_box_and_single_output)
{
    nnc_spec *s = must_parse("; comment line\n"
                             "(declare-const X_0 Real)\n(declare-const X_1 Real)\n"
                             "(declare-const Y_0 Real)  ; trailing comment\n(declare-const Y_1 Real)\n"
                             "(assert (<= X_0 0.5))\n(assert (>= X_0 -0.5))\n"
                             "(assert (<= X_1 1e-05))\n(assert (>= X_1 -1E+2))\n"
                             "(assert (<= X_0 0.25))\n" /* a second upper bound narrows */
                             "(assert (>= Y_0 3.991125645861615))\n");
    ck_assert_int_eq(nnc_spc_num_inputs(s), 2);
    ck_assert_int_eq(nnc_spc_num_outputs(s), 2);
    ck_assert_int_eq(nnc_spc_num_cases(s), 1);
    const double *lo = nnc_spc_case_lo(s, 0), *hi = nnc_spc_case_hi(s, 0);
    ck_assert_double_eq(lo[0], -0.5);
    ck_assert_double_eq(hi[0], 0.25);
    ck_assert_double_eq(lo[1], -100.0);
    ck_assert_double_eq(hi[1], strtod("1e-05", NULL));
    ck_assert_int_eq(nnc_spc_case_num_input_cons(s, 0), 0);
    ck_assert_int_eq(nnc_spc_case_num_disjuncts(s, 0), 1);
    ck_assert_int_eq(nnc_spc_disjunct_size(s, 0, 0), 1);
    nnc_spc_lin l;
    nnc_spc_disjunct_con(s, 0, 0, 0, &l);
    expect_lin(&l, 1, (int[]){0}, (double[]){-1}, -3.991125645861615);
    check_roundtrip(s);
    nnc_spc_destroy(s);
}
END_TEST

START_TEST(test_linear_terms)
{
    char text[4096], *p = decls(text, 1, 3);
    strcpy(p, "(assert (<= X_0 1)) (assert (>= X_0 0))\n"
              "(assert (>= (+ (* 2.0 Y_0) Y_1) 3))\n"      /* -2 Y0 - Y1 <= -3 */
              "(assert (<= (- Y_0 Y_1) 0.5))\n"            /* Y0 - Y1 <= 0.5 */
              "(assert (<= Y_2 Y_1))\n"                    /* -Y1 + Y2 <= 0 */
              "(assert (<= (* Y_0 3) (/ Y_2 2) (- 0.5)))\n" /* 3Y0 - 0.5Y2 <= 0, 0.5Y2 <= -0.5 */
              "(assert (< (- Y_1) (+ 1 Y_1 Y_1 (- 2))))\n" /* -3 Y1 <= -1, strict read as <= */
              "(assert (= (+ Y_0 Y_2 (* -1 Y_2)) -0.25))\n" /* Y0 <= -0.25, -Y0 <= 0.25 */
              "(assert (<= (/ Y_1 2 4) (* 0.5 2)))\n");     /* Y1/8 <= 1 */
    nnc_spec *s = must_parse(text);
    ck_assert_int_eq(nnc_spc_case_num_disjuncts(s, 0), 1);
    ck_assert_int_eq(nnc_spc_disjunct_size(s, 0, 0), 9);
    nnc_spc_lin l;
    nnc_spc_disjunct_con(s, 0, 0, 0, &l);
    expect_lin(&l, 2, (int[]){0, 1}, (double[]){-2, -1}, -3);
    nnc_spc_disjunct_con(s, 0, 0, 1, &l);
    expect_lin(&l, 2, (int[]){0, 1}, (double[]){1, -1}, 0.5);
    nnc_spc_disjunct_con(s, 0, 0, 2, &l);
    expect_lin(&l, 2, (int[]){1, 2}, (double[]){-1, 1}, 0);
    nnc_spc_disjunct_con(s, 0, 0, 3, &l);
    expect_lin(&l, 2, (int[]){0, 2}, (double[]){3, -0.5}, 0);
    nnc_spc_disjunct_con(s, 0, 0, 4, &l);
    expect_lin(&l, 1, (int[]){2}, (double[]){0.5}, -0.5);
    nnc_spc_disjunct_con(s, 0, 0, 5, &l);
    expect_lin(&l, 1, (int[]){1}, (double[]){-3}, -1);
    nnc_spc_disjunct_con(s, 0, 0, 6, &l);
    expect_lin(&l, 1, (int[]){0}, (double[]){1}, -0.25);
    nnc_spc_disjunct_con(s, 0, 0, 7, &l);
    expect_lin(&l, 1, (int[]){0}, (double[]){-1}, 0.25);
    ck_assert(!signbit(l.rhs));
    nnc_spc_disjunct_con(s, 0, 0, 8, &l);
    expect_lin(&l, 1, (int[]){1}, (double[]){0.125}, 1);
    check_roundtrip(s);
    nnc_spc_destroy(s);
}
END_TEST

START_TEST(test_chain_equality_and_commands)
{
    char text[4096], *p = text;
    p += sprintf(p, "(set-logic QF_LRA)\n");
    p = decls(p, 3, 2);
    strcpy(p, "(declare-fun X_3 () Real)\n"
              "(assert (<= -1 X_0 1))\n"   /* chain */
              "(assert (= X_1 0.125))\n"   /* point interval */
              "(assert (and (>= X_2 0) (<= X_2 2) (<= (* 3 X_3) 1) (>= (* 3 X_3) -1)))\n"
              "(assert (<= 0 1))\n"        /* constant true: ignored */
              "(assert (> Y_0 Y_1))\n"
              "(check-sat)\n(get-model)\n(exit)\n");
    nnc_spec *s = must_parse(text);
    ck_assert_int_eq(nnc_spc_num_inputs(s), 4);
    const double *lo = nnc_spc_case_lo(s, 0), *hi = nnc_spc_case_hi(s, 0);
    ck_assert_double_eq(lo[0], -1);
    ck_assert_double_eq(hi[0], 1);
    ck_assert_double_eq(lo[1], 0.125);
    ck_assert_double_eq(hi[1], 0.125);
    ck_assert_double_eq(lo[2], 0);
    ck_assert_double_eq(hi[2], 2);
    /* 3 X_3 <= 1: the bound 1/3 is rounded outward */
    ck_assert(fma(hi[3], 3, -1) >= 0);
    ck_assert(fma(lo[3], 3, 1) <= 0);
    ck_assert(hi[3] > 0.333333 && hi[3] < 0.333334);
    ck_assert_double_eq(lo[3], -hi[3]);
    nnc_spc_lin l;
    nnc_spc_disjunct_con(s, 0, 0, 0, &l);
    expect_lin(&l, 2, (int[]){0, 1}, (double[]){-1, 1}, 0);
    check_roundtrip(s);
    nnc_spc_destroy(s);
}
END_TEST

/* prop_6 style: two input boxes, one output disjunction -> 2 cases. */
START_TEST(test_cases_from_input_disjunction)
{
    char text[4096], *p = decls(text, 2, 3);
    strcpy(p, "(assert (or\n"
              "  (and (<= X_0 1) (>= X_0 0) (<= X_1 1) (>= X_1 0))\n"
              "  (and (<= X_0 -1) (>= X_0 -2) (<= X_1 1) (>= X_1 0))\n"
              "))\n"
              "(assert (or (and (<= Y_1 Y_0)) (and (<= Y_2 Y_0))))\n");
    nnc_spec *s = must_parse(text);
    ck_assert_int_eq(nnc_spc_num_cases(s), 2);
    ck_assert_double_eq(nnc_spc_case_lo(s, 0)[0], 0);
    ck_assert_double_eq(nnc_spc_case_hi(s, 0)[0], 1);
    ck_assert_double_eq(nnc_spc_case_lo(s, 1)[0], -2);
    ck_assert_double_eq(nnc_spc_case_hi(s, 1)[0], -1);
    ck_assert_int_eq(nnc_spc_total_disjuncts(s), 4);
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(nnc_spc_case_num_disjuncts(s, k), 2);
        nnc_spc_lin l;
        nnc_spc_disjunct_con(s, k, 1, 0, &l);
        expect_lin(&l, 2, (int[]){0, 2}, (double[]){-1, 1}, 0);
    }
    check_roundtrip(s);
    nnc_spc_destroy(s);
}
END_TEST

/* Top-level or of (and box outputs): each term is a case; terms with the
 * same input region merge; outer input asserts narrow every case. */
START_TEST(test_mixed_terms_and_merging)
{
    char text[4096], *p = decls(text, 2, 2);
    strcpy(p, "(assert (<= X_1 3)) (assert (>= X_1 -3))\n"
              "(assert (or\n"
              "  (and (<= X_0 1) (>= X_0 0) (<= Y_0 0))\n"
              "  (and (>= X_0 0) (<= X_0 1) (>= Y_1 2) (<= Y_0 5))\n"
              "  (and (<= X_0 9) (>= X_0 8) (or (<= Y_0 Y_1) (and (<= Y_1 1) (<= Y_0 1))))\n"
              "))\n");
    nnc_spec *s = must_parse(text);
    ck_assert_int_eq(nnc_spc_num_cases(s), 2);
    ck_assert_double_eq(nnc_spc_case_lo(s, 0)[1], -3);
    ck_assert_double_eq(nnc_spc_case_hi(s, 1)[1], 3);
    ck_assert_double_eq(nnc_spc_case_lo(s, 1)[0], 8);
    ck_assert_int_eq(nnc_spc_case_num_disjuncts(s, 0), 2);
    ck_assert_int_eq(nnc_spc_disjunct_size(s, 0, 0), 1);
    ck_assert_int_eq(nnc_spc_disjunct_size(s, 0, 1), 2);
    ck_assert_int_eq(nnc_spc_case_num_disjuncts(s, 1), 2);
    ck_assert_int_eq(nnc_spc_disjunct_size(s, 1, 0), 1);
    ck_assert_int_eq(nnc_spc_disjunct_size(s, 1, 1), 2);
    check_roundtrip(s);
    nnc_spc_destroy(s);
}
END_TEST

/* and of two output disjunctions distributes into their product. */
START_TEST(test_output_distribution)
{
    char text[4096], *p = decls(text, 1, 4);
    strcpy(p, "(assert (<= X_0 1)) (assert (>= X_0 0))\n"
              "(assert (or (<= Y_0 0) (<= Y_1 0)))\n"
              "(assert (or (and (<= Y_2 0)) (and (<= Y_3 0) (<= Y_2 1))))\n"
              "(assert (<= Y_0 7))\n");
    nnc_spec *s = must_parse(text);
    ck_assert_int_eq(nnc_spc_num_cases(s), 1);
    ck_assert_int_eq(nnc_spc_case_num_disjuncts(s, 0), 4);
    int sizes[4] = {3, 4, 3, 4};
    for (int j = 0; j < 4; j++) ck_assert_int_eq(nnc_spc_disjunct_size(s, 0, j), sizes[j]);
    nnc_spc_lin l;
    nnc_spc_disjunct_con(s, 0, 2, 0, &l); /* (Y_1 <= 0) first in the third product term */
    expect_lin(&l, 1, (int[]){1}, (double[]){1}, 0);
    nnc_spc_disjunct_con(s, 0, 3, 3, &l); /* the trailing Y_0 <= 7 is in every disjunct */
    expect_lin(&l, 1, (int[]){0}, (double[]){1}, 7);
    double y[4] = {0.5, -1, 0.5, 0};
    ck_assert_int_eq(nnc_spc_unsafe_disjunct(s, 0, y), 3); /* Y1<=0, Y3<=0, Y2<=1, Y0<=7 */
    y[3] = 0.5;
    ck_assert_int_eq(nnc_spc_unsafe_disjunct(s, 0, y), -1);
    check_roundtrip(s);
    nnc_spc_destroy(s);
}
END_TEST

START_TEST(test_input_constraints_and_region)
{
    char text[4096], *p = decls(text, 3, 2);
    strcpy(p, "(assert (<= X_0 1)) (assert (>= X_0 0)) (assert (<= X_1 1)) (assert (>= X_1 0))\n"
              "(assert (<= X_2 1)) (assert (>= X_2 0))\n"
              "(assert (<= (+ X_0 X_1) 1))\n"
              "(assert (>= (- X_2 (* 0.5 X_0)) 0))\n"
              "(assert (<= Y_0 Y_1))\n");
    nnc_spec *s = must_parse(text);
    ck_assert_int_eq(nnc_spc_case_num_input_cons(s, 0), 2);
    nnc_spc_lin l;
    nnc_spc_case_input_con(s, 0, 0, &l);
    expect_lin(&l, 2, (int[]){0, 1}, (double[]){1, 1}, 1);
    nnc_spc_case_input_con(s, 0, 1, &l);
    expect_lin(&l, 2, (int[]){0, 2}, (double[]){0.5, -1}, 0);
    double dense[3];
    nnc_spc_lin_dense(&l, dense, 3);
    ck_assert_double_eq(dense[0], 0.5);
    ck_assert_double_eq(dense[1], 0);
    ck_assert_double_eq(dense[2], -1);
    ck_assert_int_eq(nnc_spc_in_region(s, 0, (double[]){0.5, 0.5, 0.5}), 1);
    ck_assert_int_eq(nnc_spc_in_region(s, 0, (double[]){0.6, 0.5, 0.5}), 0); /* X0+X1 > 1 */
    ck_assert_int_eq(nnc_spc_in_region(s, 0, (double[]){0.8, 0.1, 0.3}), 0); /* X2 < X0/2 */
    ck_assert_int_eq(nnc_spc_in_region(s, 0, (double[]){0.5, 0.5, 1.5}), 0); /* box */
    ck_assert_int_eq(nnc_spc_unsafe_disjunct(s, 0, (double[]){1, 2}), 0);
    ck_assert_int_eq(nnc_spc_unsafe_disjunct(s, 0, (double[]){2, 1}), -1);
    check_roundtrip(s);
    nnc_spc_destroy(s);
}
END_TEST

START_TEST(test_roundtrip_shapes)
{
    const char *texts[] = {
        /* no output constraint at all: one disjunct with no constraint */
        "(declare-const X_0 Real)(declare-const Y_0 Real)(assert (<= X_0 1)) (assert (>= X_0 0))",
        /* a true disjunct next to a real one */
        "(declare-const X_0 Real)(declare-const Y_0 Real)(assert (<= X_0 1)) (assert (>= X_0 0))"
        " (assert (or (and) (<= Y_0 -1e-300)))",
        /* several cases, one with an input constraint, one with an empty disjunct */
        "(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)"
        "(assert (or (and (<= X_0 1) (>= X_0 0) (<= X_1 2) (>= X_1 1) (<= (+ X_0 (* -3 X_1)) 0.1) (<= Y_0 1))"
        " (and (<= X_0 5) (>= X_0 5) (<= X_1 0) (>= X_1 0))))",
        /* awkward numbers */
        "(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)(declare-const Y_1 Real)"
        "(assert (<= X_0 1.7976931348623157e308)) (assert (>= X_0 -4.9406564584124654e-324))"
        " (assert (<= X_1 0.1)) (assert (>= X_1 -0.0))"
        " (assert (<= (+ (* 0.1 Y_0) (* 3.0000000000000004 Y_1)) 0.30000000000000004))"
        " (assert (>= (* -7 Y_1) -1e-310))",
    };
    for (size_t b = 0; b < sizeof texts / sizeof texts[0]; b++) {
        nnc_spec *s = must_parse(texts[b]);
        check_roundtrip(s);
        if (b == 0) {
            ck_assert_int_eq(nnc_spc_case_num_disjuncts(s, 0), 1);
            ck_assert_int_eq(nnc_spc_disjunct_size(s, 0, 0), 0);
            ck_assert_int_eq(nnc_spc_unsafe_disjunct(s, 0, (double[]){123}), 0);
        }
        if (b == 2) {
            ck_assert_int_eq(nnc_spc_num_cases(s), 2);
            ck_assert_int_eq(nnc_spc_case_num_input_cons(s, 0), 1);
            ck_assert_int_eq(nnc_spc_case_num_input_cons(s, 1), 0);
            ck_assert_int_eq(nnc_spc_disjunct_size(s, 1, 0), 0);
        }
        if (b == 3) ck_assert(!signbit(nnc_spc_case_lo(s, 0)[1]));
        nnc_spc_destroy(s);
    }
}
END_TEST

/* ------------------------------------------------------------- errors */

typedef struct bad_case {
    const char *name;
    const char *text; /* appended after "(declare-const X_0 Real)(declare-const Y_0 Real)\n" when decl */
    int decl;
    nnc_status st;
    const char *needle;
} bad_case;

#define BOX "(assert (<= X_0 1)) (assert (>= X_0 0))\n"

START_TEST(test_errors)
{
    static const bad_case cases[] = {
        {"unclosed", "(assert (<= X_0 1)\n", 1, NNC_STATUS_PARSE, "unbalanced"},
        {"unclosed decl", "(declare-const X_1 Real", 1, NNC_STATUS_PARSE, "unbalanced"},
        {"extra rparen", BOX ")", 1, NNC_STATUS_PARSE, "expected '(' at top level"},
        {"garbage after last form", BOX "(assert (<= Y_0 1)) junk", 1, NNC_STATUS_PARSE, "'junk'"},
        {"undeclared", BOX "(assert (<= X_1 1))", 1, NNC_STATUS_PARSE, "undeclared variable 'X_1'"},
        {"undeclared output", BOX "(assert (<= Y_3 1))", 1, NNC_STATUS_PARSE, "undeclared variable 'Y_3'"},
        {"unknown variable", BOX "(assert (<= foo 1))", 1, NNC_STATUS_PARSE, "unknown variable 'foo'"},
        {"declared twice", "(declare-const X_0 Real)", 1, NNC_STATUS_PARSE, "declared twice (first at line 1)"},
        {"bad name", "(declare-const x0 Real)", 1, NNC_STATUS_UNSUPPORTED, "X_<i>"},
        {"leading zero", "(declare-const X_01 Real)", 1, NNC_STATUS_PARSE, "leading zero"},
        {"sort Int", "(declare-const X_1 Int)", 1, NNC_STATUS_UNSUPPORTED, "sort 'Int'"},
        {"indexed sort", "(declare-const X_1 (_ BitVec 8))", 1, NNC_STATUS_UNSUPPORTED, "Real"},
        {"unknown operator", BOX "(assert (foo Y_0 1))", 1, NNC_STATUS_PARSE, "unknown operator 'foo'"},
        {"unknown term operator", BOX "(assert (<= (sqrt Y_0) 1))", 1, NNC_STATUS_PARSE, "unknown operator 'sqrt'"},
        {"not", BOX "(assert (not (<= Y_0 1)))", 1, NNC_STATUS_UNSUPPORTED, "'not'"},
        {"ite", BOX "(assert (<= (ite true Y_0 1) 1))", 1, NNC_STATUS_UNSUPPORTED, "'ite'"},
        {"missing lower", "(assert (<= X_0 1))", 1, NNC_STATUS_INVALID, "X_0 has no lower bound"},
        {"missing upper", "(assert (>= X_0 1))", 1, NNC_STATUS_INVALID, "X_0 has no upper bound"},
        {"no bounds", "", 1, NNC_STATUS_INVALID, "no lower bound"},
        {"missing in one case", "(assert (or (and (<= X_0 1) (>= X_0 0)) (<= X_0 1)))", 1, NNC_STATUS_INVALID,
         "in case 1"},
        {"empty box", "(assert (<= X_0 0)) (assert (>= X_0 0.5))", 1, NNC_STATUS_INVALID, "empty input box"},
        {"nan", BOX "(assert (<= Y_0 nan))", 1, NNC_STATUS_PARSE, "NaN"},
        {"NaN", BOX "(assert (<= Y_0 NaN))", 1, NNC_STATUS_PARSE, "NaN"},
        {"inf", "(assert (<= X_0 inf)) (assert (>= X_0 0))", 1, NNC_STATUS_PARSE, "infinite"},
        {"-Infinity", "(assert (<= X_0 1)) (assert (>= X_0 -Infinity))", 1, NNC_STATUS_PARSE, "infinite"},
        {"overflowing literal", "(assert (<= X_0 1e999)) (assert (>= X_0 0))", 1, NNC_STATUS_PARSE, "out of range"},
        {"hex float", BOX "(assert (<= Y_0 0x1p3))", 1, NNC_STATUS_PARSE, "malformed number"},
        {"bad number", BOX "(assert (<= Y_0 1.2.3))", 1, NNC_STATUS_PARSE, "malformed number"},
        {"overflow", BOX "(assert (<= (* 1e200 (* 1e200 Y_0)) 1))", 1, NNC_STATUS_INVALID, "overflow"},
        {"division by zero", BOX "(assert (<= (/ Y_0 0) 1))", 1, NNC_STATUS_INVALID, "division by zero"},
        {"nonlinear", BOX "(declare-const Y_1 Real) (assert (<= (* Y_0 Y_1) 1))", 1, NNC_STATUS_UNSUPPORTED,
         "non-linear"},
        {"division by variable", BOX "(assert (<= (/ 1 Y_0) 1))", 1, NNC_STATUS_UNSUPPORTED, "non-linear"},
        {"mixed", BOX "(assert (<= X_0 Y_0))", 1, NNC_STATUS_UNSUPPORTED, "mixes inputs"},
        {"one-arg comparison", BOX "(assert (<= Y_0))", 1, NNC_STATUS_PARSE, "two arguments"},
        {"symbol as formula", BOX "(assert Y_0)", 1, NNC_STATUS_PARSE, "expected a formula"},
        {"term as formula", BOX "(assert (+ Y_0 1))", 1, NNC_STATUS_PARSE, "expected a formula"},
        {"unknown command", "(frobnicate)", 1, NNC_STATUS_PARSE, "unknown command"},
        {"unsupported command", "(push 1)", 1, NNC_STATUS_UNSUPPORTED, "'push'"},
        {"quoted symbol", "(declare-const |X_1| Real)", 1, NNC_STATUS_UNSUPPORTED, "quoted"},
        {"control byte", BOX "(assert (<= Y_0 \x01))", 1, NNC_STATUS_PARSE, "unexpected character 0x01"},
        {"unsat", BOX "(assert (<= 1 0))", 1, NNC_STATUS_INVALID, "unsatisfiable"},
        {"false", BOX "(assert false)", 1, NNC_STATUS_INVALID, "unsatisfiable"},
        {"gap in inputs", "(declare-const X_0 Real)(declare-const X_2 Real)(declare-const Y_0 Real)", 0,
         NNC_STATUS_INVALID, "X_1 is not"},
        {"no outputs", "(declare-const X_0 Real)" BOX, 0, NNC_STATUS_INVALID, "no output variables"},
        {"no inputs", "(declare-const Y_0 Real)", 0, NNC_STATUS_INVALID, "no input variables"},
        {"empty text", "", 0, NNC_STATUS_INVALID, "no input variables"},
        {"huge index", "(declare-const X_99999999 Real)", 1, NNC_STATUS_LIMIT, "limit"},
        {"huge index use", BOX "(assert (<= X_123456789012 1))", 1, NNC_STATUS_PARSE, "undeclared"},
        {"declare after use", "(assert (<= X_1 1)) (declare-const X_1 Real)", 1, NNC_STATUS_PARSE, "undeclared"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[4096];
        snprintf(text, sizeof text, "%s%s", cases[i].decl ? "(declare-const X_0 Real)(declare-const Y_0 Real)\n" : "",
                 cases[i].text);
        nnc_spec *s = (nnc_spec *)1;
        char err[NNC_ERRBUF_SIZE];
        nnc_status st = parse_str(&s, text, err, sizeof err);
        ck_assert_msg(st == cases[i].st, "%s: status %s, expected %s (%s)", cases[i].name, nnc_status_string(st),
                      nnc_status_string(cases[i].st), err);
        ck_assert_ptr_null(s);
        ck_assert_msg(strstr(err, "line ") != NULL, "%s: no line in '%s'", cases[i].name, err);
        ck_assert_msg(strstr(err, cases[i].needle) != NULL, "%s: '%s' lacks '%s'", cases[i].name, err,
                      cases[i].needle);
        ck_assert_msg(strchr(err, '\n') == NULL, "%s: message has a newline", cases[i].name);
    }
}
END_TEST

START_TEST(test_error_positions)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_spec *s;
    const char *t1 = "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (<= X_0 1))\n"
                     "(assert (>= X_0 0))\n(assert (<=  Y_0 Y_9))\n";
    ck_assert_int_eq(parse_str(&s, t1, err, sizeof err), NNC_STATUS_PARSE);
    ck_assert_str_eq(err, "line 5, column 18: undeclared variable 'Y_9'");
    const char *t2 = "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (<= X_0 1))\n"
                     "  (assert (or (<= Y_0 1)\n";
    ck_assert_int_eq(parse_str(&s, t2, err, sizeof err), NNC_STATUS_PARSE);
    ck_assert_str_eq(err, "line 4, column 3: unbalanced parentheses: this '(' is not closed before the end of input");
    const char *t3 = "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (<= X_0 1))\n"
                     "(assert (>= X_0 2))\n(assert (<= Y_0 1))\n";
    ck_assert_int_eq(parse_str(&s, t3, err, sizeof err), NNC_STATUS_INVALID);
    ck_assert_msg(strncmp(err, "line 4, column 9: empty input box", 33) == 0, "%s", err);
    /* the missing bound points at the declaration */
    const char *t4 = "(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const Y_0 Real)\n"
                     "(assert (<= X_0 1))\n(assert (>= X_0 0))\n(assert (<= X_1 1))\n";
    ck_assert_int_eq(parse_str(&s, t4, err, sizeof err), NNC_STATUS_INVALID);
    ck_assert_str_eq(err, "line 2, column 16: input X_1 has no lower bound");
    /* a short buffer truncates but stays a string; NULL is allowed */
    char tiny[8];
    ck_assert_int_eq(parse_str(&s, t1, tiny, sizeof tiny), NNC_STATUS_PARSE);
    ck_assert_str_eq(tiny, "line 5,");
    ck_assert_int_eq(parse_str(&s, t1, NULL, 0), NNC_STATUS_PARSE);
}
END_TEST

/* ------------------------------------------------------------- limits */

START_TEST(test_limits)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_spec *s;
    size_t cap = 1 << 20;
    char *text = malloc(cap), *p;

    /* nesting: 300 levels of and, and 300 levels of + */
    p = decls(text, 1, 1);
    p += sprintf(p, BOX "(assert ");
    for (int i = 0; i < 300; i++) p += sprintf(p, "(and ");
    p += sprintf(p, "(<= Y_0 1)");
    for (int i = 0; i < 300; i++) *p++ = ')';
    strcpy(p, ")");
    ck_assert_int_eq(parse_str(&s, text, err, sizeof err), NNC_STATUS_LIMIT);
    ck_assert_ptr_nonnull(strstr(err, "nesting deeper than 256"));
    p = decls(text, 1, 1);
    p += sprintf(p, BOX "(assert (<= ");
    for (int i = 0; i < 300; i++) p += sprintf(p, "(+ 1 ");
    p += sprintf(p, "Y_0");
    for (int i = 0; i < 300; i++) *p++ = ')';
    strcpy(p, " 1))");
    ck_assert_int_eq(parse_str(&s, text, err, sizeof err), NNC_STATUS_LIMIT);
    /* 250 levels are fine */
    p = decls(text, 1, 1);
    p += sprintf(p, BOX "(assert ");
    for (int i = 0; i < 250; i++) p += sprintf(p, "(or ");
    p += sprintf(p, "(<= Y_0 1)");
    for (int i = 0; i < 250; i++) *p++ = ')';
    strcpy(p, ")");
    s = must_parse(text);
    nnc_spc_destroy(s);
    /* a million unclosed (and: no stack overflow */
    size_t n = 1000000;
    char *deep = malloc(5 * n + 256);
    p = decls(deep, 1, 1);
    p += sprintf(p, "(assert ");
    for (size_t i = 0; i < n; i++) p += sprintf(p, "(and ");
    ck_assert_int_eq(nnc_spc_parse(&s, deep, (size_t)(p - deep), err, sizeof err), NNC_STATUS_LIMIT);
    free(deep);

    /* 2^20 cases from 20 input disjunctions */
    p = decls(text, 20, 1);
    for (int i = 0; i < 20; i++)
        p += sprintf(p, "(assert (or (and (<= X_%d 0) (>= X_%d -1)) (and (<= X_%d 1) (>= X_%d 0))))\n", i, i, i, i);
    strcpy(p, "(assert (<= Y_0 0))");
    ck_assert_int_eq(parse_str(&s, text, err, sizeof err), NNC_STATUS_LIMIT);
    ck_assert_ptr_nonnull(strstr(err, "cases"));
    ck_assert_ptr_nonnull(strstr(err, "line "));
    /* 2^20 output disjuncts */
    p = decls(text, 1, 2);
    p += sprintf(p, BOX);
    for (int i = 0; i < 20; i++) p += sprintf(p, "(assert (or (<= Y_0 %d) (<= Y_1 %d)))\n", i, i);
    ck_assert_int_eq(parse_str(&s, text, err, sizeof err), NNC_STATUS_LIMIT);
    ck_assert_ptr_nonnull(strstr(err, "disjuncts"));
    /* 2^16 cases is allowed, and is fast */
    p = decls(text, 16, 1);
    for (int i = 0; i < 16; i++)
        p += sprintf(p, "(assert (or (and (<= X_%d 0) (>= X_%d -1)) (and (<= X_%d 1) (>= X_%d 0))))\n", i, i, i, i);
    strcpy(p, "(assert (<= Y_0 0))");
    s = must_parse(text);
    ck_assert_int_eq(nnc_spc_num_cases(s), 1 << 16);
    nnc_spc_destroy(s);
    /* repeated duplicate input disjunctions merge back to one box */
    p = decls(text, 1, 1);
    for (int i = 0; i < 10; i++) p += sprintf(p, "(assert (or (and (<= X_0 1) (>= X_0 0)) (and (>= X_0 0) (<= X_0 1))))\n");
    strcpy(p, "(assert (<= Y_0 0))");
    s = must_parse(text);
    ck_assert_int_eq(nnc_spc_num_cases(s), 1);
    ck_assert_int_eq(nnc_spc_case_num_disjuncts(s, 0), 1 << 10);
    nnc_spc_destroy(s);
    free(text);
}
END_TEST

/* Large inputs take linear time: 200k inputs, and 300 boxes of 300 inputs. */
START_TEST(test_large_specs)
{
    int nx = 200000;
    size_t cap = (size_t)nx * 90 + 4096;
    char *text = malloc(cap), *p = text;
    p = decls(p, nx, 10);
    p += sprintf(p, "(assert (or");
    for (int j = 1; j < 10; j++) p += sprintf(p, " (and (>= Y_%d Y_0))", j);
    p += sprintf(p, "))\n");
    for (int i = 0; i < nx; i++) p += sprintf(p, "(assert (<= X_%d 0.%d))\n(assert (>= X_%d -0.5))\n", i, i, i);
    clock_t t0 = clock();
    nnc_spec *s = NULL;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_int_eq(nnc_spc_parse(&s, text, (size_t)(p - text), err, sizeof err), NNC_STATUS_OK);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    ck_assert_int_eq(nnc_spc_num_inputs(s), nx);
    ck_assert_int_eq(nnc_spc_case_num_disjuncts(s, 0), 9);
    ck_assert_double_eq(nnc_spc_case_hi(s, 0)[12], 0.12);
    ck_assert_msg(secs < 5.0, "200k-input spec took %.2f s", secs);
    nnc_spc_destroy(s);

    int nb = 300, ni = 300;
    p = decls(text, ni, 10);
    p += sprintf(p, "(assert (or\n");
    for (int b = 0; b < nb; b++) {
        p += sprintf(p, " (and");
        for (int i = 0; i < ni; i++) p += sprintf(p, " (<= X_%d %d.5) (>= X_%d %d)", i, b, i, b);
        p += sprintf(p, ")\n");
    }
    p += sprintf(p, "))\n(assert (or");
    for (int j = 1; j < 10; j++) p += sprintf(p, " (and (>= Y_%d Y_0))", j);
    p += sprintf(p, "))\n");
    t0 = clock();
    ck_assert_int_eq(nnc_spc_parse(&s, text, (size_t)(p - text), err, sizeof err), NNC_STATUS_OK);
    secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    ck_assert_int_eq(nnc_spc_num_cases(s), nb);
    ck_assert_int_eq(nnc_spc_total_disjuncts(s), nb * 9);
    ck_assert_double_eq(nnc_spc_case_lo(s, 17)[5], 17);
    ck_assert_msg(secs < 5.0, "300-box spec took %.2f s", secs);
    check_roundtrip(s);
    nnc_spc_destroy(s);

    /* wide operators: (* big-sum 2 2 ... 2), (/ ...), a 90000-way or, a long chain */
    int nw = 90000;
    p = decls(text, 1, 2);
    p += sprintf(p, BOX "(assert (<= (* (+");
    for (int i = 0; i < nw; i++) p += sprintf(p, " Y_%d", i & 1);
    p += sprintf(p, ")");
    for (int i = 0; i < nw; i++) p += sprintf(p, " 1");
    p += sprintf(p, " 2) (/ 8");
    for (int i = 0; i < 40; i++) p += sprintf(p, " 2");
    p += sprintf(p, ")))\n(assert (or");
    for (int i = 0; i < nw; i++) p += sprintf(p, " (<= Y_0 %d)", i);
    p += sprintf(p, "))\n(assert (<= -1 -0.5");
    for (int i = 0; i < nw; i++) p += sprintf(p, " 0");
    p += sprintf(p, "))\n");
    t0 = clock();
    ck_assert_int_eq(nnc_spc_parse(&s, text, (size_t)(p - text), err, sizeof err), NNC_STATUS_OK);
    secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    ck_assert_msg(secs < 5.0, "wide operators took %.2f s", secs);
    ck_assert_int_eq(nnc_spc_case_num_disjuncts(s, 0), nw);
    nnc_spc_lin l;
    nnc_spc_disjunct_con(s, 0, 7, 0, &l);
    expect_lin(&l, 2, (int[]){0, 1}, (double[]){nw, nw}, ldexp(1, -37));
    nnc_spc_destroy(s);
    free(text);
}
END_TEST

/* --------------------------------------------------- builder, helpers */

START_TEST(test_linf)
{
    double x[4] = {0.0, 0.5, 1.0, 0.98};
    nnc_spec *s;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_int_eq(nnc_spc_linf(&s, x, 4, 3, 1, 0.03, 0.0, 1.0, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(nnc_spc_num_inputs(s), 4);
    ck_assert_int_eq(nnc_spc_num_outputs(s), 3);
    ck_assert_int_eq(nnc_spc_num_cases(s), 1);
    const double *lo = nnc_spc_case_lo(s, 0), *hi = nnc_spc_case_hi(s, 0);
    ck_assert_double_eq(lo[0], 0.0); /* clipped */
    ck_assert(hi[0] >= 0.03 && hi[0] <= nextafter(0.03, 1));
    ck_assert(lo[1] <= 0.47 && lo[1] >= nextafter(0.47, 0));
    ck_assert_double_eq(hi[2], 1.0); /* clipped */
    ck_assert_double_eq(hi[3], 1.0);
    ck_assert(lo[3] <= 0.95 && lo[3] > 0.9499999);
    ck_assert_int_eq(nnc_spc_case_num_disjuncts(s, 0), 2);
    nnc_spc_lin l;
    nnc_spc_disjunct_con(s, 0, 0, 0, &l); /* j = 0: Y_1 - Y_0 <= 0 */
    expect_lin(&l, 2, (int[]){0, 1}, (double[]){-1, 1}, 0);
    nnc_spc_disjunct_con(s, 0, 1, 0, &l); /* j = 2: Y_1 - Y_2 <= 0 */
    expect_lin(&l, 2, (int[]){1, 2}, (double[]){1, -1}, 0);
    ck_assert_int_eq(nnc_spc_unsafe_disjunct(s, 0, (double[]){0.1, 0.9, 0.0}), -1);
    ck_assert_int_eq(nnc_spc_unsafe_disjunct(s, 0, (double[]){0.1, 0.4, 0.5}), 1);
    ck_assert_int_eq(nnc_spc_unsafe_disjunct(s, 0, (double[]){0.4, 0.4, 0.0}), 0); /* ties are unsafe */
    check_roundtrip(s);
    nnc_spc_destroy(s);

    /* outward rounding: 1 +- 2^-60 is not representable */
    double one = 1.0;
    ck_assert_int_eq(nnc_spc_linf(&s, &one, 1, 2, 0, ldexp(1, -60), -INFINITY, INFINITY, err, sizeof err),
                     NNC_STATUS_OK);
    ck_assert(nnc_spc_case_lo(s, 0)[0] < 1.0);
    ck_assert(nnc_spc_case_hi(s, 0)[0] > 1.0);
    ck_assert_double_eq(nnc_spc_case_lo(s, 0)[0], nextafter(1.0, 0));
    nnc_spc_destroy(s);
    /* eps = 0 gives the point */
    ck_assert_int_eq(nnc_spc_linf(&s, x, 4, 10, 9, 0, -INFINITY, INFINITY, err, sizeof err), NNC_STATUS_OK);
    for (int i = 0; i < 4; i++) {
        ck_assert_double_eq(nnc_spc_case_lo(s, 0)[i], x[i]);
        ck_assert_double_eq(nnc_spc_case_hi(s, 0)[i], x[i]);
    }
    ck_assert_int_eq(nnc_spc_case_num_disjuncts(s, 0), 9);
    check_roundtrip(s);
    nnc_spc_destroy(s);

    CHECK_ILLEGAL(nnc_spc_linf(&s, x, 4, 3, 3, 0.1, 0, 1, err, sizeof err), err);
    ck_assert_ptr_null(s);
    CHECK_ILLEGAL(nnc_spc_linf(&s, x, 4, 3, -1, 0.1, 0, 1, err, sizeof err), err);
    CHECK_ILLEGAL(nnc_spc_linf(&s, x, 4, 1, 0, 0.1, 0, 1, err, sizeof err), err);
    CHECK_ILLEGAL(nnc_spc_linf(&s, x, 4, 3, 0, -0.1, 0, 1, err, sizeof err), err);
    CHECK_ILLEGAL(nnc_spc_linf(&s, x, 4, 3, 0, NAN, 0, 1, err, sizeof err), err);
    CHECK_ILLEGAL(nnc_spc_linf(&s, x, 4, 3, 0, INFINITY, 0, 1, err, sizeof err), err);
    CHECK_ILLEGAL(nnc_spc_linf(&s, x, 4, 3, 0, 0.1, 1, 0, err, sizeof err), err);
    double far[1] = {5.0}, bad[1] = {NAN};
    CHECK_ILLEGAL(nnc_spc_linf(&s, far, 1, 3, 0, 0.1, 0, 1, err, sizeof err), err);
    ck_assert_ptr_nonnull(strstr(err, "empty"));
    CHECK_ILLEGAL(nnc_spc_linf(&s, bad, 1, 3, 0, 0.1, 0, 1, err, sizeof err), err);
    ck_assert_int_eq(nnc_spc_linf(&s, far, 1, 3, 0, 0.1, -INFINITY, INFINITY, err, sizeof err), NNC_STATUS_OK);
    nnc_spc_destroy(s);
}
END_TEST

START_TEST(test_model_dims_and_files)
{
    double x[3] = {0, 0, 0};
    nnc_spec *s;
    char err[NNC_ERRBUF_SIZE];
    ck_assert_int_eq(nnc_spc_linf(&s, x, 3, 10, 2, 0.1, 0, 1, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(nnc_spc_check_model_dims(s, 3, 10, err, sizeof err), NNC_STATUS_OK);
    ck_assert_int_eq(nnc_spc_check_model_dims(s, 784, 10, err, sizeof err), NNC_STATUS_INVALID);
    ck_assert_ptr_nonnull(strstr(err, "3 inputs"));
    ck_assert_ptr_nonnull(strstr(err, "784 inputs"));
    ck_assert_int_eq(nnc_spc_check_model_dims(s, 3, 5, err, sizeof err), NNC_STATUS_INVALID);
    ck_assert_ptr_nonnull(strstr(err, "10 outputs"));
    ck_assert_ptr_nonnull(strstr(err, "5 outputs"));

    /* parse_file: write, read back, and error prefixes */
    char path[] = "/tmp/nnc_test_specs_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert_int_eq(nnc_spc_write_vnnlib(f, s, err, sizeof err), NNC_STATUS_OK);
    fclose(f);
    nnc_spec *t;
    ck_assert_int_eq(nnc_spc_parse_file(&t, path, err, sizeof err), NNC_STATUS_OK);
    ck_assert(nnc_spc_equal(s, t));
    nnc_spc_destroy(t);
    f = fopen(path, "w");
    fputs("(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (<= X_0 ))\n", f);
    fclose(f);
    ck_assert_int_eq(nnc_spc_parse_file(&t, path, err, sizeof err), NNC_STATUS_PARSE);
    ck_assert_ptr_null(t);
    ck_assert_ptr_nonnull(strstr(err, path));
    ck_assert_ptr_nonnull(strstr(err, "line 3"));
    unlink(path);
    ck_assert_int_eq(nnc_spc_parse_file(&t, path, err, sizeof err), NNC_STATUS_IO);
    ck_assert_ptr_nonnull(strstr(err, path));

    /* equal() notices differences */
    nnc_spec *u;
    ck_assert_int_eq(nnc_spc_linf(&u, x, 3, 10, 3, 0.1, 0, 1, err, sizeof err), NNC_STATUS_OK);
    ck_assert(!nnc_spc_equal(s, u));
    nnc_spc_destroy(u);
    ck_assert_int_eq(nnc_spc_linf(&u, x, 3, 10, 2, 0.2, 0, 1, err, sizeof err), NNC_STATUS_OK);
    ck_assert(!nnc_spc_equal(s, u));
    nnc_spc_destroy(u);
    nnc_spc_destroy(s);
    nnc_spc_destroy(NULL);
}
END_TEST

/* ----------------------------------------------------- VNN-COMP files */

static nnc_spec *load_data(const char *rel)
{
    const char *dir = data_dir();
    if (dir == NULL) return NULL;
    char path[2048], err[NNC_ERRBUF_SIZE];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    nnc_spec *s = NULL;
    nnc_status st = nnc_spc_parse_file(&s, path, err, sizeof err);
    ck_assert_msg(st == NNC_STATUS_OK, "%s: %s", rel, err);
    return s;
}

START_TEST(test_acasxu_known)
{
    nnc_spec *s = load_data("acasxu/vnnlib/prop_1.vnnlib");
    if (s == NULL) {
        printf("note: shared data not found (set SHARED), ACAS Xu checks skipped\n");
        return;
    }
    ck_assert_int_eq(nnc_spc_num_inputs(s), 5);
    ck_assert_int_eq(nnc_spc_num_outputs(s), 5);
    ck_assert_int_eq(nnc_spc_num_cases(s), 1);
    const char *los[5] = {"0.6", "-0.5", "-0.5", "0.45", "-0.5"};
    const char *his[5] = {"0.679857769", "0.5", "0.5", "0.5", "-0.45"};
    for (int i = 0; i < 5; i++) {
        ck_assert_double_eq(nnc_spc_case_lo(s, 0)[i], strtod(los[i], NULL));
        ck_assert_double_eq(nnc_spc_case_hi(s, 0)[i], strtod(his[i], NULL));
    }
    ck_assert_int_eq(nnc_spc_case_num_disjuncts(s, 0), 1);
    nnc_spc_lin l;
    nnc_spc_disjunct_con(s, 0, 0, 0, &l);
    expect_lin(&l, 1, (int[]){0}, (double[]){-1}, -3.991125645861615);
    nnc_spc_destroy(s);

    s = load_data("acasxu/vnnlib/prop_2.vnnlib"); /* a conjunction: Y_0 is maximal */
    ck_assert_int_eq(nnc_spc_case_num_disjuncts(s, 0), 1);
    ck_assert_int_eq(nnc_spc_disjunct_size(s, 0, 0), 4);
    nnc_spc_destroy(s);

    s = load_data("acasxu/vnnlib/prop_6.vnnlib");
    ck_assert_int_eq(nnc_spc_num_cases(s), 2);
    ck_assert_double_eq(nnc_spc_case_lo(s, 0)[1], 0.11140846);
    ck_assert_double_eq(nnc_spc_case_hi(s, 0)[1], 0.499999896);
    ck_assert_double_eq(nnc_spc_case_lo(s, 1)[1], -0.499999896);
    ck_assert_double_eq(nnc_spc_case_hi(s, 1)[1], -0.11140846);
    for (int k = 0; k < 2; k++) {
        ck_assert_double_eq(nnc_spc_case_lo(s, k)[0], -0.129289109);
        ck_assert_double_eq(nnc_spc_case_hi(s, k)[4], 0.5);
        ck_assert_int_eq(nnc_spc_case_num_disjuncts(s, k), 4);
        for (int j = 0; j < 4; j++) { /* (<= Y_{j+1} Y_0) */
            nnc_spc_lin l2;
            nnc_spc_disjunct_con(s, k, j, 0, &l2);
            expect_lin(&l2, 2, (int[]){0, j + 1}, (double[]){-1, 1}, 0);
        }
    }
    nnc_spc_destroy(s);

    s = load_data("acasxu/vnnlib/prop_7.vnnlib");
    ck_assert_int_eq(nnc_spc_case_num_disjuncts(s, 0), 2);
    ck_assert_int_eq(nnc_spc_disjunct_size(s, 0, 0), 3);
    ck_assert_int_eq(nnc_spc_disjunct_size(s, 0, 1), 3);
    nnc_spc_destroy(s);
}
END_TEST

START_TEST(test_mnist_fc_known)
{
    nnc_spec *s = load_data("mnist_fc/vnnlib/prop_0_0.03.vnnlib");
    if (s == NULL) {
        printf("note: shared data not found (set SHARED), mnist_fc checks skipped\n");
        return;
    }
    ck_assert_int_eq(nnc_spc_num_inputs(s), 784);
    ck_assert_int_eq(nnc_spc_num_outputs(s), 10);
    ck_assert_int_eq(nnc_spc_num_cases(s), 1);
    ck_assert_int_eq(nnc_spc_case_num_disjuncts(s, 0), 9);
    ck_assert_double_eq(nnc_spc_case_lo(s, 0)[0], 0.0);
    ck_assert_double_eq(nnc_spc_case_hi(s, 0)[0], 0.029999999329447746);
    for (int j = 0, other = 0; j < 9; j++, other++) { /* label 4: (>= Y_other Y_4) */
        if (other == 4) other++;
        nnc_spc_lin l;
        ck_assert_int_eq(nnc_spc_disjunct_size(s, 0, j), 1);
        nnc_spc_disjunct_con(s, 0, j, 0, &l);
        int lo = other < 4 ? other : 4, hi = other < 4 ? 4 : other;
        expect_lin(&l, 2, (int[]){lo, hi}, (double[]){lo == 4 ? 1 : -1, hi == 4 ? 1 : -1}, 0);
    }
    char err[NNC_ERRBUF_SIZE];
    ck_assert_int_eq(nnc_spc_check_model_dims(s, 784, 10, err, sizeof err), NNC_STATUS_OK);
    nnc_spc_destroy(s);
}
END_TEST

typedef struct walk {
    int files, cases, failures;
} walk;

static void walk_dir(const char *dir, walk *w)
{
    DIR *d = opendir(dir);
    if (d == NULL) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            walk_dir(path, w);
            continue;
        }
        size_t n = strlen(e->d_name);
        if (n < 8 || strcmp(e->d_name + n - 7, ".vnnlib") != 0) continue;
        nnc_spec *s = NULL;
        char err[NNC_ERRBUF_SIZE];
        nnc_status st2 = nnc_spc_parse_file(&s, path, err, sizeof err);
        ck_assert_msg(st2 == NNC_STATUS_OK, "%s", err);
        w->files++;
        w->cases += nnc_spc_num_cases(s);
        int nin = nnc_spc_num_inputs(s), nout = nnc_spc_num_outputs(s);
        for (int k = 0; k < nnc_spc_num_cases(s); k++) {
            const double *lo = nnc_spc_case_lo(s, k), *hi = nnc_spc_case_hi(s, k);
            for (int i = 0; i < nin; i++) ck_assert(isfinite(lo[i]) && isfinite(hi[i]) && lo[i] <= hi[i]);
            ck_assert_int_ge(nnc_spc_case_num_disjuncts(s, k), 1);
        }
        if (nin == 784 || nin == 3072) { /* MNIST / CIFAR-10 robustness: 10 classes, 9 disjuncts Y_L - Y_j <= 0 */
            ck_assert_int_eq(nout, 10);
            ck_assert_int_eq(nnc_spc_num_cases(s), 1);
            ck_assert_int_eq(nnc_spc_case_num_disjuncts(s, 0), 9);
            int label = -1, seen = 0;
            for (int j = 0; j < 9; j++) {
                nnc_spc_lin l;
                ck_assert_int_eq(nnc_spc_disjunct_size(s, 0, j), 1);
                nnc_spc_disjunct_con(s, 0, j, 0, &l);
                ck_assert_int_eq(l.n, 2);
                ck_assert_double_eq(l.rhs, 0);
                int L = l.coef[0] == 1 ? l.idx[0] : l.idx[1], o = l.coef[0] == 1 ? l.idx[1] : l.idx[0];
                ck_assert_double_eq(l.coef[0] * l.coef[1], -1);
                if (label < 0) label = L;
                ck_assert_int_eq(L, label);
                seen |= 1 << o;
            }
            ck_assert_int_eq(seen | 1 << label, 0x3ff);
            if (nin == 784) /* raw pixels; the CIFAR-10 specs are over normalised inputs */
                for (int i = 0; i < nin; i++)
                    ck_assert(nnc_spc_case_lo(s, 0)[i] >= 0 && nnc_spc_case_hi(s, 0)[i] <= 1);
        } else {
            ck_assert_int_eq(nin, 5); /* ACAS Xu */
            ck_assert_int_eq(nout, 5);
        }
        check_roundtrip(s);
        nnc_spc_destroy(s);
    }
    closedir(d);
}

START_TEST(test_all_vnncomp_files)
{
    const char *dir = data_dir();
    if (dir == NULL) {
        printf("note: shared data not found (set SHARED), VNN-COMP files skipped\n");
        return;
    }
    walk w = {0, 0, 0};
    walk_dir(dir, &w);
    printf("parsed and round-tripped %d VNN-COMP .vnnlib files (%d cases)\n", w.files, w.cases);
    ck_assert_int_ge(w.files, 100);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("specs");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_box_and_single_output);
    tcase_add_test(tc, test_linear_terms);
    tcase_add_test(tc, test_chain_equality_and_commands);
    tcase_add_test(tc, test_cases_from_input_disjunction);
    tcase_add_test(tc, test_mixed_terms_and_merging);
    tcase_add_test(tc, test_output_distribution);
    tcase_add_test(tc, test_input_constraints_and_region);
    tcase_add_test(tc, test_roundtrip_shapes);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_error_positions);
    tcase_add_test(tc, test_limits);
    tcase_add_test(tc, test_large_specs);
    tcase_add_test(tc, test_linf);
    tcase_add_test(tc, test_model_dims_and_files);
    tcase_add_test(tc, test_acasxu_known);
    tcase_add_test(tc, test_mnist_fc_known);
    tcase_add_test(tc, test_all_vnncomp_files);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main_run(suite());
}
