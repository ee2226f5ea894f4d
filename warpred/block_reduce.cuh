/* warpred/block_reduce.cuh - block-level reductions for CUDA.      MIT licensed, see LICENSE.

   Every thread of a block passes one value; the block combines them into one result.

     warpred_block_reduce(v, op)      result in thread 0 (threadIdx 0,0,0); other threads get
                                      an unspecified value
     warpred_block_allreduce(v, op)   result in every thread of the block

   and, when only the first n threads (linear index 0..n-1, 1 <= n <= block size) hold a
   value, as in the last block over an array, while every thread still calls:

     warpred_block_reduce_valid(v, op, n)     result in thread 0
     warpred_block_allreduce_valid(v, op, n)  result in every thread

   Each takes an optional first template argument, the block size when it is known at compile
   time: warpred_block_reduce<256>(v, op). It must equal blockDim.x * blockDim.y * blockDim.z
   (checked with assert). Without it (the default, 0) the size is read from blockDim at run
   time; the code then branches (uniformly) to code for 64, 128, 256, 512 and 1024 threads.
   Both give the same bits. With it the kernel's code is smaller, its shared memory fits
   the size (see SHARED MEMORY) and it may need fewer registers: a kernel holds the code for
   every size it may run at, its register count is that of its hungriest path, and for
   doubles and float/double min/max that count can cost resident blocks (check it with
   -Xptxas -v; __launch_bounds__ with a minimum of blocks per SM caps it).

   USAGE
       #include <warpred/block_reduce.cuh>

       __global__ void row_sums(const float *x, int cols, float *out)   // one block per row
       {
           float s = 0.0f;
           for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[blockIdx.x * cols + c];
           s = warpred_block_reduce(s, warpred_op_sum());
           if (threadIdx.x == 0) out[blockIdx.x] = s;
       }

       __global__ void demo(int *out)            // launched as demo<<<1, dim3(10, 7, 3)>>>
       {
           int t = threadIdx.x + 10 * (threadIdx.y + 7 * threadIdx.z);     // 0..209
           int total = warpred_block_allreduce(t, warpred_op_sum());        // 21945 everywhere
           int top = warpred_block_reduce(t, warpred_op_max());             // 209 in thread 0
           if (t == 0) { out[0] = total; out[1] = top; }
       }

   (Both snippets are compiled and checked in tests/test_block_reduce.cu.)

   OPERATIONS AND VALUES  exactly those of warp_reduce.cuh: any operation (ops.cuh, op_*.cuh,
   yours: operation.cuh) over any value (value.cuh). See ops.cuh for the NaN and -0 rules.

   BLOCK SHAPES  1D, 2D and 3D blocks of 1 to 1024 threads, any size (not only multiples of
   32). Threads are numbered x + y*Dx + z*Dx*Dy and cut into warps of 32 in that order, as
   CUDA does; the last warp may be partial and is reduced with warpred_warp_reduce_partial.

   ORDER  fixed by the block shape: the same inputs in the same threads give a bitwise-identical
   result on every run, with or without the compile-time size, for reduce and allreduce alike
   (it matters for float sums and for compound values whose operation rounds: Welford,
   softmax). With x[t] thread t's value, "tree" meaning warp_reduce.cuh's shuffle-down tree
   (rising offsets; lanes holding no value drop out, as in _partial):
     - Blocks of up to 32 threads: the tree over the threads, as warpred_warp_reduce_partial;
       except that _allreduce of exactly 32 threads is warpred_warp_allreduce's butterfly,
       whose float sums may differ from the tree's in the last bits.
     - Larger blocks, scalars: lane L of the first warp combines its column x[L], x[L + 32],
       x[L + 64], ... by the same tree (slot j holding x[L + 32 j]: ((x[L] x[L+32]) (x[L+64]
       x[L+96])) ...), then the tree over the 32 lane results.
     - Larger blocks, compound values (every struct: vector types, tuples, pairs, Welford, your
       types): the tree in each warp; then the warp results w0, w1, ... are combined
         by member-wise operations (operation.cuh: the built-in operations on vector types and
         structs, op_tuple.cuh, op_extrema.cuh): left to right, ((w0 w1) w2) ..., up to 16
         warps; the tree over them for 17 to 32 warps;
         by every other operation (argmin/argmax, Welford, softmax, the reproducible sum,
         yours): the tree over them.
       So a tuple's float-sum member may differ in the last bits from the same sum reduced
       alone (a scalar rakes); integer, min/max and bitwise members never do.
   tests/test_block_reduce.cu and tests/test_values.cu check these orders to the bit.

   PRECONDITIONS
     - Every thread of the block calls, from code that all of them reach (it contains
       __syncthreads()). Blocks of up to 32 threads only shuffle, but keep the rule anyway.
     - All threads pass the same op.

   SHARED MEMORY AND BACK-TO-BACK CALLS  static __shared__ arrays, one per value type (and
   compile-time size); you declare nothing. Scalars: one cell per thread, plus one:
   (N + 1) * sizeof(T), N the compile-time size or else WARPRED_BLOCK_MAX_THREADS (1024): 4100
   bytes for float and 8200 for double without a size, 1028 for float with <256>.
   Compound values: 33 * sizeof(T) (792 bytes for warpred_welford<double>). Calls may follow
   each other directly or sit in a loop with no __syncthreads() of yours in between: a call's
   stores into the cells come after every thread has passed a barrier that follows the
   previous call's last read of them.

   COST  Scalars (blocks of more than 32 threads): every thread stores its value and passes
   two __syncthreads() (the first a __syncthreads_or for float/double min/max, which also asks
   whether any value is a NaN or a zero). Warp 0 folds its columns (up to (N - 1) / 32 loads
   and operations per lane, all in flight at once; code for the exact size with a compile-time
   size, or a run-time size of 64, 128, 256, 512 or 1024; other run-time sizes, and _valid
   calls, take code for columns of up to 3, 7, 15 or 31 cells, whose loads are each guarded)
   and runs one shuffle tree (one redux.sync for int sums on sm_80+); the second barrier
   follows its column folds, so the other warps wait only for those, and warp 0's tree comes
   after it.
   _allreduce: the second barrier follows the result's store, which everyone then reads.
   Compound values: a shuffle tree in every warp, a barrier, the warp results folded by thread
   0 (up to 16) or by warp 0, a second barrier. Blocks of up to 32 threads only shuffle.
   Figures against cub::BlockReduce: docs/BENCHMARKS.md.

   CONFIGURATION  (define before including; the same in every file of a program)
     WARPRED_BLOCK_MAX_THREADS  the largest block (33..1024, default 1024) that calls without a
                                compile-time size: the scalar cells hold that many threads
                                (checked with assert). Lower it to save shared memory.
   and those of config.cuh (WARPRED_ASSERT, WARPRED_NO_REDUX, WARPRED_NO_NAN_MINMAX).

   FOR THE LAYER ABOVE  (grid_reduce.cuh calls only these)
     warpred__block_thread_rank(), warpred__block_size<BlockThreads>()   this thread's linear
         index and the block size (checked against BlockThreads when that is not 0)
     warpred__block_reduce_prefix<Broadcast, BlockThreads>(v, op, present, counted)  threads
         0..present-1 call (present: 1..32, the first warp alone, no barrier; or the block
         size), the values of threads 0..counted-1 count; result in thread 0 (Broadcast: in
         every calling thread), in the ORDER above for a block of `present` threads.

   This header needs warp_reduce.cuh, ops.cuh and its base beside it (README: Copying a header).
*/
#ifndef WARPRED_BLOCK_REDUCE_CUH
#define WARPRED_BLOCK_REDUCE_CUH

