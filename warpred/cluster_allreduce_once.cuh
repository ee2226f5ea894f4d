/* warpred/cluster_allreduce_once.cuh - a cluster's one allreduce in a kernel, with no cluster barrier
   after it (sm_90+).      MIT licensed.

   warpred_cluster_allreduce (cluster_reduce.cuh) may be called any number of times, so each call
   ends with a cluster barrier that every block of the cluster waits on. A kernel that reduces
   once per cluster (a row per cluster: softmax, norms, a loss) need not pay for it. Here every
   block sends its total into the shared memory of every block of the cluster (st.async, which
   completes an mbarrier of the receiving block), and each block folds the totals it received as
   soon as the last one lands: one-way latency instead of two cluster barriers.

     warpred_cluster_allreduce_once_begin()
             every thread of the cluster, early in the kernel (at its start, before the loads:
             its cluster barrier is then waited on only at the reduction)
     warpred_cluster_allreduce_once<BlockThreads>(v, op)
             the cluster's result in every thread of every block, bitwise the same as
             warpred_cluster_allreduce<BlockThreads>(v, op) gives

   USAGE
       #include <warpred/cluster_allreduce_once.cuh>

       // every element of a row divided by the row's sum; a row per cluster of 4 blocks of 256
       __global__ void divide_by_row_sum(float *x, int cols)
       {
       #if WARPRED_HAS_CLUSTERS                   // a build that also makes sm_75/80 code
           warpred_cluster_allreduce_once_begin();
           const int row = blockIdx.x / 4, rank = blockIdx.x % 4;
           float s = 0.0f;
           for (int c = rank * 256 + threadIdx.x; c < cols; c += 4 * 256) s += x[(size_t)row * cols + c];
           const float total = warpred_cluster_allreduce_once<256>(s, warpred_op_sum());
           for (int c = rank * 256 + threadIdx.x; c < cols; c += 4 * 256) x[(size_t)row * cols + c] /= total;
       #endif
       }
       // launched as cluster_reduce.cuh's launch_per_row: rows of {1, 2, ..., 3000} ->
       // {1 / 4501500, ..., 3000 / 4501500}

   (This snippet is compiled and checked in tests/test_cluster_reduce.cu.)

   WHICH TO CALL
     one reduction per kernel, every block taking part      warpred_cluster_allreduce_once
     a loop of reductions with loads in flight              a cluster reducer (cluster_reducer.cuh)
     several reductions, a loop, or the result in one block warpred_cluster_reduce / _allreduce
   Measured on an H200 in copies of the row samples' kernels that hold a row in a cluster's
   registers (softmax, LayerNorm, RMSNorm; clusters of 1 to 16 blocks): less time than with
   warpred_cluster_allreduce at every length tried (CHANGELOG has the figures).

   CLUSTER SHAPES  those of cluster_reduce.cuh: 1D, 2D and 3D clusters, blocks of any shape of 1
   to 1024 threads, and launches without a cluster size (each block a cluster of one).

   ORDER  that of cluster_reduce.cuh (its ORDER): the same block totals, folded in the same
   order; the same bits on every run and in every thread.

   OPERATIONS AND VALUES  those of cluster_reduce.cuh: any operation over any value. A value
   travels as 4-byte words (its size rounded up to 4 bytes).

   PRECONDITIONS
     - Every thread of every block of the cluster calls warpred_cluster_allreduce_once_begin()
       once, then warpred_cluster_allreduce_once(v, op) once, with the same op, from code that
       all of them reach; no block of the cluster has exited before it. At most one call of each
       per kernel launch (the mailbox is used once: a second call would wait forever or read
       the first call's totals; checked with assert, which does not catch a second begin).
       For more calls use cluster_reduce.cuh; its calls may come before begin or after the
       once call, not between them. No cluster reducer (cluster_reducer.cuh) in the same kernel:
       both arrive on the cluster barrier.
     - At most WARPRED_CLUSTER_ONCE_MAX_BLOCKS (16, the largest cluster sm_90 allows) blocks a
       cluster (assert).
     - BlockThreads, when not 0, equals the block size (assert), as for warpred_block_reduce.

   SHARED MEMORY  16 bytes (an mbarrier and a flag), plus 17 slots of the value's size
   (rounded up to 4 bytes) per value type, static __shared__: you declare nothing. The block
   reduction's own (block_reduce.cuh).

   COST  begin: thread 0 initializes the mbarrier, every thread arrives on a cluster barrier
   (relaxed). The call: the block reduction (two __syncthreads() for blocks of more than 32
   threads), the wait on begin's cluster barrier (long passed when begin came first in the
   kernel), then thread 0 sends the block's total to every block of the cluster (one st.async
   per 4-byte word and block); every thread waits on its block's mbarrier; each warp folds the C
   totals with one shuffle tree (blocks whose size is not a multiple of 32: the first warp
   folds, and a __syncthreads() hands the result to the others). A cluster of one block (or a
   launch without clusters) sends nothing: its total, through shared memory and a
   __syncthreads(). No cluster barrier after: a
   block leaves only once every total sent to it has landed, and a block sends only to blocks
   that are still waiting for it.

   OLDER ARCHS  as cluster_reduce.cuh: a call compiled for sm_75 or sm_80 stops the build with
   one error; put the calls under #if WARPRED_HAS_CLUSTERS in a build for several archs.

   This header needs cluster_reduce.cuh, block_reduce.cuh, warp_reduce.cuh, ops.cuh and its base
   beside it (README: Copying a header).
*/
#ifndef WARPRED_CLUSTER_ALLREDUCE_ONCE_CUH
#define WARPRED_CLUSTER_ALLREDUCE_ONCE_CUH

