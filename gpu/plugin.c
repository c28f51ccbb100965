/* libnncert's side of the CUDA plugin (gpu/plugin_impl.h) in a CUDA build:
 * the public GPU functions forward to the table that libnncert-gpu.so
 * exports, loaded with dlopen on the first call, so that a program that never
 * asks for the GPU never loads cudart, cuBLAS, cuRAND or NCCL.  Without the
 * CUDA unit (make GPU=0) gpu/backend_none.c defines these functions
 * instead.
 *
 * Look-up: $NNCERT_GPU_PLUGIN when set (only that file); otherwise the
 * first libnncert-gpu.so that exists next to libnncert.so (when the code
 * runs from it), next to the executable, in its parent folder (the test and
 * tool programs in a build folder's tests/ and tools/), in ../lib (make
 * install) or in ../build (bin/nncert in the source tree); when none
 * exists, the dynamic loader's own search (LD_LIBRARY_PATH, ld.so.cache).
 * The first file found is the one used: a broken plugin there is reported,
 * not skipped. */
#include "gpu/plugin_impl.h"

#ifdef NNC_HAVE_CUDA
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Process-wide, written once under plugin_once: the accepted table, or NULL
 * and the one-line reason.  A handle, once opened, is never closed: the CUDA
 * unit's constructors have registered exit handlers. */
static pthread_once_t plugin_once = PTHREAD_ONCE_INIT;
static const nnc_gpu_plugin *plugin_table;
static char plugin_error[NNC_ERRBUF_SIZE];

/* Returns: 1 when path loads and its table matches this build (plugin_table
 * set), 0 otherwise (plugin_error set, naming path and dlerror()). */
static int plugin_try(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        nnc_err(plugin_error, sizeof plugin_error, NNC_STATUS_DEVICE, "cannot load the CUDA plugin %s: %s", path,
                dlerror());
        return 0;
    }
    dlerror();
    const nnc_gpu_plugin *t = (const nnc_gpu_plugin *)dlsym(h, NNC_GPU_PLUGIN_SYMBOL);
    if (!t) {
        const char *e = dlerror();
        nnc_err(plugin_error, sizeof plugin_error, NNC_STATUS_DEVICE, "the CUDA plugin %s has no %s: %s", path,
                NNC_GPU_PLUGIN_SYMBOL, e ? e : "null symbol");
        return 0;
    }
    static const uint32_t sizes[NNC_GPU_PLUGIN_NSIZES] = NNC_GPU_PLUGIN_SIZES;
    if (t->abi != NNC_GPU_PLUGIN_ABI || t->size != sizeof *t || strcmp(t->version, NNC_VERSION_STRING) != 0 ||
        memcmp(t->sizes, sizes, sizeof sizes) != 0) {
        nnc_err(plugin_error, sizeof plugin_error, NNC_STATUS_DEVICE,
                "the CUDA plugin %s was built for another nncert (plugin ABI %u, %s; this one ABI %d, %s, or other "
                "struct sizes): rebuild it with this nncert",
                path, (unsigned)t->abi, t->abi == NNC_GPU_PLUGIN_ABI ? t->version : "?", NNC_GPU_PLUGIN_ABI,
                NNC_VERSION_STRING);
        return 0;
    }
    plugin_table = t;
    return 1;
}

/* Out: dir, the folder of the file path names (resolved), or "" . */
static void dir_of(char dir[PATH_MAX], const char *path)
{
    dir[0] = '\0';
    if (!path || path[0] != '/' || !realpath(path, dir)) {
        dir[0] = '\0';
        return;
    }
    char *slash = strrchr(dir, '/');
    if (slash == dir) dir[1] = '\0';
    else if (slash) *slash = '\0';
}

static void plugin_load(void)
{
    const char *env = getenv(NNC_GPU_PLUGIN_ENV);
    if (env && env[0]) {
        plugin_try(env);
        return;
    }
    static char lib_dir[PATH_MAX], exe_dir[PATH_MAX], cand[6][PATH_MAX + 32];
    Dl_info info;
    if (dladdr((void *)plugin_load, &info)) dir_of(lib_dir, info.dli_fname);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        dir_of(exe_dir, exe);
    }
    int nc = 0;
    /* libnncert.so's folder, when this code runs from a shared library */
    if (lib_dir[0] && strcmp(lib_dir, exe_dir) != 0)
        snprintf(cand[nc++], sizeof cand[0], "%s/%s", lib_dir, NNC_GPU_PLUGIN_FILE);
    if (exe_dir[0]) {
        static const char *const rel[] = {"", "/..", "/../lib", "/../build"};
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++)
            snprintf(cand[nc++], sizeof cand[0], "%s%s/%s", exe_dir, rel[i], NNC_GPU_PLUGIN_FILE);
    }
    for (int i = 0; i < nc; i++)
        if (access(cand[i], F_OK) == 0) {
            plugin_try(cand[i]);
            return;
        }
    if (plugin_try(NNC_GPU_PLUGIN_FILE)) return;
    char load_err[NNC_ERRBUF_SIZE];
    memcpy(load_err, plugin_error, sizeof load_err);
    nnc_err(plugin_error, sizeof plugin_error, NNC_STATUS_DEVICE,
            "%s (and none in %s, its parent, ../lib or ../build; set " NNC_GPU_PLUGIN_ENV "=PATH to name it)",
            load_err, exe_dir[0] ? exe_dir : "the executable's folder");
}

/* Returns: the table, or NULL with err naming the plugin tried and why. */
static const nnc_gpu_plugin *plugin(char *err, size_t errlen)
{
    pthread_once(&plugin_once, plugin_load);
    if (!plugin_table) nnc_err(err, errlen, NNC_STATUS_DEVICE, "%s", plugin_error);
    return plugin_table;
}

#define PLUGIN_OR_RETURN(p)                        \
    const nnc_gpu_plugin *p = plugin(err, errlen); \
    if (!p) return NNC_STATUS_DEVICE

int nnc_gpu_compiled(void) { return 1; }

/* The forwarders (gpu/backend_list.h).  A destroy's non-NULL g came from the
 * plugin, so the plugin is loaded; NULL (the CPU path's destroy) must not
 * load it. */
#define NNC_GPU_FN(name, field, params, args, init) \
    nnc_status name params                          \
    {                                               \
        init PLUGIN_OR_RETURN(p_);                  \
        return p_->field args;                      \
    }
#define NNC_GPU_DESTROY(name, field, type) \
    void name(type *g)                     \
    {                                      \
        if (g) plugin_table->field(g);     \
    }
#include "gpu/backend_list.h"
#undef NNC_GPU_FN
#undef NNC_GPU_DESTROY
#endif