#include "warp_reduce.cuh"

#ifndef WARPRED_BLOCK_MAX_THREADS
#    define WARPRED_BLOCK_MAX_THREADS 1024
#endif
#if WARPRED_BLOCK_MAX_THREADS < 33 || WARPRED_BLOCK_MAX_THREADS > 1024
#    error "warpred: WARPRED_BLOCK_MAX_THREADS must be 33..1024"
#endif

/* ---- the block's shape (also used by the grid layer: part of this layer's entry points) ---- */

/* blockDim is a constant-bank load, threadIdx.y and .z are special-register reads (slow, and on
   the path to the first shared-memory store): a 1D block, the common case, reads threadIdx.x only. */
__device__ __forceinline__ int warpred__block_thread_rank(void)
{
    if (blockDim.y == 1 && blockDim.z == 1) return (int)threadIdx.x;
    return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}

/* The block size: BlockThreads when given at compile time (checked), else from blockDim. */
template <int BlockThreads> __device__ __forceinline__ int warpred__block_size(void)
{
    static_assert(BlockThreads >= 0 && BlockThreads <= 1024, "warpred: BlockThreads must be 0 (run time) or 1..1024");
    const int actual = (int)(blockDim.x * blockDim.y * blockDim.z);
    WARPRED_ASSERT(BlockThreads == 0 || BlockThreads == actual);
    return BlockThreads ? BlockThreads : actual;
}

