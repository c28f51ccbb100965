/* A DLRM's tables from its ONNX model, and the MPI helpers of the
 * distributed run (dist/dlrm.h). */
#include "dist/dlrm.h"
#include "nncert/model.h"

#include <stdlib.h>
#include <string.h>
#ifdef NNC_HAVE_MPI
#include <mpi.h>
#endif

void nnc_dlrm_model_free(nnc_dlrm_model *d)
{
    if (d == NULL) return;
    nnc_mdl_destroy(d->model);
    free(d->info);
    free(d->tables);
    free(d->weights);
    free(d->modes);
    memset(d, 0, sizeof *d);
}

nnc_status nnc_dlrm_model_load(nnc_dlrm_model *d, const char *path, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    nnc_status st = nnc_mdl_load(&d->model, path, err, errlen);
    if (st) return st;
    int n = nnc_mdl_embbag_tables(d->model, NULL, 0);
    if (n == 0) {
        nnc_dlrm_model_free(d);
        return nnc_err(err, errlen, NNC_STATUS_INVALID,
                       "%s has no embedding bag (Gather on a table + ReduceSum/ReduceMean) fed by a graph input", path);
    }
    d->n_tables = n;
    d->info = calloc((size_t)n, sizeof *d->info);
    d->tables = calloc((size_t)n, sizeof *d->tables);
    d->weights = calloc((size_t)n, sizeof *d->weights);
    d->modes = calloc((size_t)n, sizeof *d->modes);
    if (!d->info || !d->tables || !d->weights || !d->modes) {
        nnc_dlrm_model_free(d);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    nnc_mdl_embbag_tables(d->model, d->info, n);
    for (int t = 0; t < n; t++) {
        d->tables[t].rows = d->info[t].rows;
        d->tables[t].dim = d->info[t].dim;
        d->weights[t] = d->info[t].weights;
        d->modes[t] = d->info[t].mode;
    }
    for (int i = 0; i < nnc_mdl_num_inputs(d->model); i++) {
        nnc_tensor_info ti;
        nnc_mdl_input_info(d->model, i, &ti);
        if (nnc_dtype_is_float(ti.dtype)) d->n_dense += (int)ti.numel;
    }
    return NNC_STATUS_OK;
}

#ifdef NNC_HAVE_MPI
int nnc_dlrm_mpi_all(nnc_dist_comm comm, int ok)
{
    if (comm == MPI_COMM_NULL) return ok;
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    return all;
}

nnc_status nnc_dlrm_mpi_gather_f32(nnc_dist_comm comm, float *out, const float *mine, int64_t count, int64_t width,
                                   char *err, size_t errlen)
{
    if (comm == MPI_COMM_NULL) {
        memcpy(out, mine, (size_t)(count * width) * sizeof(float));
        return NNC_STATUS_OK;
    }
    int me, D;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &D);
    if (count * width > 0x7fffffff) return nnc_err(err, errlen, NNC_STATUS_LIMIT, "gather: block too large for MPI counts");
    int n = (int)(count * width);
    int *cnt = calloc((size_t)D, sizeof(int)), *dis = calloc((size_t)D, sizeof(int));
    if (!cnt || !dis) {
        free(cnt);
        free(dis);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
    }
    MPI_Gather(&n, 1, MPI_INT, cnt, 1, MPI_INT, 0, comm);
    for (int k = 1; k < D; k++) dis[k] = dis[k - 1] + cnt[k - 1];
    MPI_Gatherv(mine, n, MPI_FLOAT, out, cnt, dis, MPI_FLOAT, 0, comm);
    free(cnt);
    free(dis);
    return NNC_STATUS_OK;
}
#else
int nnc_dlrm_mpi_all(nnc_dist_comm comm, int ok)
{
    (void)comm;
    return ok;
}
nnc_status nnc_dlrm_mpi_gather_f32(nnc_dist_comm comm, float *out, const float *mine, int64_t count, int64_t width,
                                   char *err, size_t errlen)
{
    (void)comm; (void)err; (void)errlen;
    memcpy(out, mine, (size_t)(count * width) * sizeof(float));
    return NNC_STATUS_OK;
}
#endif
