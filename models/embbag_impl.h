/* Hooks of the fused EmbeddingBag operator into the IR (models/prepare.c,
 * models/kernels_impl.h).  Not part of the public API.
 *
 * Parsed parameters of an NNC_OP_EMBEDBAG node (node->p):
 *   0 mode (nnc_embbag_mode), 1 rows, 2 dim, 3 bag length L (> 0),
 *   4 bags per sample; inputs: 0 the table (a dense float constant
 *   [rows, dim]), 1 the ids (integers, per-sample numel = bags * L). */
#ifndef NNC_EMBBAG_IMPL_H
#define NNC_EMBBAG_IMPL_H

#include "models/model_impl.h"

/* Fuse every Gather(constant table, run-time ids) whose only consumer is a
 * ReduceSum/ReduceMean over exactly the ids' last axis into an EmbeddingBag
 * node (the Gather is marked dead).  Runs after shape inference. */
nnc_status nnc_embbag_fuse(nnc_model *m, char *err, size_t errlen);

/* Run a fused node (x->batch samples).  Returns: 0, or 1 when an id is out of
 * range (nothing meaningful is written then). */
int nnc_embbag_exec_f32(const nnc_exec *x, const nnc_node *n);
int nnc_embbag_exec_f64(const nnc_exec *x, const nnc_node *n);

#endif
