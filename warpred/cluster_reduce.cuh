/* warpred/cluster_reduce.cuh - reductions over a thread-block cluster (sm_90+).      MIT licensed.

   A thread-block cluster (sm_90 and newer) is a group of blocks of one launch (up to 8; 16
   with a non-portable size) that run at the same time and can read each other's shared memory
   (distributed shared memory). Every thread of every block of the cluster passes one value; the
   cluster combines them into one result, with no global memory, no atomics and no second
   kernel:

     warpred_cluster_reduce(v, op)      result in thread 0 (threadIdx 0,0,0) of the cluster's
                                        block of rank 0; other threads get an unspecified value
     warpred_cluster_allreduce(v, op)   result in every thread of every block of the cluster,
                                        bitwise the same everywhere

   Each takes an optional first template argument, the block size when it is known at compile
   time, exactly as warpred_block_reduce does: warpred_cluster_reduce<256>(v, op) (checked with
   assert); without it (the default, 0) the size is read from blockDim. Both give the same bits.

     WARPRED_HAS_CLUSTERS   1 where the calls compile: nvcc's host pass and device code for
                            sm_90 and newer; 0 in device code for sm_75 and sm_80 (OLDER ARCHS)

   USAGE
       #include <warpred/cluster_reduce.cuh>

       // a row per cluster of 4 blocks of 256 threads (clusters along x: a block's rank in its
       // cluster is blockIdx.x % 4)
       __global__ void row_sums(const float *x, int cols, float *out)
       {
       #if WARPRED_HAS_CLUSTERS                                // a build that also makes sm_75/80 code
           const int row = blockIdx.x / 4, rank = blockIdx.x % 4;
           float s = 0.0f;
           for (int c = rank * 256 + threadIdx.x; c < cols; c += 4 * 256) s += x[(size_t)row * cols + c];
           s = warpred_cluster_reduce<256>(s, warpred_op_sum());
           if (rank == 0 && threadIdx.x == 0) out[row] = s;
       #endif
       }

       // every element of a row divided by the row's Euclidean norm, which every thread gets
       __global__ void normalize_rows(float *x, int cols)
       {
       #if WARPRED_HAS_CLUSTERS
           const int row = blockIdx.x / 4, rank = blockIdx.x % 4;
           float ss = 0.0f;
           for (int c = rank * 256 + threadIdx.x; c < cols; c += 4 * 256)
               ss += x[(size_t)row * cols + c] * x[(size_t)row * cols + c];
           const float norm = sqrtf(warpred_cluster_allreduce<256>(ss, warpred_op_sum()));
           for (int c = rank * 256 + threadIdx.x; c < cols; c += 4 * 256) x[(size_t)row * cols + c] /= norm;
       #endif
       }

       // host: one cluster of 4 blocks of 256 threads per row
       template <typename... Params, typename... Args>
       static cudaError_t launch_per_row(void (*kernel)(Params...), int rows, Args... args)
       {
           cudaLaunchAttribute cluster = {};
           cluster.id = cudaLaunchAttributeClusterDimension;
           cluster.val.clusterDim.x = 4;
           cluster.val.clusterDim.y = 1;
           cluster.val.clusterDim.z = 1;
           cudaLaunchConfig_t config = {};
           config.gridDim = dim3(4 * rows);
           config.blockDim = dim3(256);
           config.attrs = &cluster;
           config.numAttrs = 1;
           return cudaLaunchKernelEx(&config, kernel, args...);
       }
       // rows of {1, 2, ..., 3000}: launch_per_row(row_sums, rows, x, 3000, out) -> 4501500 in
       // every out[row]; rows of {3, 4, 0, 0, ...}: launch_per_row(normalize_rows, rows, x, cols)
       // -> {0.6, 0.8, 0, 0, ...}

   (Both snippets are compiled and checked in tests/test_cluster_reduce.cu.)

   OPERATIONS AND VALUES  exactly those of block_reduce.cuh: any operation (ops.cuh, op_*.cuh,
   yours: operation.cuh) over any value (value.cuh: scalars, vector types, argmin/argmax
   pairs, tuples, Welford, your structs). See ops.cuh for the NaN and -0 rules.

   CLUSTER SHAPES  1D, 2D and 3D clusters of any size the launch accepts, blocks of any shape
   of 1 to 1024 threads (block_reduce.cuh, BLOCK SHAPES). A block's rank is its place in its
   cluster, x + y * Cx + z * Cx * Cy (PTX %cluster_ctarank, cooperative groups'
   this_cluster().block_rank()). A kernel launched without a cluster size is a cluster of one
   block per block: the result is that block's.

   ORDER  fixed by the block and cluster shapes: the same inputs in the same threads give a
   bitwise-identical result on every run, with or without the compile-time size, for reduce
   and allreduce alike. With t_r the total of the block of rank r, reduced in the ORDER of
   warpred_block_reduce (block_reduce.cuh; the reduce's order also where the block has exactly
   32 threads), C blocks in the cluster and P = min(block size, 32):
     - lane L < P of the first warp of the folding block holds t_L, and, only when C > P (blocks
       of fewer threads than the cluster has blocks), t_L op t_(L+P) op t_(L+2P) ... left to
       right;
     - those min(C, P) lane values go through warp_reduce.cuh's shuffle-down tree (rising
       offsets; lanes past the last holding a value drop out, as in _partial). For C <= P:
       ((t_0 t_1) (t_2 t_3)) ((t_4 t_5) (t_6 t_7)) ..., as a block of C threads reduces C values;
       C = 3: (t_0 t_1) t_2; C = 1: t_0.
   The folding block is rank 0 (reduce) or every block (allreduce: the same values in the same
   order, hence the same bits everywhere). tests/test_cluster_reduce.cu checks float sums
   against this order to the bit.

   OLDER ARCHS  Clusters need sm_90. Device code compiled for sm_75 or sm_80 that calls either
   function stops the build with one error (a static_assert saying what to do); merely
   including the header compiles everywhere. A build with code for several archs (-gencode for
   75, 80 and 90, as this repository's default build) keeps the kernel in every arch's code
   (CUDA wants the same kernels in each) and puts the call under #if WARPRED_HAS_CLUSTERS, as
   in USAGE; its host code launches those kernels only on a device of compute capability 9.0
   or newer (cudaFuncGetAttributes: binaryVersion >= 90 when the GPU runs the sm_90 code).
   Under NVRTC compile for compute_90 or newer.

   PRECONDITIONS
     - Every thread of every block of the cluster calls, from code that all of them reach (the
       call contains __syncthreads() and cluster barriers, which follow the same rules), with
       the same op; no block of the cluster has exited.
     - BlockThreads, when not 0, equals the block size (assert), as for warpred_block_reduce.
     - Every thread's value counts: there are no _valid forms. Threads without a value pass
       the operation's identity (Op::identity<T>(), operation.cuh).

   SHARED MEMORY AND BACK-TO-BACK CALLS  the block reduction's (block_reduce.cuh, SHARED
   MEMORY), plus a static __shared__ array of two values per value type (the block's total and,
   for allreduce, the cluster's result); you declare nothing. Calls may follow each other
   directly or sit in a loop, and the kernel may end right after one, with no barrier of yours:
   each call ends with a cluster barrier that every block passes only after the cluster's
   last read of other blocks' shared memory in that call, so no block stores the next call's
   total into a cell that is still being read, and none exits (freeing its shared memory)
   while another block may still read it.

   COST  Per call, reduce and allreduce alike: the block reduction (block_reduce.cuh, COST: two
   __syncthreads() for blocks of more than 32 threads), one shared store of the block's total by
   thread 0, and two cluster barriers (barrier.cluster.arrive.release +
   barrier.cluster.wait.acquire, every thread of the cluster). Between the barriers the first
   warp of the folding block (reduce: rank 0; allreduce: every block, C * C loads in the
   cluster) loads the C totals through distributed shared memory, one per lane, all in flight
   together, and runs one shuffle tree (log2 C steps); allreduce: thread 0 stores the result in
   its block's shared memory and every thread loads it after the second barrier. No global
   memory, no atomics. Not measured yet.

   CONFIGURATION  those of block_reduce.cuh (WARPRED_BLOCK_MAX_THREADS) and config.cuh.

   FOR THE LAYER ABOVE
     warpred__cluster_fold<Broadcast, BlockThreads>(v, op)  the whole call: every thread of
         the cluster calls; result in thread 0 of rank 0 (Broadcast: everywhere); sm_90+ only
         (code under #if WARPRED_HAS_CLUSTERS)
     warpred__cluster_rank(), warpred__cluster_blocks()  this block's rank and the number of
         blocks in its cluster
     warpred__cluster_barrier()  arrive (release) and wait (acquire) of every thread of the
         cluster

   This header needs block_reduce.cuh, warp_reduce.cuh, ops.cuh and its base beside it
   (README: Copying a header).
*/
#ifndef WARPRED_CLUSTER_REDUCE_CUH
#define WARPRED_CLUSTER_REDUCE_CUH