/* One slot per warp plus one for the broadcast result. Raw storage, so that types with
   constructors (__half) can live in a static __shared__ array. */
template <typename T> __device__ __forceinline__ T *warpred__block_slots(void)
{
    __shared__ alignas(T) unsigned char raw[33 * sizeof(T)];
    return reinterpret_cast<T *>(raw);
}

/* slots[0] op slots[1] op ... op slots[count-1], left to right, count <= 16. Fully unrolled
   and predicated, so that all the loads are in flight together. */
template <typename T, typename Op> __device__ __forceinline__ T warpred__fold_in_order(const T *slots, Op op, int count)
{
    T v = slots[0];
#pragma unroll
    for (int i = 1; i < 16; i++)
        if (i < count) v = op(v, slots[i]);
    return v;
}

/* The values of threads 0..counted-1 of a block of nthreads (> 32) threads reduced, every
   thread calling. Stage 1 leaves one partial per warp that holds a counted value in slots[];
   after a barrier they are folded. Reduce: the result is in thread 0; a second barrier
   follows the last read of slots[]. Broadcast: the result goes to slots[32]; a second barrier,
   then everyone reads it. Either way every read of slots[0..31] precedes the second barrier,
   and the next call writes them only after it; slots[32] is written by the next call only
   after its first barrier, which each thread reaches only after reading slots[32] here. So
   calls may follow each other with no barrier of the caller's. */
template <bool Broadcast, typename T, typename Op>
__device__ __forceinline__ T warpred__block_fold(T v, Op op, T *slots, int nthreads, int counted)
{
    const int tid = warpred__block_thread_rank();
    if (counted == nthreads && nthreads % 32 == 0) { /* every warp full */
        v = warpred__warp_reduce_prefix<false>(v, op, 32, 32);
        if ((tid & 31) == 0) slots[tid >> 5] = v;
    } else {
        const int warp_first = tid & ~31;
        const int in_warp = counted - warp_first; /* counted values this warp holds, if positive */
        if (in_warp > 0) {
            const int present = nthreads - warp_first;
            v = warpred__warp_reduce_prefix<false>(v, op, present < 32 ? present : 32, in_warp < 32 ? in_warp : 32);
            if ((tid & 31) == 0) slots[tid >> 5] = v;
        }
    }
    __syncthreads();
    const int nwarps = (counted + 31) >> 5;
    /* Up to 16 partials of a member-wise operation (short, like its members' operations):
       thread 0 folds them in order, a chain of at most 15 operations with the shared-memory
       loads in flight together, which is shorter than five dependent shuffles. More, or other
       operations (whose steps are long): warp 0 shuffles. */
    const bool serial = warpred__member_wise<Op, T>::value && nwarps <= 16;
    const bool folds = serial ? tid == 0 : tid < nwarps;
    if (Broadcast) {
        if (folds) {
            v = serial ? warpred__fold_in_order(slots, op, nwarps)
                       : warpred__warp_reduce_prefix<false>(slots[tid], op, nwarps, nwarps);
            if (tid == 0) slots[32] = v;
        }
        __syncthreads();
        return slots[32];
    }
    if (serial) {
        if (folds) v = warpred__fold_in_order(slots, op, nwarps);
        __syncthreads();
        return v;
    }
    if (folds) v = slots[tid];
    __syncthreads();
    if (folds) v = warpred__warp_reduce_prefix<false>(v, op, nwarps, nwarps);
    return v;
}

/* ---- the raking fold: scalars ----
   Every thread stores its value in a cell of its own (warp 0's are never read: the store then
   needs no branch, which let the compiler keep the address arithmetic out of a caller's loop;
   int sums ran faster). After one barrier, lane L of warp 0 folds its own
   value with the cells of threads L + 32, L + 64, ... (a column: consecutive lanes read
   consecutive cells, no bank conflicts) by a pairwise tree, and warp 0's shuffle tree
   finishes. One warp shuffles instead of all of them. The second barrier follows warp 0's
   column folds: the other warps wait there only for those, and warp 0's tree runs after it
   while they return to the caller and may store their next values. _allreduce: the second
   barrier follows the result's store into the last cell. */

