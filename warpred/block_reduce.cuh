/* warpred/block_reduce.cuh - block-level reductions for CUDA.      MIT licensed, see LICENSE.

   Every thread of a block passes one value; the block combines them into one result.

     warpred_block_reduce(v, op)      result in thread 0 (threadIdx 0,0,0); other threads get
                                      an unspecified value
     warpred_block_allreduce(v, op)   result in every thread of the block

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

   OPERATIONS AND TYPES  exactly those of warp_reduce.cuh (warpred_op_sum, _min, _max,
   _min_num, _max_num, _and, _or, _xor, or your own associative and commutative function
   object; int, unsigned, long long, unsigned long long, float, double, __half,
   __nv_bfloat16). See warp_reduce.cuh for the NaN and -0 rules.

   BLOCK SHAPES  1D, 2D and 3D blocks of 1 to 1024 threads, any size (not only multiples of
   32). Threads are numbered x + y*Dx + z*Dx*Dy and cut into warps of 32 in that order, as
   CUDA does; the last warp may be partial and is reduced with warpred_warp_reduce_n.

   ORDER OF FLOAT SUMS  fixed by the block shape: the same inputs in the same threads give a
   bitwise-identical result on every run.

   PRECONDITIONS
     - Every thread of the block calls, from code that all of them reach (it contains
       __syncthreads()). Blocks of up to 32 threads only shuffle, but keep the rule anyway.
     - All threads pass the same op.

   SHARED MEMORY AND BACK-TO-BACK CALLS  Each value type owns a static
   __shared__ array of 33 elements (at most 264 bytes); you declare nothing. The function
   places its own barriers so that calls may follow each other directly or sit in a loop
   with no __syncthreads() of yours in between: the partials of the next call are written
   only after every thread has passed a barrier that comes after the last read of the
   previous call's partials. Cost: two __syncthreads() per call (one for blocks of up to 32
   threads: none).

   CONFIGURATION (define before including)
     WARPRED_ASSERT(cond)  device-side precondition check; default assert(cond).
     WARPRED_NO_REDUX      never use redux.sync (see warp_reduce.cuh).

   This header needs warpred/warp_reduce.cuh beside it; copy both.
*/
#ifndef WARPRED_BLOCK_REDUCE_CUH
#define WARPRED_BLOCK_REDUCE_CUH

#ifndef WARPRED_ASSERT
#  ifndef __CUDACC_RTC__
#    include <assert.h>
#  endif
#  define WARPRED_ASSERT(cond) assert(cond)
#endif

#include "warp_reduce.cuh"

__device__ __forceinline__ int warpred__block_threads(void)
{
    return (int)(blockDim.x * blockDim.y * blockDim.z);
}

__device__ __forceinline__ int warpred__block_thread_id(void)
{
    return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}

/* One slot per warp plus one for the broadcast result. Raw storage, so that types with
   constructors (__half) can live in a static __shared__ array. */
template <typename T>
__device__ __forceinline__ T *warpred__block_slots(void)
{
    __shared__ __align__(8) unsigned char raw[33 * sizeof(T)];
    return reinterpret_cast<T *>(raw);
}

/* A reduction over the first n lanes of the calling warp, n in 1..32. */
template <typename T, typename Op>
__device__ __forceinline__ T warpred__warp_reduce_first(T v, Op op, int n)
{
    return n >= 32 ? warpred_warp_reduce(v, op) : warpred_warp_reduce_n(v, op, n);
}

/* Stage 1: each warp's partial goes to slots[warp], then a barrier makes them visible. */
template <typename T, typename Op>
__device__ __forceinline__ void warpred__block_store_partials(T v, Op op, T *slots, int nthreads, int tid)
{
    v = warpred__warp_reduce_first(v, op, nthreads - (tid & ~31));
    if ((tid & 31) == 0) slots[tid >> 5] = v;
    __syncthreads();
}

template <typename T, typename Op>
__device__ __forceinline__ T warpred_block_reduce(T v, Op op)
{
    const int nthreads = warpred__block_threads();
    if (nthreads <= 32) return warpred_warp_reduce_n(v, op, nthreads);
    T *slots = warpred__block_slots<T>();
    const int tid = warpred__block_thread_id();
    const int nwarps = (nthreads + 31) >> 5;
    warpred__block_store_partials(v, op, slots, nthreads, tid);
    const bool folds = tid < nwarps;
    if (folds) v = slots[tid];
    __syncthreads(); /* every read of the partials is done: the next call may write them */
    if (folds) v = warpred__warp_reduce_first(v, op, nwarps);
    return v;
}

template <typename T, typename Op>
__device__ __forceinline__ T warpred_block_allreduce(T v, Op op)
{
    const int nthreads = warpred__block_threads();
    if (nthreads <= 32) return warpred_warp_allreduce_n(v, op, nthreads);
    T *slots = warpred__block_slots<T>();
    const int tid = warpred__block_thread_id();
    const int nwarps = (nthreads + 31) >> 5;
    warpred__block_store_partials(v, op, slots, nthreads, tid);
    if (tid < nwarps) {
        v = warpred__warp_reduce_first(slots[tid], op, nwarps);
        if (tid == 0) slots[32] = v;
    }
    /* Slot 32 is written by the next call only after that call's first barrier, which every
       thread reaches only after reading slot 32 here; the partials were all read before this
       barrier, and the next call writes them only after it. */
    __syncthreads();
    return slots[32];
}

#endif /* WARPRED_BLOCK_REDUCE_CUH */
