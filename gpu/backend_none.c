/* The GPU interface in a build without the CUDA unit (make GPU=0): every
 * entry point of gpu/backend_list.h refuses with UNSUPPORTED (its outputs
 * cleared as the forwarders clear them), and a destroy does nothing. */
#include "gpu/plugin_impl.h"

#ifndef NNC_HAVE_CUDA
int nnc_gpu_compiled(void) { return 0; }

#define NNC_GPU_NONE "this nncert was built without CUDA (make GPU=0)"
#define NNC_GPU_FN(name, field, params, args, init)                    \
    nnc_status name params                                             \
    {                                                                  \
        init return nnc_err(err, errlen, NNC_STATUS_UNSUPPORTED, NNC_GPU_NONE); \
    }
#define NNC_GPU_DESTROY(name, field, type) \
    void name(type *g) { (void)g; }
#include "gpu/backend_list.h"
#undef NNC_GPU_FN
#undef NNC_GPU_DESTROY
#endif
