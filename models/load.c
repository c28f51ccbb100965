/* Loading a model: the ONNX front end's parse (onnx_load.c), then the
 * graph preparation (prepare.c). */
#include "models/model_impl.h"

nnc_status nnc_mdl_load(nnc_model **out, const char *path, char *err, size_t errlen)
{
    nnc_status st = nnc_mdl_parse_file(out, path, err, errlen);
    if (st) return st;
    char inner[NNC_ERRBUF_SIZE] = "";
    st = nnc_mdl_prepare(*out, NULL, inner, sizeof inner);
    if (st) {
        nnc_err(err, errlen, st, "%s: %s", path, inner);
        nnc_mdl_destroy(*out);
        *out = NULL;
    }
    return st;
}
