/* warpred/warpred.cuh - includes every warpred header.      MIT licensed, see LICENSE.

   warpred is a header-only collection of device-side reduction primitives for CUDA, in layers:
     version.h, config.cuh the version, the compiler check and the configuration macros
     lanes.cuh             the hardware lane and lane masks
     types.cuh             the scalar types, their bits and extremes
     ieee.cuh              IEEE 754-2019 min/max for every scalar
     value.cuh             which values reduce, and how to make your own struct reducible
     operation.cuh         what an operation provides to every layer (and how to write yours)
     ops.cuh               the operations (sum, min, max, ... with IEEE NaN and -0 rules)
     op_argminmax.cuh      argmin / argmax value-index pairs
     op_tuple.cuh          several values, each with its own operation, in one pass
     op_extrema.cuh        the smallest and the largest value in one pass
     op_welford.cuh        mean and variance (Welford / Chan merge)
     op_softmax.cuh        the (max, sum of exp) pair of an online softmax
     op_rsum.cuh           a float/double sum with the same bits on every GPU and launch shape
     warp_reduce.cuh       warp and sub-warp reductions (result in lane 0, or in every lane)
     warp_segmented.cuh    warp reductions by key and by head flags
     block_reduce.cuh      block reductions for any block shape (result in thread 0, or everywhere)
     cluster_reduce.cuh    thread-block cluster reductions through distributed shared memory (sm_90+)
     cluster_allreduce_once.cuh  a cluster's one allreduce in a kernel, no cluster barrier after it
     grid_scratch.h        the grid reduction's scratch memory, for host code (C or C++)
     grid_reduce.cuh       one result for a whole grid in a single launch, deterministic
     transforms.cuh        per-element transforms for the device-wide reduce
     device_reduce_kernel.cuh  the device-wide reduce's kernel
     device_reduce.cuh     a device-wide reduction of an array, called from the host
     atomic_aggregate.cuh  warp-aggregated atomic increment and add
     atomic_minmax.cuh     exact atomic max/min for float, double, __half, __nv_bfloat16
     atomic_argminmax.cuh  argmin / argmax of many blocks or kernels in one 64-bit slot
     vector_rsum.cuh       element-wise sums of several vectors with the same bits on any number
                           of GPUs (the reproducible all-reduce of gradients)
   Each header's top comment is its manual.
*/
#ifndef WARPRED_CUH
#define WARPRED_CUH
#include "ops.cuh"
#include "op_argminmax.cuh"
#include "op_tuple.cuh"
#include "op_extrema.cuh"
#include "op_welford.cuh"
#include "op_softmax.cuh"
#include "op_rsum.cuh"
#include "warp_reduce.cuh"
#include "warp_segmented.cuh"
#include "block_reduce.cuh"
#include "cluster_reduce.cuh"
#include "cluster_allreduce_once.cuh"
#include "grid_reduce.cuh"
#include "device_reduce.cuh"
#include "atomic_aggregate.cuh"
#include "atomic_minmax.cuh"
#include "atomic_argminmax.cuh"
#include "vector_rsum.cuh"
#endif /* WARPRED_CUH */
