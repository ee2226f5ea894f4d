/* tests/wt_kernels.h - the test shapes that the warp, block and grid tests share: which lanes of
   a test warp call (the modes), the device side that makes those calls, and the host side that
   finds, per segment, the lanes that called (and a lane that did not call but was written); the
   block-level reduce-then-allreduce calls (dynamic and static block sizes); and the host drivers
   that run a test's kernel at one of these shapes and hold every output to the test's reference:

     wt_run_warps(what, W, launch, check, same)                    the WT_MODE_WARPS test warps
     wt_run_blocks(what, shape, blocks, counted, launch, check, same)  blocks of any shape
     wt_run_grid(what, blocks, repeats, scratch, launch, check, same)  one grid, several launches

   launch(...) starts the test's kernel on output buffers the driver made (poisoned, so an output
   that is not written shows); check(pos, k, got, why, len) says whether got is the right result
   for the inputs at positions pos[0..k-1] and, when not, why (the grid's check(got, why, len):
   the result of all its inputs); same(a, b) whether two results have the same bits. A driver
   fails the test, with `what` and the shape in the message, on the first wrong output. */
#ifndef WT_KERNELS_H
#define WT_KERNELS_H

#include <warpred/warp_reduce.cuh>
#include <warpred/block_reduce.cuh>
#include "wt_types.h"
#include "wt_plans.h"

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
template <int W, typename T, typename Op> __device__ void wt_warp_calls(T v, Op op, int mode, T *red, T *all)
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
template <int W, typename T, typename Op> __global__ void wt_k_warp(const T *in, const int *modes, T *red, T *all)
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
        else if (*stray < 0 && (!wt_is_poison(red[i]) || !wt_is_poison(all[i])))
            *stray = l;
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
template <typename T, typename Op> __device__ void wt_block_calls(T v, Op op, int valid, int tid, T *red, T *all)
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

/* ------------------------------------------------------------------------------------------
   host drivers: launch, copy back, hold every output to the reference
   ------------------------------------------------------------------------------------------ */

/* For each of `blocks` blocks of n threads, fn(b, pos): pos holds b * n, ..., b * n + n - 1, the
   positions of block b's values (for the checks of a test's own block kernel). */
template <typename Fn> static void wt_each_block(int blocks, int n, Fn fn)
{
    int *pos = (int *)wt_host_alloc((size_t)n * sizeof(int));
    for (int b = 0; b < blocks; b++) {
        for (int t = 0; t < n; t++) pos[t] = b * n + t;
        fn(b, (const int *)pos);
    }
    wt_host_free(pos);
}

/* The back-to-back tests (several block reductions in one kernel with no barrier of the caller's
   in between) run blocks of each of these shapes with at least `smallest` threads:
   fn(shape, n), n the shape's thread count. */
template <typename Fn> static void wt_each_back_to_back_shape(int smallest, Fn fn)
{
    const dim3 shapes[] = {dim3(1024), dim3(1000), dim3(257), dim3(64), dim3(33),
                           dim3(32),   dim3(5),    dim3(2),   dim3(1),  dim3(7, 5, 3)};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int n = (int)(shapes[s].x * shapes[s].y * shapes[s].z);
        if (n >= smallest) fn(shapes[s], n);
    }
}

/* The WT_MODE_WARPS test warps at width W: launch(d_modes, d_red, d_all) runs a kernel of
   WT_MODE_WARPS blocks of 32 threads in which lane l of block b makes the calls of mode
   d_modes[b] (wt_warp_calls) with input b * 32 + l, writing red + b * 32 + l and all + b * 32 + l.
   Per segment: no lane that did not call was written, the reduce result (in the segment's first
   lane) and every calling lane's allreduce result pass check over the calling lanes' positions,
   and the allreduce results all have the first lane's bits. */
template <typename T, typename Launch, typename Check, typename Same>
static void wt_run_warps(const char *what, int W, Launch launch, Check check, Same same)
{
    int modes[WT_MODE_WARPS];
    wt_warp_modes(modes);
    const size_t n = WT_MODE_WARPS * 32, bytes = n * sizeof(T);
    int *d_modes = (int *)wt_dev_alloc(sizeof modes);
    T *d_red = (T *)wt_dev_alloc(bytes), *d_all = (T *)wt_dev_alloc(bytes);
    T *red = (T *)wt_host_alloc(bytes), *all = (T *)wt_host_alloc(bytes);
    wt_to_dev(d_modes, modes, sizeof modes);
    launch((const int *)d_modes, d_red, d_all);
    WT_LAUNCHED();
    wt_to_host(red, d_red, bytes);
    wt_to_host(all, d_all, bytes);
    for (int b = 0; b < WT_MODE_WARPS; b++)
        for (int seg = 0; seg < 32; seg += W) {
            int pos[32], stray;
            const int k = wt_segment_callers(modes[b], W, b, seg, red, all, pos, &stray);
            if (stray >= 0)
                fail_msg("%s, width %d, warp mode %d: lane %d did not call but its output was written", what, W,
                         modes[b], stray);
            if (k == 0) continue;
            char why[500];
            if (!check(pos, k, red[pos[0]], why, sizeof why))
                fail_msg("%s, width %d, warp mode %d, reduce of the segment at lane %d (%d lanes): %s", what, W,
                         modes[b], seg, k, why);
            for (int j = 0; j < k; j++) {
                if (!same(all[pos[j]], all[pos[0]]))
                    fail_msg("%s, width %d, warp mode %d, allreduce: lane %d's bits differ from those of lane %d, the "
                             "segment's first",
                             what, W, modes[b], pos[j] % 32, seg);
                if (!check(pos, k, all[pos[j]], why, sizeof why))
                    fail_msg("%s, width %d, warp mode %d, allreduce lane %d of the segment at lane %d (%d lanes): %s",
                             what, W, modes[b], pos[j] % 32, seg, k, why);
            }
        }
    wt_dev_free(d_modes);
    wt_dev_free(d_red);
    wt_dev_free(d_all);
    wt_host_free(red);
    wt_host_free(all);
}

