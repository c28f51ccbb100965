/* TC-GNN sparse graph translation on the host; see gpu/spmm_translate.h. */
#include "gpu/spmm_translate.h"

#include <stdlib.h>
#include <string.h>

void nnc_gpu_sgt_free(nnc_gpu_sgt *t)
{
    if (t == NULL) return;
    free(t->win_col_ptr);
    free(t->win_cols);
    free(t->win_tile_ptr);
    free(t->edge_pos);
    memset(t, 0, sizeof *t);
}

nnc_status nnc_gpu_sgt_build(nnc_gpu_sgt *out, const nnc_mdl_csr32 *a, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->rows = a->rows;
    out->cols = a->cols;
    out->nnz = a->nnz;
    out->n_windows = (int32_t)(((int64_t)a->rows + NNC_SGT_H - 1) / NNC_SGT_H);
    size_t nw = (size_t)out->n_windows;
    out->win_col_ptr = malloc((nw + 1) * sizeof(int32_t));
    out->win_tile_ptr = malloc((nw + 1) * sizeof(int32_t));
    out->win_cols = malloc(((size_t)a->nnz + 1) * sizeof(int32_t)); /* at most one per entry */
    out->edge_pos = malloc(((size_t)a->nnz + 1) * sizeof(int32_t));
    /* last[c] = the window that last listed column c; pos[c] its index there */
    int32_t *last = malloc(((size_t)a->cols + 1) * sizeof(int32_t));
    int32_t *pos = malloc(((size_t)a->cols + 1) * sizeof(int32_t));
    if (!out->win_col_ptr || !out->win_tile_ptr || !out->win_cols || !out->edge_pos || !last || !pos) {
        free(last);
        free(pos);
        nnc_gpu_sgt_free(out);
        return nnc_err(err, errlen, NNC_STATUS_NOMEM, "sparse graph translation: out of memory");
    }
    for (int32_t c = 0; c < a->cols; c++) last[c] = -1;
    int32_t u = 0;
    int64_t tiles = 0;
    out->win_col_ptr[0] = 0;
    out->win_tile_ptr[0] = 0;
    for (int32_t w = 0; w < out->n_windows; w++) {
        int32_t r0 = w * NNC_SGT_H, r1 = r0 + NNC_SGT_H < a->rows ? r0 + NNC_SGT_H : a->rows;
        int32_t start = u;
        /* the window's entries are row_ptr[r0] .. row_ptr[r1]-1: mark the distinct
         * columns, sort them (a window holds few), then number them */
        for (int32_t k = a->row_ptr[r0]; k < a->row_ptr[r1]; k++)
            if (last[a->col[k]] != w) {
                last[a->col[k]] = w;
                out->win_cols[u++] = a->col[k];
            }
        for (int32_t i = start + 1; i < u; i++) { /* insertion sort: rows are sorted, so runs are long */
            int32_t v = out->win_cols[i], j = i - 1;
            while (j >= start && out->win_cols[j] > v) {
                out->win_cols[j + 1] = out->win_cols[j];
                j--;
            }
            out->win_cols[j + 1] = v;
        }
        for (int32_t i = start; i < u; i++) pos[out->win_cols[i]] = i - start;
        for (int32_t k = a->row_ptr[r0]; k < a->row_ptr[r1]; k++) out->edge_pos[k] = pos[a->col[k]];
        tiles += (u - start + NNC_SGT_W - 1) / NNC_SGT_W;
        out->win_col_ptr[w + 1] = u;
        out->win_tile_ptr[w + 1] = (int32_t)tiles;
    }
    out->n_tiles = tiles;
    free(last);
    free(pos);
    return NNC_STATUS_OK;
}

void nnc_gpu_sgt_tile(float tile[NNC_SGT_H * NNC_SGT_W], int32_t cols[NNC_SGT_W], const nnc_gpu_sgt *t,
                      const nnc_mdl_csr32 *a, int32_t w, int32_t i)
{
    int32_t base = t->win_col_ptr[w], u = t->win_col_ptr[w + 1] - base;
    for (int j = 0; j < NNC_SGT_W; j++) cols[j] = i * NNC_SGT_W + j < u ? t->win_cols[base + i * NNC_SGT_W + j] : -1;
    for (int q = 0; q < NNC_SGT_H * NNC_SGT_W; q++) tile[q] = 0.0f;
    int32_t r0 = w * NNC_SGT_H, r1 = r0 + NNC_SGT_H < a->rows ? r0 + NNC_SGT_H : a->rows;
    for (int32_t r = r0; r < r1; r++)
        for (int32_t k = a->row_ptr[r]; k < a->row_ptr[r + 1]; k++)
            if (t->edge_pos[k] / NNC_SGT_W == i) tile[(r - r0) * NNC_SGT_W + t->edge_pos[k] % NNC_SGT_W] = a->val[k];
}

int nnc_gpu_sgt_dense_window(const nnc_gpu_sgt *t, const nnc_mdl_csr32 *a, int32_t w)
{
    int32_t r0 = w * NNC_SGT_H, r1 = r0 + NNC_SGT_H < a->rows ? r0 + NNC_SGT_H : a->rows;
    int64_t nnz = a->row_ptr[r1] - a->row_ptr[r0], tiles = t->win_tile_ptr[w + 1] - t->win_tile_ptr[w];
    return tiles > 0 && nnz >= tiles * NNC_SGT_MIN_TILE_NNZ;
}
