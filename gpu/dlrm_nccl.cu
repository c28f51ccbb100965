// Execution of an embedding placement with one GPU per device, driven by
// one process (dist/dlrm.h, nnc_dlrm_exec_nccl).  Per table:
//   1. the host routes every requester's lookups (nnc_dlrm_route, as the
//      simulated and MPI runs do), local pieces included, so every row
//      read goes through a GPU;
//   2. ids go requester -> server in one NCCL group of send/receive pairs;
//   3. each serving GPU gathers the requested rows (slices) from the shards
//      it holds, element by element with dist/dlrm_math.h's formula;
//   4. rows go server -> requester in a second NCCL group;
//   5. the host places them in lookup order and pools them with the CPU
//      kernel (nnc_dlrm_pool), so the pooled embeddings equal the other
//      runs' bit for bit.
// Counters are counted as nnc_dlrm_exec_sim counts them.
#include "gpu/cuda_check_impl.h"
#include "dist/dlrm.h"
#include "dist/dlrm_impl.h"
#include "dist/dlrm_math.h"

#include "gpu/nccl_check_impl.h"

#include <stdlib.h>
#include <string.h>
#include <vector>

// out[i * w + c] = held row of ids[i], column c of the slice
__global__ static void gather_kernel(const float *rows, const int64_t *local, int64_t w, const int64_t *ids, int64_t n,
                                     float *out)
{
    int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n * w) return;
    int64_t i = e / w, c = e % w;
    out[e] = nnc_dlrm_gathered(rows, local, w, ids[i], c);
}

struct nnc_dlrm_gpu_dev {
    std::vector<float *> rows;     // per table: the held rows
    std::vector<int64_t *> local;  // per table: global -> held index, or NULL (all rows)
    int64_t *sids, *rids;          // ids this device sends (to every server) / receives (from every requester)
    float *served, *back;          // rows it serves / gets back
    cudaStream_t s;
};

static int64_t held_rows(const nnc_dlrm_store *ds, const nnc_dlrm_plan *p, int t)
{
    if (ds->local[t] == NULL) return p->tables[t].rows;
    int64_t h = 0;
    for (int64_t r = 0; r < p->tables[t].rows; r++) h += ds->local[t][r] >= 0;
    return h;
}