/* a cell per thread, then one for the broadcast result */
template <typename T, int Cells> __device__ __forceinline__ T *warpred__rake_cells(void)
{
    __shared__ alignas(T) unsigned char raw[(Cells + 1) * sizeof(T)];
    return reinterpret_cast<T *>(raw);
}

/* Plain: no input is a NaN or a zero (float/double min/max only), so the plain step is exact. */
template <bool Plain, typename T, typename Op> __device__ __forceinline__ T warpred__rake_step(Op op, T a, T b)
{
    if constexpr (Plain) return (void)op, warpred_op_warp<Op, T>::plain(a, b);
    else
        return op(a, b);
}

/* A column's slots: slot 0 is the lane's own value r, slot j >= 1 the cell column[32 (j - 1)]
   (thread L + 32 j's value); the first n are present. They fold as a pairwise tree over the 32
   slots, absent slots dropping out: each group of 8 as ((s0 s1)(s2 s3))((s4 s5)(s6 s7)), the
   groups as ((g0 g1)(g2 g3)). A tree, not a chain: the loads are in flight together and the
   longest chain of operations is 5, not 31 (a chain made 1024-thread blocks trail CUB). No slot
   after slot Last is present (known at compile time, so those slots cost nothing). */
template <int Last, bool Plain, typename T, typename Op>
__device__ __forceinline__ T warpred__column_group(T r, const T *column, int g, int n, Op op)
{
    T s[8];
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const int j = 8 * g + i;
        const bool present = j <= Last && j < n;
        s[i] = j == 0 ? r : present ? column[32 * (j - 1)] : r; /* absent slots are never read */
    }
    const int m = n - 8 * g;
#pragma unroll
    for (int d = 1; d < 8; d *= 2)
#pragma unroll
        for (int i = 0; i + d < 8; i += 2 * d)
            if (8 * g + i + d <= Last && i + d < m) s[i] = warpred__rake_step<Plain>(op, s[i], s[i + d]);
    return s[0];
}

/* r folded with the first k <= K cells of its column in that tree, every load in flight at
   once. A compile-time size gives k = K or K - 1 (lanes of both when its last warp is partial;
   k's value is then a choice between those two constants), so every slot but slot K is known
   present: only slot K's load and step are guarded (one select), no second code path per lane.
   Any other k (a run-time size or a count of values, with K a bound on the longest column)
   guards each load and step. */
template <int K, bool Plain, typename T, typename Op>
__device__ __forceinline__ T warpred__fold_column(T r, const T *column, int k, Op op)
{
    static_assert(K >= 0 && K <= 31, "warpred: a column holds 0..31 cells");
    const int n = k + 1;
    T a = warpred__column_group<K, Plain>(r, column, 0, n, op);
    if (K >= 8 && n > 8) a = warpred__rake_step<Plain>(op, a, warpred__column_group<K, Plain>(r, column, 1, n, op));
    if (K >= 16 && n > 16) {
        T b = warpred__column_group<K, Plain>(r, column, 2, n, op);
        if (K >= 24 && n > 24)
            b = warpred__rake_step<Plain>(op, b, warpred__column_group<K, Plain>(r, column, 3, n, op));
        a = warpred__rake_step<Plain>(op, a, b);
    }
    return a;
}

/* The fold with the plain step when the barrier's vote found no special input (operations
   whose warp trees vote: float/double min/max), else with the operation's own step. */
template <int K, bool Votes, typename T, typename Op>
__device__ __forceinline__ T warpred__fold_column_voted(T r, const T *column, int k, Op op, bool plain)
{
    if constexpr (Votes) {
        if (plain) return warpred__fold_column<K, true>(r, column, k, op);
    }
    return warpred__fold_column<K, false>(r, column, k, op);
}

/* r folded with its column of k cells, the longest column of the call holding `longest`: code
   for the least of the bounds Bound, 2 Bound + 1, ... and Most that holds it (a uniform choice:
   longest is the same in every lane), each load and step guarded by k. */
template <int Bound, int Most, bool Votes, typename T, typename Op>
__device__ __forceinline__ T warpred__fold_column_bounded(T r, const T *column, int k, int longest, Op op, bool plain)
{
    if constexpr (Bound >= Most) {
        return warpred__fold_column_voted<Most, Votes>(r, column, k, op, plain);
    } else {
        if (longest <= Bound) return warpred__fold_column_voted<Bound, Votes>(r, column, k, op, plain);
        return warpred__fold_column_bounded<2 * Bound + 1, Most, Votes>(r, column, k, longest, op, plain);
    }
}