#include "cluster_reduce.cuh"
#ifndef __CUDACC_RTC__
#    include <string.h> /* memcpy, which NVRTC has built in */
#endif

/* The largest cluster sm_90 allows (16, non-portable). Not a setting: the fold's order equals
   cluster_reduce.cuh's only while the totals fit the lanes of one warp's shuffle-down tree. */
#define WARPRED_CLUSTER_ONCE_MAX_BLOCKS 16
static_assert(WARPRED_CLUSTER_ONCE_MAX_BLOCKS < 32, "warpred: the once fold's order needs fewer than 32 blocks");

/* A value's size in the 4-byte words it travels as (the once form's and cluster_reducer.cuh's
   slots; every arch, for the sizes of the reducer's shared memory). */
template <typename T> struct warpred__once_words {
    enum { value = (int)((sizeof(T) + 3) / 4) };
};

#if WARPRED_HAS_CLUSTERS

/* The mailbox's mbarrier and a use flag (begun: 1; used: 2), one per kernel. */
struct warpred__once_box {
    unsigned long long barrier;
    int state;
};
__device__ __forceinline__ warpred__once_box &warpred__once_box_of(void)
{
    __shared__ warpred__once_box box;
    return box;
}

/* The slots of one value type, as 4-byte words: block r's total in slot r; slot
   WARPRED_CLUSTER_ONCE_MAX_BLOCKS holds the result for a block with a partial warp. */
template <typename T> __device__ __forceinline__ unsigned *warpred__once_slots(void)
{
    __shared__ alignas(16) unsigned slots[(WARPRED_CLUSTER_ONCE_MAX_BLOCKS + 1) * warpred__once_words<T>::value];
    return slots;
}

__device__ __forceinline__ unsigned warpred__shared_address(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* The same shared-memory address in the block of `rank`, as a shared::cluster address. */
__device__ __forceinline__ unsigned warpred__cluster_address(unsigned address, unsigned rank)
{
    unsigned remote;
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(address), "r"(rank));
    return remote;
}

/* This block's total into slot `rank` of the block of rank `to`, completing `to`'s mbarrier. */
template <typename T> __device__ __forceinline__ void warpred__once_send(const T &total, unsigned rank, unsigned to)
{
    enum { W = warpred__once_words<T>::value };
    unsigned words[W];
    words[W - 1] = 0; /* a size that is not a multiple of 4: the last word's rest is 0 */
    memcpy(words, &total, sizeof(T));
    const unsigned slot = warpred__cluster_address(warpred__shared_address(warpred__once_slots<T>() + rank * W), to);
    const unsigned bar = warpred__cluster_address(warpred__shared_address(&warpred__once_box_of().barrier), to);
#    pragma unroll
    for (int w = 0; w < W; w++)
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(slot + 4 * w),
                     "r"(words[w]), "r"(bar)
                     : "memory");
}

/* Waits until every block's total has landed in this block (phase 0 of the mbarrier). */
__device__ __forceinline__ void warpred__once_wait(void)
{
    const unsigned bar = warpred__shared_address(&warpred__once_box_of().barrier);
    unsigned done;
    do {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(bar)
                     : "memory");
    } while (!done);
}

template <typename T> __device__ __forceinline__ T warpred__once_slot(unsigned r)
{
    T v;
    memcpy(&v, warpred__once_slots<T>() + r * warpred__once_words<T>::value, sizeof(T));
    return v;
}

