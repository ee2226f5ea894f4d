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
   (checked with assert). With it the compiler drops the code for other sizes and unrolls the
   final fold, which makes a tight loop of block reductions about as fast as CUB's
   BlockReduce (which always takes the size at compile time). Without it (the default, 0)
   the size is read from blockDim at run time; warpred_block_reduce and _allreduce then
   branch to code specialized for 64, 128, 256, 512 and 1024 threads. In a tight loop on an
   H100 that recovers part of the difference (256 threads: int sum 3.3 against 5.0 G/s with
   the template argument, float sum 2.1 against 3.3), at the price of more code in the
   kernel; pass the size when you know it (see `make bench`).

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
   bitwise-identical result on every run.

   PRECONDITIONS
     - Every thread of the block calls, from code that all of them reach (it contains
       __syncthreads()). Blocks of up to 32 threads only shuffle, but keep the rule anyway.
     - All threads pass the same op.

   SHARED MEMORY AND BACK-TO-BACK CALLS  Each value type owns a static __shared__ array of
   33 elements (33 * sizeof(T): 264 bytes for 8-byte scalars, more for compound values, e.g. 792
   for warpred_welford<double>); you declare nothing. The functions place their own
   barriers so that calls may follow each other directly or sit in a loop with no
   __syncthreads() of yours in between: the partials of the next call are written only after
   every thread has passed a barrier that comes after the last read of the previous call's
   partials. Cost: two __syncthreads() per call; none for blocks of up to 32 threads, which
   only shuffle.

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

/* The one entry point of the layer above (grid_reduce.cuh): threads 0..present-1 of the block
   call, either the first warp alone (present <= 32: no barrier) or the whole block (present =
   the block size); the values of threads 0..counted-1 count, 1 <= counted <= present. Result
   in thread 0 (Broadcast: in every calling thread). With the size known only at run time, the
   common whole-block sizes go to code specialized for them (a uniform branch): the general
   code's bookkeeping costs a tight loop up to 40% of its throughput. */
template <bool Broadcast, int BlockThreads, typename T, typename Op>
__device__ __forceinline__ T warpred__block_reduce_prefix(T v, Op op, int present, int counted)
{
    if (present <= 32) return warpred__warp_reduce_prefix<Broadcast>(v, op, present, counted);
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
