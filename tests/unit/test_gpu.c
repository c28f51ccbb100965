/* GPU backend: the CUDA activation kernels equal the CPU's per-element math
 * (common/act.h) on the same inputs.  Without a CUDA build or a device this
 * program reports "skipped" and exits 77, which tests/run_all.sh counts as a
 * skip, never a pass. */
#include "common/act.h"
#include "gpu_test_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ulps(float a, float b)
{
    int32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    if (x < 0) x = INT32_MIN - x;
    if (y < 0) y = INT32_MIN - y;
    return abs(x - y);
}

int main(void)
{
    char err[NNC_ERRBUF_SIZE] = "";
    gpu_test_devices_or_skip();
    size_t n = 1 << 20;
    float *in = malloc(n * sizeof(float)), *gpu = malloc(n * sizeof(float));
    harness_set_seed(12345); /* fixed inputs */
    for (size_t k = 0; k < n; k++) in[k] = ((float)urand() - 0.5f) * 40.0f;
    in[0] = 0.0f; in[1] = -0.0f; in[2] = 88.0f; in[3] = -88.0f; in[4] = 1e-30f;
    int bad = 0;
    for (int act = 0; act < 4; act++) {
        if (nnc_gpu_activation_f32((nnc_gpu_act)act, 0.01f, in, gpu, n, err, sizeof err) != NNC_STATUS_OK) {
            printf("FAIL: %s\n", err);
            return 1;
        }
        int worst = 0;
        for (size_t k = 0; k < n; k++) {
            float c = act == 0 ? nnc_relu_f32(in[k]) : act == 1 ? nnc_leaky_f32(in[k], 0.01f)
                      : act == 2 ? nnc_sigmoid_f32(in[k]) : nnc_tanh_f32(in[k]);
            int u = ulps(c, gpu[k]);
            if (u > worst) worst = u;
        }
        /* relu/leaky are exact; expf/tanhf may differ by the libraries' ulp error */
        int allowed = act < 2 ? 0 : 4;
        printf("activation %d: worst difference %d ulp (allowed %d)\n", act, worst, allowed);
        bad += worst > allowed;
    }
    free(in);
    free(gpu);
    printf("%s\n", bad ? "FAIL" : "100%: Checks: 4, Failures: 0, Errors: 0");
    return bad ? 1 : 0;
}
