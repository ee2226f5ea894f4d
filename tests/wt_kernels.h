/* tests/wt_kernels.h - the test shapes that the warp and block tests share: which lanes of a
   test warp call (the modes), the device side that makes those calls, and the host side that
   finds, per segment, the lanes that called (and a lane that did not call but was written); and
   the block-level reduce-then-allreduce calls (dynamic and static block sizes). */
#ifndef WT_KERNELS_H
#define WT_KERNELS_H

#include <warpred/warp_reduce.cuh>
#include <warpred/block_reduce.cuh>
#include "wt_types.h"

/* How the lanes of one test warp call:
     WT_FULL   all 32 lanes, warpred_warp_reduce / _allreduce
     WT_EVEN   only the even-numbered segments, same functions (exercises the segment masks)
     1..32     a partial warp: only lanes 0..n-1 call warpred_warp_reduce_partial /
               warpred_warp_allreduce_partial with n (the other lanes are absent) */
enum { WT_FULL = 0, WT_EVEN = -1 };

/* 8 full warps, 4 with only even segments, then one warp for each n = 1..32 */
enum { WT_MODE_WARPS = 8 + 4 + 32 };

static inline void wt_warp_modes(int modes[WT_MODE_WARPS])
{
    for (int b = 0; b < WT_MODE_WARPS; b++) modes[b] = b < 8 ? WT_FULL : b < 12 ? WT_EVEN : b - 11;
}

static inline int wt_lane_calls(int mode, int W, int lane)
{
    if (mode == WT_FULL) return 1;
    if (mode == WT_EVEN) return (lane / W) % 2 == 0;
    return lane < mode;
}

/* One lane of a one-warp block (lane = threadIdx.x): reduces and allreduces v with width W the
   way mode says, into *red and *all; a lane that does not call writes nothing. */
template <int W, typename T, typename Op>
__device__ void wt_warp_calls(T v, Op op, int mode, T *red, T *all)
{
    const int lane = threadIdx.x;
    if (mode == WT_FULL || (mode == WT_EVEN && (lane / W) % 2 == 0)) {
        *red = warpred_warp_reduce<W>(v, op);
        *all = warpred_warp_allreduce<W>(v, op);
    } else if (mode > 0 && lane < mode) {
        *red = warpred_warp_reduce_partial<W>(v, op, mode);
        *all = warpred_warp_allreduce_partial<W>(v, op, mode);
    }
}

/* The plain case: one input value per lane; blocks of 32 threads, modes[blockIdx.x]. */
template <int W, typename T, typename Op>
__global__ void wt_k_warp(const T *in, const int *modes, T *red, T *all)
{
    const int i = blockIdx.x * 32 + threadIdx.x;
    wt_warp_calls<W>(in[i], Op(), modes[blockIdx.x], red + i, all + i);
}

/* Host side, warp b's segment starting at lane seg: the calling lanes' global positions
   (b * 32 + lane) into pos, their number returned. *stray is the first lane of the segment that
   did not call but whose red or all output is no longer poison, or -1. */
template <typename T>
static int wt_segment_callers(int mode, int W, int b, int seg, const T *red, const T *all, int pos[32], int *stray)
{
    int k = 0;
    *stray = -1;
    for (int l = seg; l < seg + W; l++) {
        const int i = b * 32 + l;
        if (wt_lane_calls(mode, W, l)) pos[k++] = i;
        else if (*stray < 0 && (!wt_is_poison(red[i]) || !wt_is_poison(all[i]))) *stray = l;
    }
    return k;
}

/* Block level, blocks of up to three dimensions: the thread's linear index in its block. */
static __device__ __forceinline__ int wt_block_tid(void)
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

/* One thread of a block: reduce, then allreduce, v (their _valid forms when valid > 0) with no
   barrier in between; thread tid 0 writes *red (the block's slot), every thread *all (its own). */
template <typename T, typename Op>
__device__ void wt_block_calls(T v, Op op, int valid, int tid, T *red, T *all)
{
    T r, s;
    if (valid > 0) {
        r = warpred_block_reduce_valid(v, op, valid);
        s = warpred_block_allreduce_valid(v, op, valid);
    } else {
        r = warpred_block_reduce(v, op);
        s = warpred_block_allreduce(v, op);
    }
    if (tid == 0) *red = r;
    *all = s;
}

/* The same with the forms for a block size BT known at compile time. */
template <int BT, typename T, typename Op>
__device__ void wt_block_calls_static(T v, Op op, int valid, int tid, T *red, T *all)
{
    T r, s;
    if (valid > 0) {
        r = warpred_block_reduce_valid<BT>(v, op, valid);
        s = warpred_block_allreduce_valid<BT>(v, op, valid);
    } else {
        r = warpred_block_reduce<BT>(v, op);
        s = warpred_block_allreduce<BT>(v, op);
    }
    if (tid == 0) *red = r;
    *all = s;
}

#endif /* WT_KERNELS_H */