/* Lane `lane`'s column in a block of N threads (a compile-time size over 32, every thread's
   value counting) folded with code for N: the column holds (N - 1 - lane) / 32 cells, that is
   K = (N - 1) / 32 below lane N % 32 and K - 1 from it on (K in every lane when the warps are
   whole). One fold for K cells serves both lengths: two folds chosen by the lane would run one
   after the other in warp 0. */
template <int N, bool Votes, typename T, typename Op>
__device__ __forceinline__ T warpred__fold_column_sized(T r, const T *column, int lane, Op op, bool plain)
{
    constexpr int K = (N - 1) / 32;
    const int k = N % 32 == 0 || lane < N % 32 ? K : K - 1;
    return warpred__fold_column_voted<K, Votes>(r, column, k, op, plain);
}

/* Warp 0 folds its columns, then the second barrier (the cells are free again), then warp 0's
   tree; every thread of the block calls (the barriers are inside). Threads != 0: code for a
   block of that many threads, every value counting. Threads == 0: each lane's column holds
   (counted - 1 - lane) / 32 cells, at most ColumnMax (code for that bound, each load guarded). */
template <int Threads, int ColumnMax, bool Broadcast, int NCells, typename T, typename Op>
__device__ __forceinline__ T warpred__rake(T v, Op op, T *cells, int tid, int counted, bool plain)
{
    typedef warpred_op_warp<Op, T> W;
    T r = v;
    if (tid < 32) {
        if constexpr (Threads != 0) {
            r = warpred__fold_column_sized<Threads, W::votes>(r, cells + 32 + tid, tid, op, plain);
        } else {
            const int k = tid < counted ? (counted - 1 - tid) >> 5 : 0;
            r = warpred__fold_column_voted<ColumnMax, W::votes>(r, cells + 32 + tid, k, op, plain);
        }
    }
    /* Reduce: the cells are free once warp 0 has folded them. (A barrier right after the
       loads, before the fold, measured half the rate in a tight loop.) */
    if constexpr (!Broadcast) __syncthreads();
    if (tid < 32) {
        r = warpred__warp_reduce_prefix<false>(r, op, 32, counted < 32 ? counted : 32);
        if (Broadcast && tid == 0) cells[NCells] = r;
    }
    if constexpr (Broadcast) {
        __syncthreads();
        r = cells[NCells];
    }
    return r;
}

/* The rake for counted values whose longest column, (counted - 1) / 32 cells, holds at most
   Bound, or more: code for the least of the bounds 3, 7, 15 and (NCells - 1) / 32 that holds it
   (a uniform choice; each class holds its own barriers, which the whole block takes). */
template <int Bound, bool Broadcast, int NCells, typename T, typename Op>
__device__ __forceinline__ T warpred__rake_bounded(T v, Op op, T *cells, int tid, int counted, bool plain)
{
    constexpr int most = (NCells - 1) / 32;
    if constexpr (Bound >= most) {
        return warpred__rake<0, most, Broadcast, NCells>(v, op, cells, tid, counted, plain);
    } else {
        if ((counted - 1) >> 5 <= Bound)
            return warpred__rake<0, Bound, Broadcast, NCells>(v, op, cells, tid, counted, plain);
        return warpred__rake_bounded<2 * Bound + 1, Broadcast, NCells>(v, op, cells, tid, counted, plain);
    }
}

/* The values of threads 0..counted-1 of a block of nthreads (> 32) threads, every thread
   calling. Result in thread 0 (Broadcast: in every thread). Float/double min/max: the first
   barrier (__syncthreads_or) also tells whether any counted value is a NaN or a zero; when
   none is (almost always), the column folds take the plain step, and the tree its plain path.
   Whole blocks take code for their size: a compile-time size, any (partial last warp too), or
   a run-time size of 64, 128, 256, 512 or 1024 threads by a uniform switch (each case holds its
   own barrier, which the whole block takes). Other run-time sizes, and _valid calls that leave
   threads out, take the least bound on the longest column that holds it (warpred__rake_bounded). */