/* The n totals received, folded in cluster_reduce.cuh's ORDER by `lanes` lanes of one warp (its
   fold: warpred__cluster_fold_totals); result in every calling lane. */
template <int BlockThreads, typename T, typename Op>
__device__ __forceinline__ T warpred__once_fold(T v, Op op, int lane, int lanes, unsigned n)
{
    const auto total = [](unsigned r) { return warpred__once_slot<T>(r); };
    return warpred__cluster_fold_totals<true, BlockThreads>(total, v, lane, lanes, n, op);
}

template <int BlockThreads, typename T, typename Op> __device__ __forceinline__ T warpred__once_allreduce(T v, Op op)
{
    enum { W = warpred__once_words<T>::value };
    warpred__once_box &box = warpred__once_box_of();
    const int tid = warpred__block_thread_rank();
    const int nthreads = warpred__block_size<BlockThreads>();
    const unsigned n = warpred__cluster_blocks();
    WARPRED_ASSERT(n <= WARPRED_CLUSTER_ONCE_MAX_BLOCKS);
    v = warpred__block_reduce_prefix<false, BlockThreads>(v, op, nthreads, nthreads);
    asm volatile("barrier.cluster.wait.acquire;" ::: "memory"); /* every block has begun */
    unsigned *cell = warpred__once_slots<T>() + WARPRED_CLUSTER_ONCE_MAX_BLOCKS * W;
    if (tid == 0) {
        WARPRED_ASSERT(box.state == 1); /* begun, and not used yet: thread 0 set it */
        box.state = 2;
    }
    if (n == 1) {
        /* no st.async in a cluster of one block (a launch without clusters stops there with an
           illegal instruction on an H200, and memcheck reports "Cluster needs to have at least
           2 blocks" for a cluster of one): the block's total is the result */
        if (tid == 0) memcpy(cell, &v, sizeof(T));
        __syncthreads();
        return warpred__once_slot<T>(WARPRED_CLUSTER_ONCE_MAX_BLOCKS);
    }
    const int lanes = nthreads < 32 ? nthreads : 32;
    if (tid == 0) {
        /* one thread sends to every block: sent from lanes in parallel, the total's shuffle and
           the loop took registers that spilled in the row samples' bfloat16 LayerNorm */
        const unsigned rank = warpred__cluster_rank();
        for (unsigned to = 0; to < n; to++) warpred__once_send(v, rank, to);
        asm volatile("{\n\t.reg .b64 state;\n\t"
                     "mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n\t}" ::"r"(
                         warpred__shared_address(&box.barrier)),
                     "r"(n * W * 4u)
                     : "memory");
    }
    warpred__once_wait();
    if (nthreads < 32 || nthreads % 32 == 0) /* whole warps: each folds for itself */
        return warpred__once_fold<BlockThreads>(v, op, tid % 32, lanes, n);
    /* a partial last warp: the first warp folds for the block */
    if (tid < 32) {
        v = warpred__once_fold<BlockThreads>(v, op, tid, 32, n);
        if (tid == 0) memcpy(cell, &v, sizeof(T));
    }
    __syncthreads();
    return warpred__once_slot<T>(WARPRED_CLUSTER_ONCE_MAX_BLOCKS);
}

#endif /* WARPRED_HAS_CLUSTERS */

/* ---- public API ---- */

/* Readies this block's mailbox and tells the cluster; every thread of the cluster, once, before
   warpred_cluster_allreduce_once. (A template only so that the older archs' error comes where it
   is called.) */
template <int Unused = 0> __device__ __forceinline__ void warpred_cluster_allreduce_once_begin(void)
{
#if WARPRED_HAS_CLUSTERS
    if (warpred__block_thread_rank() == 0) {
        warpred__once_box &box = warpred__once_box_of();
        box.state = 1;
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(warpred__shared_address(&box.barrier)) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
#else
    (void)warpred__cluster_needs_sm90<Unused>::value;
#endif
}

/* The cluster's result in every thread of the cluster; every thread calls, once per kernel,
   after warpred_cluster_allreduce_once_begin(). */
template <int BlockThreads = 0, typename T, typename Op>
__device__ __forceinline__ T warpred_cluster_allreduce_once(T v, Op op)
{
#if WARPRED_HAS_CLUSTERS
    if constexpr (!warpred__value_ok<T>()) return v;
    else
        return warpred__once_allreduce<BlockThreads>(v, op);
#else
    (void)op;
    return warpred__cluster_needs_sm90<0 * (int)sizeof(T)>::value ? v : v;
#endif
}

#endif /* WARPRED_CLUSTER_ALLREDUCE_ONCE_CUH */
