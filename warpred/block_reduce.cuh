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
   (checked with assert). With it the compiler drops the code for other sizes. Without it (the
   default, 0) the size is read from blockDim at run time, and warp 0 branches (uniformly) to
   code for the number of warps; results are the same either way. Pass the size when you know
   it: the code is smaller (see COST).

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

   OPERATIONS AND TYPES  exactly those of warp_reduce.cuh (the operations of ops.cuh or your
   own associative and commutative function object; int, unsigned, long long, unsigned long
   long, float, double, __half, __nv_bfloat16 and the compound types of op_*.cuh). See ops.cuh
   for the NaN and -0 rules.

   BLOCK SHAPES  1D, 2D and 3D blocks of 1 to 1024 threads, any size (not only multiples of
   32). Threads are numbered x + y*Dx + z*Dx*Dy and cut into warps of 32 in that order, as
   CUDA does; the last warp may be partial and is reduced with warpred_warp_reduce_partial.

   ORDER OF FLOAT SUMS  fixed by the block shape: the same inputs in the same threads give a
   bitwise-identical result on every run. The order, for blocks of more than 32 threads: each
   warp's values are combined as the warp's shuffle-down tree combines them (pairs of
   neighbours, then pairs of pairs, ...; a partial last warp as warpred_warp_reduce_partial
   does), then the warp partials left to right ((w0 + w1) + w2) + ... for up to 16 warps, or by
   the same pairwise tree for 17 to 32 (tests/test_block_reduce.cu checks this to the bit).
   Blocks of up to 32 threads reduce as warpred_warp_reduce / _allreduce do.

   PRECONDITIONS
     - Every thread of the block calls, from code that all of them reach (it contains
       __syncthreads()). Blocks of up to 32 threads only shuffle, but keep the rule anyway.
     - All threads pass the same op.

   SHARED MEMORY AND BACK-TO-BACK CALLS  static __shared__ arrays, per value type; you declare
   nothing. 4- and 8-byte scalars (int, unsigned, long long, unsigned long long, float, double):
   every thread's value goes to shared memory, so the array holds one element per thread of the
   largest block the call serves plus 34: 1058 * sizeof(T) without a block size (4232 bytes for
   float, 8464 for double), (32 * P + 34) * sizeof(T) with warpred_block_reduce<N> (P the power
   of two >= the number of warps: 1160 bytes for float at 256 threads). Other types (__half,
   __nv_bfloat16, compound values): 33 elements (33 * sizeof(T): 66 bytes for __half, 792 for
   warpred_welford<double>). The functions place their own barriers so that calls may follow
   each other directly or sit in a loop with no __syncthreads() of yours in between: the values
   of the next call are written only after every thread has passed a barrier that comes after
   the last read of the previous call's. Cost: two __syncthreads() per call (float/double
   min/max: the first is a __syncthreads_or; two more when a NaN or a zero is among the inputs);
   none for blocks of up to 32 threads, which only shuffle.

   COST  4- and 8-byte scalars: every thread stores its value; after a barrier warp 0 rebuilds
   each warp's shuffle tree from shared memory (lane L combines S consecutive values, S the power
   of two >= the number of warps, then shuffles finish the trees and fold the warp partials):
   about 2 + log2(32 / S) + (number of warps) shuffles per call in warp 0 alone, where a shuffle
   tree in every warp costs five per warp. Against cub::BlockReduce (warp-reductions and
   raking-commutative) in a throughput and a dependent-chain loop at 64..1024 threads: to be
   measured (`make bench`, bench_block). Other types: a shuffle tree in every warp, then the warp
   partials folded by thread 0 (up to 16) or warp 0.

   CONFIGURATION  see ops.cuh (WARPRED_ASSERT, WARPRED_NO_REDUX, WARPRED_NO_NAN_MINMAX).

   This header needs warp_reduce.cuh and ops.cuh beside it; copy all three.
*/
#ifndef WARPRED_BLOCK_REDUCE_CUH
#define WARPRED_BLOCK_REDUCE_CUH

#include "warp_reduce.cuh"

/* ---- the block's shape (also used by the grid layer: part of this layer's entry points) ---- */

__device__ __forceinline__ int warpred__block_thread_rank(void)
{
    return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}

/* The block size: BlockThreads when given at compile time (checked), else from blockDim. */
template <int BlockThreads>
__device__ __forceinline__ int warpred__block_size(void)
{
    static_assert(BlockThreads >= 0 && BlockThreads <= 1024, "warpred: BlockThreads must be 0 (run time) or 1..1024");
    const int actual = (int)(blockDim.x * blockDim.y * blockDim.z);
    WARPRED_ASSERT(BlockThreads == 0 || BlockThreads == actual);
    return BlockThreads ? BlockThreads : actual;
}

