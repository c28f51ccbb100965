/* The public release functions (README, Library): every _destroy accepts
 * NULL, every _clear accepts NULL and a zeroed struct, and a struct cleared
 * once may be cleared again.  tests/e2e/layers.sh checks that each _destroy
 * and _clear the public headers declare is called here. */
#include "nncert.h"
#include "tests/unit/harness.h"

#include <check.h>
#include <string.h>

START_TEST(test_destroy_null)
{
    nnc_mdl_destroy(NULL);
    nnc_rt_destroy(NULL);
    nnc_spc_destroy(NULL);
    nnc_json_doc_destroy(NULL);
    nnc_vrf_opts_destroy(NULL);
    nnc_vrf_bounder_destroy(NULL);
    nnc_vrf_free(NULL);
    nnc_gate_config_destroy(NULL);
    nnc_gate_run_destroy(NULL);
    nnc_gpu_smp_destroy(NULL);
    nnc_gpu_bab_destroy(NULL);
}
END_TEST

/* NULL, then a zeroed struct twice */
#define CLEAR_3(fn, type)                   \
    do {                                    \
        type v_;                            \
        memset(&v_, 0, sizeof v_);          \
        fn(NULL);                           \
        fn(&v_);                            \
        fn(&v_);                            \
    } while (0)

START_TEST(test_clear_null_zeroed_twice)
{
    CLEAR_3(nnc_tensor_clear, nnc_tensor);
    CLEAR_3(nnc_inputs_clear, nnc_inputs);
    CLEAR_3(nnc_mdl_trace_clear, nnc_trace);
    CLEAR_3(nnc_vrf_report_clear, nnc_vrf_report);
    CLEAR_3(nnc_prv_r1cs_clear, nnc_prv_r1cs);
    CLEAR_3(nnc_prv_fr_vec_clear, nnc_prv_fr_vec);
    CLEAR_3(nnc_prv_zkey_clear, nnc_prv_zkey);
    CLEAR_3(nnc_prv_g16_vk_clear, nnc_prv_g16_vk);
    CLEAR_3(nnc_prv_ptau_clear, nnc_prv_ptau);
    CLEAR_3(nnc_prv_mpc_clear, nnc_prv_mpc);
}
END_TEST

/* filled by the library, released, released again */
START_TEST(test_clear_filled_twice)
{
    char err[NNC_ERRBUF_SIZE];
    nnc_json_doc *d = NULL;
    ck_assert_int_eq(nnc_json_parse(&d, "{\"a\": [1, 2]}", 13, err, sizeof err), NNC_STATUS_OK);
    nnc_json_doc_destroy(d);
    nnc_trace t;
    memset(&t, 0, sizeof t);
    ck_assert_msg(nnc_mdl_trace_parse(&t, "1.5,3\n2.5,4:7\n", 14, 1, 1, err, sizeof err) == NNC_STATUS_OK, "%s", err);
    nnc_mdl_trace_clear(&t);
    nnc_mdl_trace_clear(&t);
    nnc_vrf_opts *o = nnc_vrf_opts_new();
    ck_assert_ptr_nonnull(o);
    nnc_vrf_opts_destroy(o);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("release");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_destroy_null);
    tcase_add_test(tc, test_clear_null_zeroed_twice);
    tcase_add_test(tc, test_clear_filled_twice);
    suite_add_tcase(s, tc);
    return check_main_run(s);
}