#include "block_reduce.cuh"

/* 0 in device code for an arch without clusters. WARPRED__CLUSTER_TEST_OLD_ARCH (private, for
   tests/compile_fail only) makes an sm_90 device pass take the older archs' path, so that the
   error they give can be checked in a build for sm_90 alone. */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 900 || defined(WARPRED__CLUSTER_TEST_OLD_ARCH))
#    define WARPRED_HAS_CLUSTERS 0
#else
#    define WARPRED_HAS_CLUSTERS 1
#endif

/* The one message for a call compiled for an arch without clusters. Instantiated as <0> by
   every call, whatever its types, so that the message is printed once. */
template <int Never> struct warpred__cluster_needs_sm90 {
    static_assert(Never != 0,
                  "warpred: warpred_cluster_reduce, _allreduce, _allreduce_once and WARPRED_CLUSTER_REDUCER need "
                  "thread-block clusters (sm_90 or newer), and this device code is being compiled for an older "
                  "arch. Compile the kernel for sm_90+ only, or keep the call out of the older archs' code with "
                  "#if WARPRED_HAS_CLUSTERS (see warpred/cluster_reduce.cuh, OLDER ARCHS)");
    enum { value = Never };
};

#if WARPRED_HAS_CLUSTERS

/* This block's rank in its cluster, and the cluster's number of blocks. */
__device__ __forceinline__ unsigned warpred__cluster_rank(void)
{
    unsigned rank;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    return rank;
}