extern "C" nnc_status nnc_dlrm_exec_nccl(float *pooled, nnc_dlrm_cost *c, const nnc_dlrm_plan *p, const nnc_trace *tr,
                                         const double *const *weights, const nnc_embbag_mode *modes, const nnc_dlrm_opts *o,
                                         char *err, size_t errlen)
{
    nnc_status st = nnc_dlrm_check_inputs(p, tr, err, errlen);
    if (st) return st;
    int D = p->devices, T = p->n_tables, count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    if (D > count) return nnc_err(err, errlen, NNC_STATUS_ARG, "the plan is for %d devices, %d GPUs are present", D, count);
    memset(c, 0, sizeof *c);
    c->devices = D;
    std::vector<nnc_dlrm_store> ds((size_t)D);
    std::vector<nnc_dlrm_reqs> q((size_t)D * (size_t)D);   // q[o * D + k]: o's lookups served by k
    std::vector<nnc_dlrm_gpu_dev> G((size_t)D);
    std::vector<ncclComm_t> comms((size_t)D, (ncclComm_t)NULL);
    std::vector<int> devs;
    std::vector<float *> asm_rows((size_t)D, (float *)NULL);
    std::vector<float> hback;
    int64_t dsum = 0, off = 0;
    for (int t = 0; t < T; t++) dsum += p->tables[t].dim;
    for (int k = 0; k < D; k++) {
        devs.push_back(k);
        memset(&ds[k], 0, sizeof ds[k]);
        G[k].rows.assign((size_t)T, (float *)NULL);
        G[k].local.assign((size_t)T, (int64_t *)NULL);
        G[k].sids = G[k].rids = NULL;
        G[k].served = G[k].back = NULL;
        G[k].s = NULL;
    }
    for (int k = 0; k < D; k++) {
        if (nnc_dlrm_store_build(&ds[k], p, k, weights)) {
            st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
            goto done;
        }
        c->mem_bytes[k] = ds[k].mem;
        NNC_CUDA_CHECK_GOTO(cudaSetDevice(k), done);
        NNC_CUDA_CHECK_GOTO(cudaStreamCreate(&G[k].s), done);
        for (int t = 0; t < T; t++) {
            size_t nf = (size_t)(held_rows(&ds[k], p, t) * ds[k].width[t]);
            NNC_CUDA_CHECK_GOTO(cudaMalloc(&G[k].rows[t], (nf + 1) * sizeof(float)), done);
            NNC_CUDA_CHECK_GOTO(cudaMemcpy(G[k].rows[t], ds[k].rows[t], nf * sizeof(float), cudaMemcpyHostToDevice), done);
            if (ds[k].local[t]) {
                size_t nr = (size_t)p->tables[t].rows;
                NNC_CUDA_CHECK_GOTO(cudaMalloc(&G[k].local[t], (nr + 1) * sizeof(int64_t)), done);
                NNC_CUDA_CHECK_GOTO(cudaMemcpy(G[k].local[t], ds[k].local[t], nr * sizeof(int64_t), cudaMemcpyHostToDevice), done);
            }
        }
    }
    NNC_NCCL_CHECK(ncclCommInitAll(comms.data(), D, devs.data()));
    for (int t = 0; t < T; t++) {
        int64_t dim = p->tables[t].dim;
        // 1. routing; sizes and offsets of every (requester, server) piece
        std::vector<int64_t> soff((size_t)D * (D + 1)), roff((size_t)D * (D + 1)), boff((size_t)D * (D + 1));
        for (int oo = 0; oo < D; oo++) {
            int64_t s0 = tr->n_samples * oo / D, s1 = tr->n_samples * (oo + 1) / D, P = nnc_dlrm_block_lookups(tr, t, s0, s1);
            free(asm_rows[oo]);
            asm_rows[oo] = (float *)malloc((size_t)(P * dim + 1) * sizeof(float));
            if (asm_rows[oo] == NULL) {
                st = nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory");
                goto done;
            }
            for (int k = 0; k < D; k++) q[(size_t)oo * D + k].n = 0;
            int rc = nnc_dlrm_route(asm_rows[oo], &q[(size_t)oo * D], &ds[oo], p, tr, t, oo, s0, s1, c, 1);
            if (rc) {
                st = rc == -2 ? nnc_err(err, errlen, NNC_STATUS_NOMEM, "out of memory")
                              : nnc_err(err, errlen, NNC_STATUS_INVALID, "plan: device %d lacks a row it should hold", oo);
                goto done;
            }
        }
        for (int oo = 0; oo < D; oo++) {
            soff[(size_t)oo * (D + 1)] = boff[(size_t)oo * (D + 1)] = 0;
            for (int k = 0; k < D; k++) {
                const nnc_dlrm_reqs *r = &q[(size_t)oo * D + k];
                soff[(size_t)oo * (D + 1) + k + 1] = soff[(size_t)oo * (D + 1) + k] + r->n;
                boff[(size_t)oo * (D + 1) + k + 1] = boff[(size_t)oo * (D + 1) + k] + r->n * ds[k].width[t];
                for (int64_t i = 0; i < r->n; i++)
                    if (nnc_dlrm_held_index(ds[k].local[t], r->ids[i]) < 0) {
                        st = nnc_err(err, errlen, NNC_STATUS_INVALID, "plan: device %d lacks a row it should hold", k);
                        goto done;
                    }
                // what the run reads and moves, as nnc_dlrm_exec_sim counts it
                c->lookups[k] += r->n;
                c->read_bytes[k] += r->n * ds[k].width[t] * 4;
                if (k != oo) {
                    c->sent[oo] += 8 * r->n;
                    c->recv[k] += 8 * r->n;
                    c->sent[k] += 4 * ds[k].width[t] * r->n;
                    c->recv[oo] += 4 * ds[k].width[t] * r->n;
                }
            }
        }
        for (int k = 0; k < D; k++) {
            roff[(size_t)k * (D + 1)] = 0;
            for (int oo = 0; oo < D; oo++) roff[(size_t)k * (D + 1) + oo + 1] = roff[(size_t)k * (D + 1) + oo] + q[(size_t)oo * D + k].n;
        }
        for (int k = 0; k < D; k++) {
            nnc_dlrm_gpu_dev &g = G[k];
            int64_t ns = soff[(size_t)k * (D + 1) + D], nr = roff[(size_t)k * (D + 1) + D], nb = boff[(size_t)k * (D + 1) + D];
            std::vector<int64_t> h((size_t)ns + 1);
            for (int s2 = 0; s2 < D; s2++) {
                const nnc_dlrm_reqs *r = &q[(size_t)k * D + s2];
                if (r->n) memcpy(h.data() + soff[(size_t)k * (D + 1) + s2], r->ids, (size_t)r->n * sizeof(int64_t));
            }
            NNC_CUDA_CHECK_GOTO(cudaSetDevice(k), done);
            cudaFree(g.sids); cudaFree(g.rids); cudaFree(g.served); cudaFree(g.back);
            g.sids = g.rids = NULL;
            g.served = g.back = NULL;
            NNC_CUDA_CHECK_GOTO(cudaMalloc(&g.sids, ((size_t)ns + 1) * sizeof(int64_t)), done);
            NNC_CUDA_CHECK_GOTO(cudaMalloc(&g.rids, ((size_t)nr + 1) * sizeof(int64_t)), done);
            NNC_CUDA_CHECK_GOTO(cudaMalloc(&g.served, ((size_t)(nr * ds[k].width[t]) + 1) * sizeof(float)), done);
            NNC_CUDA_CHECK_GOTO(cudaMalloc(&g.back, ((size_t)nb + 1) * sizeof(float)), done);
            NNC_CUDA_CHECK_GOTO(cudaMemcpy(g.sids, h.data(), (size_t)ns * sizeof(int64_t), cudaMemcpyHostToDevice), done);
        }
        // 2. ids, requester oo -> server k
        NNC_NCCL_CHECK(ncclGroupStart());
        for (int oo = 0; oo < D; oo++)
            for (int k = 0; k < D; k++) {
                size_t n = (size_t)q[(size_t)oo * D + k].n;
                if (n == 0 || k == oo) continue;
                NNC_NCCL_CHECK(ncclSend(G[oo].sids + soff[(size_t)oo * (D + 1) + k], n, ncclInt64, k, comms[oo], G[oo].s));
                NNC_NCCL_CHECK(ncclRecv(G[k].rids + roff[(size_t)k * (D + 1) + oo], n, ncclInt64, oo, comms[k], G[k].s));
            }
        NNC_NCCL_CHECK(ncclGroupEnd());
        // 3. local requests without the network; then every server gathers
        for (int k = 0; k < D; k++) {
            nnc_dlrm_gpu_dev &g = G[k];
            size_t n = (size_t)q[(size_t)k * D + k].n;
            int64_t nr = roff[(size_t)k * (D + 1) + D], w = ds[k].width[t];
            NNC_CUDA_CHECK_GOTO(cudaSetDevice(k), done);
            if (n)
                NNC_CUDA_CHECK_GOTO(cudaMemcpyAsync(g.rids + roff[(size_t)k * (D + 1) + k], g.sids + soff[(size_t)k * (D + 1) + k],
                                                    n * sizeof(int64_t), cudaMemcpyDeviceToDevice, g.s), done);
            if (nr * w > 0)
                gather_kernel<<<(unsigned)((nr * w + 255) / 256), 256, 0, g.s>>>(g.rows[t], g.local[t], w, g.rids, nr, g.served);
            NNC_CUDA_CHECK_GOTO(cudaGetLastError(), done);
        }
        // 4. rows, server k -> requester oo
        NNC_NCCL_CHECK(ncclGroupStart());
        for (int oo = 0; oo < D; oo++)
            for (int k = 0; k < D; k++) {
                size_t n = (size_t)(q[(size_t)oo * D + k].n * ds[k].width[t]);
                if (n == 0 || k == oo) continue;
                NNC_NCCL_CHECK(ncclSend(G[k].served + roff[(size_t)k * (D + 1) + oo] * ds[k].width[t], n, ncclFloat, oo, comms[k], G[k].s));
                NNC_NCCL_CHECK(ncclRecv(G[oo].back + boff[(size_t)oo * (D + 1) + k], n, ncclFloat, k, comms[oo], G[oo].s));
            }
        NNC_NCCL_CHECK(ncclGroupEnd());
        // 5. rows in lookup order, pooled on the host
        for (int oo = 0; oo < D; oo++) {
            nnc_dlrm_gpu_dev &g = G[oo];
            size_t n = (size_t)(q[(size_t)oo * D + oo].n * ds[oo].width[t]);
            int64_t nb = boff[(size_t)oo * (D + 1) + D];
            NNC_CUDA_CHECK_GOTO(cudaSetDevice(oo), done);
            if (n)
                NNC_CUDA_CHECK_GOTO(cudaMemcpyAsync(g.back + boff[(size_t)oo * (D + 1) + oo], g.served + roff[(size_t)oo * (D + 1) + oo] * ds[oo].width[t],
                                                    n * sizeof(float), cudaMemcpyDeviceToDevice, g.s), done);
            hback.assign((size_t)nb + 1, 0.0f);
            NNC_CUDA_CHECK_GOTO(cudaMemcpyAsync(hback.data(), g.back, (size_t)nb * sizeof(float), cudaMemcpyDeviceToHost, g.s), done);
            NNC_CUDA_CHECK_GOTO(cudaStreamSynchronize(g.s), done);
            for (int k = 0; k < D; k++) {
                const nnc_dlrm_reqs *r = &q[(size_t)oo * D + k];
                int64_t w = ds[k].width[t];
                for (int64_t i = 0; i < r->n; i++)
                    memcpy(asm_rows[oo] + r->slot[i] * dim + ds[k].c0[t], hback.data() + boff[(size_t)oo * (D + 1) + k] + i * w,
                           (size_t)w * sizeof(float));
            }
            int64_t s0 = tr->n_samples * oo / D, s1 = tr->n_samples * (oo + 1) / D;
            if (pooled && (st = nnc_dlrm_pool(pooled, asm_rows[oo], nnc_dlrm_block_lookups(tr, t, s0, s1), tr, t, s0, s1, dim, dsum,
                                              off, modes[t], err, errlen)))
                goto done;
        }
        off += dim;
    }
    nnc_dlrm_finish_cost(c, o);
done:
    for (int k = 0; k < D; k++) {
        nnc_dlrm_gpu_dev &g = G[k];
        cudaSetDevice(k);
        if (comms[k]) ncclCommDestroy(comms[k]);
        for (int t = 0; t < T; t++) {
            cudaFree(g.rows[t]);
            cudaFree(g.local[t]);
        }
        cudaFree(g.sids); cudaFree(g.rids); cudaFree(g.served); cudaFree(g.back);
        if (g.s) cudaStreamDestroy(g.s);
        nnc_dlrm_store_free(&ds[k]);
        free(asm_rows[k]);
    }
    for (size_t i = 0; i < q.size(); i++) {
        free(q[i].ids);
        free(q[i].slot);
    }
    return st;
}