/* `blocks` blocks of `shape`: launch(d_red, d_all) runs a kernel in which thread tid (linear) of
   block b writes its allreduce result to all[b * nthreads + tid] and thread 0 its reduce result to
   red[b] (wt_block_calls does). Per block, the values of its first `counted` threads count: the
   reduce result and thread 0's allreduce result pass check over those positions, and every
   thread's allreduce result has thread 0's bits (checking each against the reference would cost
   O(n^2) on the host; equal bits pass the same check). */
template <typename T, typename Launch, typename Check, typename Same>
static void wt_run_blocks(const char *what, dim3 shape, int blocks, int counted, Launch launch, Check check, Same same)
{
    const int nthreads = (int)(shape.x * shape.y * shape.z);
    const size_t n = (size_t)blocks * nthreads;
    T *d_red = (T *)wt_dev_alloc(blocks * sizeof(T)), *d_all = (T *)wt_dev_alloc(n * sizeof(T));
    T *red = (T *)wt_host_alloc(blocks * sizeof(T)), *all = (T *)wt_host_alloc(n * sizeof(T));
    int *pos = (int *)wt_host_alloc(counted * sizeof(int));
    launch(d_red, d_all);
    WT_LAUNCHED();
    wt_to_host(red, d_red, blocks * sizeof(T));
    wt_to_host(all, d_all, n * sizeof(T));
    for (int b = 0; b < blocks; b++) {
        for (int t = 0; t < counted; t++) pos[t] = b * nthreads + t;
        const T *ball = all + (size_t)b * nthreads;
        char why[500];
        if (!check(pos, counted, red[b], why, sizeof why))
            fail_msg("%s, block (%u,%u,%u) #%d, first %d values, reduce: %s", what, shape.x, shape.y, shape.z, b,
                     counted, why);
        if (!check(pos, counted, ball[0], why, sizeof why))
            fail_msg("%s, block (%u,%u,%u) #%d, first %d values, allreduce thread 0: %s", what, shape.x, shape.y,
                     shape.z, b, counted, why);
        for (int t = 1; t < nthreads; t++)
            if (!same(ball[t], ball[0]))
                fail_msg("%s, block (%u,%u,%u) #%d, allreduce: thread %d's bits differ from thread 0's", what, shape.x,
                         shape.y, shape.z, b, t);
    }
    wt_dev_free(d_red);
    wt_dev_free(d_all);
    wt_host_free(red);
    wt_host_free(all);
    wt_host_free(pos);
}

/* One grid of `blocks` blocks, launched `repeats` times on one scratch (no reset in between; the
   caller's scratch, or NULL: one made for this call): launch(scratch, d_out) runs a kernel whose
   warpred_grid_reduce writes *d_out (poisoned before each launch). Every result must pass check
   (the result of all the grid's inputs) and have the first result's bits; no launch may report an
   overflow. `what` names the grid's shape. Returns the last result. */
template <typename T, typename Launch, typename Check, typename Same>
static T wt_run_grid(const char *what, int blocks, int repeats, warpred_grid_scratch *scratch, Launch launch,
                     Check check, Same same)
{
    warpred_grid_scratch *own = scratch ? NULL : wt_grid_scratch((unsigned)blocks, sizeof(T));
    if (own) scratch = own;
    T *d_out = (T *)wt_dev_alloc(sizeof(T)), got, first;
    memset((void *)&got, 0, sizeof got);
    memset((void *)&first, 0, sizeof first);
    for (int r = 0; r < repeats; r++) {
        wt_poison(d_out, sizeof(T));
        launch(*scratch, d_out);
        WT_LAUNCHED();
        wt_grid_scratch_ok(scratch, what);
        wt_to_host(&got, d_out, sizeof(T));
        char why[500];
        if (!check(got, why, sizeof why)) fail_msg("%s, launch %d: %s", what, r, why);
        if (r == 0) first = got;
        else if (!same(got, first))
            fail_msg("%s: launch %d's bits differ from launch 0's (not deterministic)", what, r);
    }
    if (own) wt_grid_scratch_free(own);
    wt_dev_free(d_out);
    return got;
}

#endif /* WT_KERNELS_H */
