/* warpred/grid_reduce.cuh - one result for a whole grid, in a single launch.      MIT licensed.

   Your kernel computes one partial value per thread, then every thread of the grid calls

     bool warpred_grid_reduce(T v, Op op, warpred_grid_scratch scratch, T *out)

   once, at its end (warpred_grid_reduce<BlockThreads>(...) when the block size is known at
   compile time, as for warpred_block_reduce). Each block reduces its threads' values and stores one partial; the last
   block to finish folds the partials and writes *out. It returns true in exactly one thread
   (thread 0 of that last block, after it wrote *out), false everywhere else.

   USAGE
       #include <warpred/grid_reduce.cuh>

       // squared error, in one launch: out = sum (y - t)^2
       __global__ void squared_error(const float *y, const float *t, size_t n,
                                     warpred_grid_scratch scratch, float *out)
       {
           float acc = 0.0f;
           for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
                i += (size_t)gridDim.x * blockDim.x) {
               float d = y[i] - t[i];
               acc += d * d;
           }
           warpred_grid_reduce(acc, warpred_op_sum(), scratch, out);
       }

       // host side: one scratch, then any number of launches with no reset in between
       static cudaError_t squared_errors(const float *y, const float *t, size_t n, float *out, int launches)
       {
           warpred_grid_scratch scratch;
           const char *why;
           cudaError_t err = warpred_grid_scratch_create(&scratch, 1024, sizeof(float), &why);
           if (err != cudaSuccess) { fprintf(stderr, "grid scratch: %s\n", why); return err; }
           for (int i = 0; i < launches && err == cudaSuccess; i++) {
               squared_error<<<1024, 256>>>(y, t, n, scratch, out);
               err = cudaGetLastError();
           }
           warpred_grid_scratch_destroy(&scratch);
           return err;
       }
       // y = {1, 2, 3}, t = {0, 0, 0}: *out == 14 after every launch

   (This snippet is compiled and checked in tests/test_grid_reduce.cu.)

   SCRATCH  warpred_grid_scratch (declared in grid_scratch.h, which host-only .c/.cpp files
   can include) holds `partials` (room for `capacity` values of the reduced type:
   warpred_grid_scratch_bytes(capacity, sizeof(T)) bytes) and two 32-bit counter words that
   must be zero before the first launch. The last block sets the ticket word back to zero, so
   launches may follow each other with no memset. warpred_grid_scratch_create allocates both
   and zeroes the counter; or point the fields at memory of your own. One scratch serves one
   launch at a time: launches that may overlap (other streams, graphs run concurrently) each
   need their own.

   TOO MANY BLOCKS  A launch with more blocks than scratch.capacity never writes out of
   bounds, with or without NDEBUG: no block writes a partial, *out is not written, every thread
   returns false, and the status word records it; warpred_grid_scratch_status(&scratch, &why)
   on the host then returns cudaErrorInvalidValue with a message (and clears it). The check is
   one comparison per thread (`make bench` shows no measurable cost).

   DETERMINISM  For a fixed grid size, block size and per-thread values the result is bitwise
   identical on every run: no floating-point atomics are involved; the last block folds the
   partials in a fixed order (its thread t takes partials t, t + f, t + 2f, ... in turn, f
   fixed by the grid and block sizes) and then runs the fixed warp or block reduction tree.
   Which block happens to finish last does not matter.

   MEMORY ORDERING  A block's thread 0 stores its partial, then takes a ticket with
   atom.acq_rel.gpu (an atomic add that is both a release and an acquire at GPU scope). The
   counter's atomics form one chain, so the thread that draws the last ticket has
   synchronized with every earlier ticket's release: every partial is visible to it. A
   barrier (__syncwarp or __syncthreads, both of which order memory among their threads)
   passes that on to the threads that fold the partials, which read them with ld.global.cg
   (from L2, past the non-coherent L1) for good measure. One block: no partials and no
   counter at all.

   COST  After its block reduction, each block's thread 0 does one store and one atomic.
   Up to 8 partials per lane of a warp (256 blocks for blocks of 32+ threads), the last
   block's warp 0 folds them and the other warps of every block return at once; beyond that
   the whole last block folds them, then reduces. Either way the partials are loaded in one
   trip to L2 for grids of up to 8 blocks per thread of a block (values of up to 8 bytes;
   compound values of 9..32 bytes: 64 bytes' worth per thread; larger: one at a time).

   OPERATIONS AND VALUES  those of block_reduce.cuh: any operation (ops.cuh, op_*.cuh, yours:
   operation.cuh) over any value (value.cuh).

   PRECONDITIONS  Every thread of every block calls it exactly once per launch, from code all
   of them reach (it contains __syncthreads()). 1D, 2D or 3D grids and blocks; the number of
   blocks (gridDim.x * gridDim.y * gridDim.z) is at most scratch.capacity (else: TOO MANY
   BLOCKS above) and below 2^32.

   CONFIGURATION  see config.cuh (WARPRED_ASSERT, WARPRED_NO_REDUX, WARPRED_NO_NAN_MINMAX).

   FOR THE LAYER ABOVE  warpred__grid_fold<BlockThreads>(v, op, scratch, result): the same,
   but instead of writing *out it leaves the result in `result` of the thread that returns true
   (device_reduce_kernel.cuh converts it before its store). The pieces of its protocol, for
   layers with tickets of their own (device_rows_kernel.cuh): warpred__ticket(counter) (an
   acquire-release atomicAdd of 1, returning the ticket), warpred__load_cg(p) (a value read
   from L2, member by member) and warpred__fold_partials(partials, n, first, stride, op).

   This header needs grid_scratch.h, block_reduce.cuh, warp_reduce.cuh, ops.cuh and its base
   beside it (README: Copying a header).
*/
#ifndef WARPRED_GRID_REDUCE_CUH
#define WARPRED_GRID_REDUCE_CUH