__device__ __forceinline__ unsigned warpred__cluster_blocks(void)
{
    unsigned n;
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
    return n;
}

/* Every thread of the cluster arrives (release: its earlier loads and stores, shared memory of
   any block included, are ordered before) and waits (acquire) for all the others. The forms
   without .aligned: correct however the compiler has arranged the warp's convergence here. */
__device__ __forceinline__ void warpred__cluster_barrier(void)
{
    asm volatile("barrier.cluster.arrive.release;\n\t"
                 "barrier.cluster.wait.acquire;" ::
                     : "memory");
}

/* The address of *p (this block's shared memory) in the shared memory of the block of `rank`
   in the cluster, as a generic address: plain loads read it. */
template <typename T> __device__ __forceinline__ const T *warpred__cluster_map(const T *p, unsigned rank)
{
    unsigned long long remote;
    asm("mapa.u64 %0, %1, %2;" : "=l"(remote) : "l"(p), "r"(rank));
    return reinterpret_cast<const T *>(remote);
}

/* Cell 0: this block's total; cell 1: the cluster's result, for allreduce. Raw storage, so that
   types with constructors (__half) can live in a static __shared__ array. */
template <typename T> __device__ __forceinline__ T *warpred__cluster_cells(void)
{
    __shared__ alignas(T) unsigned char raw[2 * sizeof(T)];
    return reinterpret_cast<T *>(raw);
}

/* Copied member by member, as the other layers move compound values (their padding is never
   read: it was never written). */
struct warpred__copy_members {
    template <typename M> __device__ __forceinline__ void operator()(M &to, const M &from) const
    {
        if constexpr (warpred__is_scalar<M>::value) to = from;
        else
            warpred__each_member_pair(to, from, *this);
    }
};

/* cell 0 of the block of `rank` */
template <typename T> __device__ __forceinline__ T warpred__cluster_total(const T *cell, unsigned rank)
{
    const T *p = warpred__cluster_map(cell, rank);
    T r;
    const warpred__copy_members copy = {};
    copy(r, *p);
    return r;
}