template <bool Broadcast, int BlockThreads, typename T, typename Op>
__device__ __forceinline__ T warpred__block_rake(T v, Op op, int nthreads, int counted)
{
    typedef warpred_op_warp<Op, T> W;
    constexpr int ncells = BlockThreads != 0 ? BlockThreads : WARPRED_BLOCK_MAX_THREADS;
    T *cells = warpred__rake_cells<T, ncells>();
    const int tid = warpred__block_thread_rank();
    WARPRED_ASSERT(nthreads <= ncells); /* WARPRED_BLOCK_MAX_THREADS */
    cells[tid] = v;
    bool plain = false;
    if constexpr (W::votes) plain = !__syncthreads_or(tid < counted && W::special(v));
    else
        __syncthreads();
    if (counted == nthreads) {
        if constexpr (BlockThreads != 0) {
            return warpred__rake<BlockThreads, 0, Broadcast, ncells>(v, op, cells, tid, counted, plain);
        } else {
            switch (nthreads) {
            case 64: return warpred__rake<64, 0, Broadcast, ncells>(v, op, cells, tid, counted, plain);
            case 128: return warpred__rake<128, 0, Broadcast, ncells>(v, op, cells, tid, counted, plain);
            case 256: return warpred__rake<256, 0, Broadcast, ncells>(v, op, cells, tid, counted, plain);
            case 512: return warpred__rake<512, 0, Broadcast, ncells>(v, op, cells, tid, counted, plain);
            case 1024: return warpred__rake<1024, 0, Broadcast, ncells>(v, op, cells, tid, counted, plain);
            default: break;
            }
        }
    }
    return warpred__rake_bounded<3, Broadcast, ncells>(v, op, cells, tid, counted, plain);
}

/* The one entry point of the layer above (grid_reduce.cuh): threads 0..present-1 of the block
   call, either the first warp alone (present <= 32: no barrier) or the whole block (present =
   the block size); the values of threads 0..counted-1 count, 1 <= counted <= present. Result
   in thread 0 (Broadcast: in every calling thread). Scalars rake; compound values (whose
   shuffles and operations are long, and whose cells would be large) fold warp partials. A
   type that is not a value compiles to nothing here (its entry point's static_assert spoke). */
template <bool Broadcast, int BlockThreads, typename T, typename Op>
__device__ __forceinline__ T warpred__block_reduce_prefix(T v, Op op, int present, int counted)
{
    if constexpr (!warpred__value_ok<T>()) {
        return v;
    } else {
        if (present <= 32) return warpred__warp_reduce_prefix<Broadcast>(v, op, present, counted);
        if constexpr (BlockThreads != 0 && BlockThreads <= 32) return v; /* not reached: present <= BlockThreads */
        else if constexpr (warpred__is_scalar<T>::value)
            return warpred__block_rake<Broadcast, BlockThreads>(v, op, present, counted);
        else
            return warpred__block_fold<Broadcast>(v, op, warpred__block_slots<T>(), present, counted);
    }
}

/* ---- public API ---- */

/* Block result in thread 0 (threadIdx 0,0,0); every thread of the block calls. */
template <int BlockThreads = 0, typename T, typename Op> __device__ __forceinline__ T warpred_block_reduce(T v, Op op)
{
    const int nthreads = warpred__block_size<BlockThreads>();
    return warpred__block_reduce_prefix<false, BlockThreads>(v, op, nthreads, nthreads);
}

/* Block result in every thread; every thread of the block calls. */
template <int BlockThreads = 0, typename T, typename Op>
__device__ __forceinline__ T warpred_block_allreduce(T v, Op op)
{
    const int nthreads = warpred__block_size<BlockThreads>();
    return warpred__block_reduce_prefix<true, BlockThreads>(v, op, nthreads, nthreads);
}

/* Every thread calls; only the values of threads 0..n-1 (linear index) count, 1 <= n <= block
   size. Result in thread 0. For the tail of an array, where the other threads have no value. */
template <int BlockThreads = 0, typename T, typename Op>
__device__ __forceinline__ T warpred_block_reduce_valid(T v, Op op, int n)
{
    const int nthreads = warpred__block_size<BlockThreads>();
    WARPRED_ASSERT(n >= 1 && n <= nthreads);
    return warpred__block_reduce_prefix<false, BlockThreads>(v, op, nthreads, n);
}

/* As warpred_block_reduce_valid, with the result in every thread. */
template <int BlockThreads = 0, typename T, typename Op>
__device__ __forceinline__ T warpred_block_allreduce_valid(T v, Op op, int n)
{
    const int nthreads = warpred__block_size<BlockThreads>();
    WARPRED_ASSERT(n >= 1 && n <= nthreads);
    return warpred__block_reduce_prefix<true, BlockThreads>(v, op, nthreads, n);
}

#endif /* WARPRED_BLOCK_REDUCE_CUH */