#include "block_reduce.cuh"
#include "grid_scratch.h"

/* Partials are read once, by another block than the one that wrote them: through L2, past the
   non-coherent L1. Compound values scalar member by scalar member (their padding is never
   read: it was never written); each member lands at its own offset in the result. */
struct warpred__load_member_cg {
    const char *from;
    const char *to0;
    template <typename S> __device__ __forceinline__ void operator()(S &member) const
    {
        member = __ldcg(reinterpret_cast<const S *>(from + ((const char *)&member - to0)));
    }
};

template <typename T> __device__ __forceinline__ T warpred__load_cg(const T *p)
{
    if constexpr (warpred__is_scalar<T>::value) {
        return __ldcg(p);
    } else {
        T r;
        warpred__load_member_cg load = {(const char *)p, (const char *)&r};
        warpred__each_scalar(r, load);
        return r;
    }
}

/* atomicAdd with acquire-release semantics at GPU scope: the release half publishes this
   thread's earlier stores (the partial) with the ticket, the acquire half makes the stores
   published with every earlier ticket visible to this thread's later loads. */
__device__ __forceinline__ unsigned warpred__ticket(unsigned *counter)
{
    unsigned ticket;
    asm volatile("atom.acq_rel.gpu.add.u32 %0, [%1], 1;" : "=r"(ticket) : "l"(counter) : "memory");
    return ticket;
}

/* Thread `first` of `stride` folds partials first, first + stride, ... (first < n) in that
   order. The first K are loaded together (eight values of up to 8 bytes; 64 bytes of larger
   compound values, so that a 1024-thread block still fits in the registers), so up to
   K * stride partials cost one trip to L2; more (only for grids far larger than one wave) go
   through the loop. */
template <typename T> struct warpred__in_flight {
    enum { value = sizeof(T) <= 8 ? 8 : sizeof(T) <= 32 ? 64 / sizeof(T) : 1 };
};