/* One slot per warp plus one for the broadcast result. Raw storage, so that types with
   constructors (__half) can live in a static __shared__ array. */
template <typename T>
__device__ __forceinline__ T *warpred__block_slots(void)
{
    __shared__ alignas(T) unsigned char raw[33 * sizeof(T)];
    return reinterpret_cast<T *>(raw);
}

/* slots[0] op slots[1] op ... op slots[count-1], left to right, count <= 16. Fully unrolled
   and predicated, so that all the loads are in flight together. */
template <typename T, typename Op>
__device__ __forceinline__ T warpred__fold_in_order(const T *slots, Op op, int count)
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
    if (counted == nthreads && nthreads % 32 == 0) { /* every warp full: known at compile time for the specialized sizes */
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
    /* Up to 16 partials of scalars (or tuples of scalars, folded as their members would be
       alone): thread 0 folds them in order, a chain of at most 15 operations with the
       shared-memory loads in flight together, which is shorter than five dependent shuffles.
       More, or other compound values (whose operations are long): warp 0 shuffles. */
    const bool serial = warpred__scalar_members<T>::value && nwarps <= 16;
    const bool folds = serial ? tid == 0 : tid < nwarps;
    if (Broadcast) {
        if (folds) {
            v = serial ? warpred__fold_in_order(slots, op, nwarps) : warpred__warp_reduce_prefix<false>(slots[tid], op, nwarps, nwarps);
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

/* ---- the raking fold: 4- and 8-byte scalars ----
   The same combinations as warpred__block_fold (so the same bits for every op), with far fewer
   shuffles: every thread of a whole warp of counted values stores its value; after one barrier
   warp 0 rebuilds those warps' shuffle trees from shared memory (lane L takes S consecutive
   leaves, S the power of two >= the number of warps W, and builds their pairwise tree; the G =
   32/S lanes of each warp finish it with shuffles, as the warp's own down tree would, same
   operands in the same order) and folds the warp partials as warpred__block_fold does (in order
   for W <= 16, by the down tree above 16). The warp holding the last counted values, when some
   are missing, reduces itself (warpred__warp_reduce_prefix) and leaves its partial in a slot.
   Float/double min/max: the steps are the hardware's, and the first barrier (__syncthreads_or)
   also tells whether any counted input is a NaN or a zero; only then do two more settle the
   result, as the warp trees' finish does. Warp 0 issues 2 + log2(G) + W shuffles per call
   instead of 5 per warp. */

template <typename T> struct warpred__rakes { enum { value = warpred__is_scalar<T>::value && (sizeof(T) == 4 || sizeof(T) == 8) }; };

__host__ __device__ constexpr int warpred__log2_ceil(int n) { return n <= 1 ? 0 : 1 + warpred__log2_ceil((n + 1) >> 1); }

/* The leaves warp 0 reads: 32 lanes of S each (S the power of two >= the number of warps); with
   the size known only at run time, those of 1024 threads. */
__host__ __device__ constexpr int warpred__rake_leaves(int block_threads)
{
    return block_threads ? 32 << warpred__log2_ceil((block_threads + 31) / 32) : 1024;
}

/* Leaves values (one padding element after each lane's S leaves: at most 32 of them, which keeps
   warp 0's loads free of bank conflicts), then two slots: the partial of the warp with missing
   values, and the broadcast result. */
template <typename T, int Leaves>
__device__ __forceinline__ T *warpred__rake_buffer(void)
{
    __shared__ alignas(T) unsigned char raw[(Leaves + 34) * sizeof(T)];
    return reinterpret_cast<T *>(raw);
}

/* The low 32 bits of x's representation ANDed with zero, a 0 the compiler cannot see through:
   added to an index or a lane, it makes what follows wait for x, which keeps the compiler from
   loading everything at once (registers: occupancy). */
template <typename T> __device__ __forceinline__ int warpred__after(T x, int zero)
{
    union { T t; int w; } u;
    u.t = x;
    return u.w & zero;
}

/* The pairwise tree of x[0..S-1]: (x0 op x1) op (x2 op x3) ..., as a down tree builds it. With
   Serial (S = 16: 288 to 512 threads), halves of 64 bytes or more are read one after the other
   (zero: see warpred__after): the run-time-size code then stays within 32 registers. */
template <int S, bool Serial, typename T, typename Op>
__device__ __forceinline__ T warpred__rake_chunk(const T *x, Op op, int zero)
{
    if constexpr (S == 1) return (void)zero, x[0];
    else {
        constexpr bool serial = Serial && S * sizeof(T) >= 64; /* halves of 64 bytes and more, one after the other */
        const T a = warpred__rake_chunk<S / 2, serial>(x, op, zero);
        const int later = serial ? warpred__after(a, zero) : 0;
        return warpred__tree<T, Op>::step(op, a, warpred__rake_chunk<S / 2, serial>(x + S / 2 + later, op, zero));
    }
}

/* Warp 0's part, for nwarps warps with S leaves per lane (S the power of two >= nwarps; nwarps
   > S / 2). Result in lane 0. */
template <int S, typename T, typename Op>
__device__ __forceinline__ T warpred__rake_warp0(const T *buf, Op op, int nwarps, bool last_partial, int partial_slot)
{
    typedef warpred__tree<T, Op> Tree;
    constexpr int G = 32 / S;
    const int lane = (int)warpred__lane_id();
    const int zero = (int)(threadIdx.z >> 10); /* threadIdx.z < 64 */
    T r = warpred__rake_chunk<S, S == 16>(buf + lane * (S + 1), op, zero);
#pragma unroll
    for (int offset = 1; offset < G; offset <<= 1) r = Tree::step(op, r, warpred__shfl<WARPRED__SHFL_DOWN>(0xffffffffu, r, offset, 32));
    if (last_partial && lane == (nwarps - 1) * G) r = buf[partial_slot];
    if constexpr (S <= 16) {
        /* warp w's partial is in lane w * G: all shuffles in flight, then the fold in order
           (the last S / 2 - 1 steps only for the warps there are) */
        T part[S], acc = r;
#pragma unroll
        for (int w = 1; w < S && w < 8; w++) part[w] = warpred__shfl<WARPRED__SHFL_IDX>(0xffffffffu, r, w * G, 32);
#pragma unroll
        for (int w = 1; w < S && w < 8; w++)
            if (w <= S / 2 || w < nwarps) acc = Tree::step(op, acc, part[w]);
        if constexpr (S == 16) { /* the second eight after the first are folded (registers) */
            const int later = warpred__after(acc, zero);
#pragma unroll
            for (int w = 8; w < 16; w++) part[w] = warpred__shfl<WARPRED__SHFL_IDX>(0xffffffffu, r, w * G + later, 32);
#pragma unroll
            for (int w = 8; w < 16; w++)
                if (w < nwarps) acc = Tree::step(op, acc, part[w]);
        }
        return acc;
    } else {
        if (nwarps == 32) {
            if constexpr (warpred__redux<T, Op>::ok) {
                return warpred__redux<T, Op>::run(0xffffffffu, r);
            } else {
#pragma unroll
                for (int offset = 1; offset < 32; offset <<= 1)
                    r = Tree::step(op, r, warpred__shfl<WARPRED__SHFL_DOWN>(0xffffffffu, r, offset, 32));
                return r;
            }
        }
#pragma unroll
        for (int offset = 1; offset < 32; offset <<= 1) {
            const T other = warpred__shfl<WARPRED__SHFL_DOWN>(0xffffffffu, r, offset, 32);
            if (lane + offset < nwarps) r = Tree::step(op, r, other);
        }
        return r;
    }
}

template <typename T, typename Op>
__device__ __forceinline__ T warpred__rake_dispatch(const T *buf, Op op, int nwarps, int shift, bool last_partial, int partial_slot)
{
    /* uniform; a constant when the block size is known at compile time. 256 threads first. */
    if (shift == 3) return warpred__rake_warp0<8>(buf, op, nwarps, last_partial, partial_slot);
    if (shift == 5) return warpred__rake_warp0<32>(buf, op, nwarps, last_partial, partial_slot);
    if (shift == 2) return warpred__rake_warp0<4>(buf, op, nwarps, last_partial, partial_slot);
    if (shift == 4) return warpred__rake_warp0<16>(buf, op, nwarps, last_partial, partial_slot);
    return warpred__rake_warp0<2>(buf, op, nwarps, last_partial, partial_slot);
}

/* The values of threads 0..counted-1 of a block of nthreads threads reduced, 33 <= counted <=
   nthreads <= Leaves, every thread calling. Barriers as in warpred__block_fold: every read of
   the leaves and the partial slot precedes the last barrier, after which the next call may
   write them; the result slot is written by the next call only after its first barrier. */
template <bool Broadcast, int Leaves, typename T, typename Op>
__device__ __forceinline__ T warpred__rake_fold(T v, Op op, int nthreads, int counted)
{
    typedef warpred__tree<T, Op> Tree;
    T *buf = warpred__rake_buffer<T, Leaves>();
    const int partial_slot = Leaves + 32, result_slot = Leaves + 33;
    const int tid = warpred__block_thread_rank();
    const int nwarps = (counted + 31) >> 5;
    const int shift = 32 - __clz(nwarps - 1); /* log2 of S, the leaves per lane of warp 0 */
    const int warp_first = tid & ~31;
    /* (the first test is a constant when the block size is known at compile time) */
    if ((counted == nthreads && nthreads % 32 == 0) || warp_first + 32 <= counted) buf[tid + (tid >> shift)] = v;
    else if (warp_first < counted) {
        const int present = nthreads - warp_first;
        const T p = warpred__warp_reduce_prefix<false>(v, op, present < 32 ? present : 32, counted - warp_first);
        if ((tid & 31) == 0) buf[partial_slot] = p;
    }
    bool any_nan = false, any_zero = false;
    if constexpr (Tree::fast_minmax) {
        const bool mine = tid < counted;
        if (__syncthreads_or(mine && Tree::nan_or_zero(v))) { /* block-uniform: every thread takes both */
            any_nan = __syncthreads_or(mine && warpred__isnan(v)) != 0;
            any_zero = __syncthreads_or(mine && Tree::is_preferred_zero(v)) != 0;
        }
    } else {
        __syncthreads();
    }
    T r = v;
    if (tid < 32) {
        r = warpred__rake_dispatch(buf, op, nwarps, shift, (counted & 31) != 0, partial_slot);
        if constexpr (Tree::fast_minmax) r = Tree::settle(r, true, any_nan, any_zero);
        if (Broadcast && tid == 0) buf[result_slot] = r;
    }
    __syncthreads();
    return Broadcast ? buf[result_slot] : r;
}

/* The one entry point of the layer above (grid_reduce.cuh): threads 0..present-1 of the block
   call, either the first warp alone (present <= 32: no barrier) or the whole block (present =
   the block size); the values of threads 0..counted-1 count, 1 <= counted <= present. Result
   in thread 0 (Broadcast: in every calling thread). 4- and 8-byte scalars with more than 32
   counted values take the raking fold. Other types: with the size known only at run time, the
   common whole-block sizes go to code specialized for them (a uniform branch). */
template <bool Broadcast, int BlockThreads, typename T, typename Op>
__device__ __forceinline__ T warpred__block_reduce_prefix(T v, Op op, int present, int counted)
{
    if (present <= 32) return warpred__warp_reduce_prefix<Broadcast>(v, op, present, counted);
    if constexpr (warpred__rakes<T>::value)
        if (counted > 32) return warpred__rake_fold<Broadcast, warpred__rake_leaves(BlockThreads)>(v, op, present, counted);
    T *slots = warpred__block_slots<T>();
    if constexpr (BlockThreads == 0) {
        if (counted == present) {
            switch (present) {
            case 64: return warpred__block_fold<Broadcast>(v, op, slots, 64, 64);
            case 128: return warpred__block_fold<Broadcast>(v, op, slots, 128, 128);
            case 256: return warpred__block_fold<Broadcast>(v, op, slots, 256, 256);
            case 512: return warpred__block_fold<Broadcast>(v, op, slots, 512, 512);
            case 1024: return warpred__block_fold<Broadcast>(v, op, slots, 1024, 1024);
            default: break;
            }
        }
    }
    return warpred__block_fold<Broadcast>(v, op, slots, present, counted);
}

/* ---- public API ---- */

/* Block result in thread 0 (threadIdx 0,0,0); every thread of the block calls. */
template <int BlockThreads = 0, typename T, typename Op>
__device__ __forceinline__ T warpred_block_reduce(T v, Op op)
{
    warpred__check_type<T>();
    const int nthreads = warpred__block_size<BlockThreads>();
    return warpred__block_reduce_prefix<false, BlockThreads>(v, op, nthreads, nthreads);
}

/* Block result in every thread; every thread of the block calls. */
template <int BlockThreads = 0, typename T, typename Op>
__device__ __forceinline__ T warpred_block_allreduce(T v, Op op)
{
    warpred__check_type<T>();
    const int nthreads = warpred__block_size<BlockThreads>();
    return warpred__block_reduce_prefix<true, BlockThreads>(v, op, nthreads, nthreads);
}

/* Every thread calls; only the values of threads 0..n-1 (linear index) count, 1 <= n <= block
   size. Result in thread 0. For the tail of an array, where the other threads have no value. */
template <int BlockThreads = 0, typename T, typename Op>
__device__ __forceinline__ T warpred_block_reduce_valid(T v, Op op, int n)
{
    warpred__check_type<T>();
    const int nthreads = warpred__block_size<BlockThreads>();
    WARPRED_ASSERT(n >= 1 && n <= nthreads);
    return warpred__block_reduce_prefix<false, BlockThreads>(v, op, nthreads, n);
}

/* As warpred_block_reduce_valid, with the result in every thread. */
template <int BlockThreads = 0, typename T, typename Op>
__device__ __forceinline__ T warpred_block_allreduce_valid(T v, Op op, int n)
{
    warpred__check_type<T>();
    const int nthreads = warpred__block_size<BlockThreads>();
    WARPRED_ASSERT(n >= 1 && n <= nthreads);
    return warpred__block_reduce_prefix<true, BlockThreads>(v, op, nthreads, n);
}

#endif /* WARPRED_BLOCK_REDUCE_CUH */