/* The totals of the n blocks of the cluster (total(r): block r's), reduced by the first `lanes`
   threads of a warp (lanes = min(block size, 32); each calls with its index `lane` and any v):
   lane L loads total L (and, when n > lanes, folds in totals L + lanes, L + 2 lanes, ... left to
   right), every load of the warp in flight at once, then the block layer's tree over one warp
   (its entry point for the first warp alone) combines the min(n, lanes) lane values. Result in
   lane 0 (Broadcast: in every calling lane). The one fold of this layer's ORDER: the calls here
   read the totals in other blocks' shared memory, cluster_allreduce_once.cuh's the totals sent
   into its own. */
template <bool Broadcast, int BlockThreads, typename T, typename Total, typename Op>
__device__ __forceinline__ T warpred__cluster_fold_totals(Total total, T v, int lane, int lanes, unsigned n, Op op)
{
    const int holders = n < (unsigned)lanes ? (int)n : lanes;
    if (lane < holders) {
        v = total((unsigned)lane);
        for (unsigned r = (unsigned)(lane + lanes); r < n; r += (unsigned)lanes) v = op(v, total(r));
    }
    __builtin_assume(lanes <= 32); /* one warp: no code for whole blocks here */
    return warpred__block_reduce_prefix<Broadcast, BlockThreads>(v, op, lanes, holders);
}

/* The entry point of a layer above: every thread of every block of the cluster calls. Each
   block reduces (result in its thread 0), and thread 0 stores the total in cell 0 of its block.
   Barrier 1 publishes the totals (and tells that every block of the cluster is running, as
   distributed shared memory needs before it is read). The first warp of the folding block(s)
   reads every block's cell 0 and reduces them (shuffles only). Barrier 2 comes after those
   reads: the next call stores into cell 0 only after its own thread 0 has passed this one's
   barrier 2, so after every read of this call, and a block leaves only after it. Allreduce:
   thread 0 stores the result in cell 1, which every thread of its block reads after barrier 2;
   the next call's store to cell 1 comes after its barrier 1, which each thread reaches after
   that read. */
template <bool Broadcast, int BlockThreads, typename T, typename Op>
__device__ __forceinline__ T warpred__cluster_fold(T v, Op op)
{
    T *cells = warpred__cluster_cells<T>();
    const int tid = warpred__block_thread_rank();
    const int nthreads = warpred__block_size<BlockThreads>();
    v = warpred__block_reduce_prefix<false, BlockThreads>(v, op, nthreads, nthreads);
    if (tid == 0) cells[0] = v;
    warpred__cluster_barrier();
    const int lanes = nthreads < 32 ? nthreads : 32;
    if (tid < lanes && (Broadcast || warpred__cluster_rank() == 0)) {
        const auto total = [cells](unsigned r) { return warpred__cluster_total(cells, r); };
        v = warpred__cluster_fold_totals<false, BlockThreads>(total, v, tid, lanes, warpred__cluster_blocks(), op);
        if (Broadcast && tid == 0) cells[1] = v;
    }
    warpred__cluster_barrier();
    if (Broadcast) v = cells[1];
    return v;
}

#endif /* WARPRED_HAS_CLUSTERS */

/* ---- public API ---- */

/* The cluster's result in thread 0 of its block of rank 0; every thread of the cluster calls. */
template <int BlockThreads = 0, typename T, typename Op> __device__ __forceinline__ T warpred_cluster_reduce(T v, Op op)
{
#if WARPRED_HAS_CLUSTERS
    if constexpr (!warpred__value_ok<T>()) return v;
    else
        return warpred__cluster_fold<false, BlockThreads>(v, op);
#else
    (void)op;
    return warpred__cluster_needs_sm90<0 * (int)sizeof(T)>::value ? v : v;
#endif
}

/* The cluster's result in every thread of the cluster; every thread of the cluster calls. */
template <int BlockThreads = 0, typename T, typename Op>
__device__ __forceinline__ T warpred_cluster_allreduce(T v, Op op)
{
#if WARPRED_HAS_CLUSTERS
    if constexpr (!warpred__value_ok<T>()) return v;
    else
        return warpred__cluster_fold<true, BlockThreads>(v, op);
#else
    (void)op;
    return warpred__cluster_needs_sm90<0 * (int)sizeof(T)>::value ? v : v;
#endif
}

#endif /* WARPRED_CLUSTER_REDUCE_CUH */