template <typename T, typename Op>
__device__ __forceinline__ T warpred__fold_partials(const T *partials, unsigned n, unsigned first, unsigned stride,
                                                    Op op)
{
    enum { K = warpred__in_flight<T>::value };
    T x[K];
#pragma unroll
    for (int k = 0; k < K; k++)
        if (first + k * stride < n) x[k] = warpred__load_cg(&partials[first + k * stride]);
    T acc = x[0];
#pragma unroll
    for (int k = 1; k < K; k++)
        if (first + k * stride < n) acc = op(acc, x[k]);
    for (unsigned b = first + K * stride; b < n; b += stride) acc = op(acc, warpred__load_cg(&partials[b]));
    return acc;
}

/* The entry point of the layer above (device_reduce_kernel.cuh): warpred_grid_reduce without
   the store, the result in `result` of the one thread that returns true. */
template <int BlockThreads, typename T, typename Op>
__device__ __forceinline__ bool warpred__grid_fold(T v, Op op, warpred_grid_scratch scratch, T &result)
{
    __shared__ unsigned last_block;
    const unsigned nblocks = gridDim.x * gridDim.y * gridDim.z;
    const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const int tid = warpred__block_thread_rank();
    const int nthreads = warpred__block_size<BlockThreads>();
    T *partials = (T *)scratch.partials;
    WARPRED_ASSERT(scratch.counter != 0 && partials != 0);
    if (nblocks > scratch.capacity) { /* never write past the partials, NDEBUG or not: tell the host */
        if (block == 0 && tid == 0) atomicOr(&scratch.counter[1], WARPRED_GRID_STATUS_OVERFLOW);
        return false;
    }

    v = warpred_block_reduce<BlockThreads>(v, op);
    if (nblocks == 1) { /* the only block is the last one: no partials, no counter */
        result = v;
        return tid == 0;
    }
    /* Few partials: warp 0 of the last block folds them alone (one load trip per lane, no
       block barrier), and the other warps of every block leave now. Many: the whole last
       block folds them, so the loads still take one trip. */
    const int warp_lanes = nthreads < 32 ? nthreads : 32;
    const bool by_warp = nblocks <= (unsigned)warpred__in_flight<T>::value * warp_lanes;
    const int folders = by_warp ? warp_lanes : nthreads;
    if (tid >= folders) return false;
    unsigned is_last = 0;
    if (tid == 0) {
        partials[block] = v;
        is_last = warpred__ticket(scratch.counter) == nblocks - 1;
    }
    /* A barrier carries thread 0's acquire on to the threads that fold (bar.warp.sync and
       bar.sync both order memory among their threads), so their loads see every partial. */
    if (by_warp) {
        const unsigned warp0 = warpred__first_lanes(folders);
        __syncwarp(warp0);
        is_last = __shfl_sync(warp0, is_last, 0);
    } else {
        if (tid == 0) last_block = is_last;
        __syncthreads();
        is_last = last_block;
    }
    if (!is_last) return false;

    const int holders = nblocks < (unsigned)folders ? (int)nblocks : folders;
    T acc = v;
    if (tid < holders) acc = warpred__fold_partials(partials, nblocks, (unsigned)tid, (unsigned)folders, op);
    acc = warpred__block_reduce_prefix<false, BlockThreads>(acc, op, folders, holders);
    if (tid == 0) *scratch.counter = 0; /* ready for the next launch; nobody else touches it in this one */
    result = acc;
    return tid == 0;
}

template <int BlockThreads = 0, typename T, typename Op>
__device__ __forceinline__ bool warpred_grid_reduce(T v, Op op, warpred_grid_scratch scratch, T *out)
{
    if constexpr (warpred__value_ok<T>()) {
        T result;
        if (!warpred__grid_fold<BlockThreads>(v, op, scratch, result)) return false;
        *out = result;
        return true;
    } else {
        return false;
    }
}

#endif /* WARPRED_GRID_REDUCE_CUH */
