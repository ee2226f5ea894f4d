/* warpred/grid_reduce.cuh - one result for a whole grid, in a single launch.      MIT licensed.

   Your kernel computes one partial value per thread, then every thread of the grid calls

     bool warpred_grid_reduce(T v, Op op, warpred_grid_scratch scratch, T *out)

   once, at its end. Each block reduces its threads' values and stores one partial; the last
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

       // host side, once:
       warpred_grid_scratch scratch;
       const char *why;
       if (warpred_grid_scratch_create(&scratch, 1024, sizeof(float), &why) != cudaSuccess)
           fprintf(stderr, "grid scratch: %s\n", why);
       // any number of launches, no reset in between:
       squared_error<<<1024, 256>>>(y, t, n, scratch, out);
       // y = {1, 2, 3}, t = {0, 0, 0}: *out == 14
       warpred_grid_scratch_destroy(&scratch);

   (This snippet is compiled and checked in tests/test_grid_reduce.cu.)

   SCRATCH  warpred_grid_scratch holds `partials` (room for `capacity` values of the reduced
   type: warpred_grid_scratch_bytes(capacity, sizeof(T)) bytes) and a 32-bit `counter` that
   must be zero before the first launch. The last block sets it back to zero, so launches may
   follow each other with no memset. warpred_grid_scratch_create allocates both and zeroes the
   counter; or point the fields at memory of your own. One scratch serves one launch at a
   time: launches that may overlap (other streams, graphs run concurrently) each need their
   own. capacity must be at least the number of blocks of every launch that uses it.

   DETERMINISM  For a fixed grid size, block size and per-thread values the result is bitwise
   identical on every run: no floating-point atomics are involved; the last block's warp 0
   folds the partials in a fixed order (lane l takes partials l, l + 32, ... in turn) and then
   runs the fixed warp reduction tree. Which block happens to finish last does not matter.

   MEMORY ORDERING  A block's thread 0 stores its partial, then takes a ticket with
   atom.acq_rel.gpu (an atomic add that is both a release and an acquire at GPU scope). The
   counter's atomics form one chain, so the thread that draws the last ticket has
   synchronized with every earlier ticket's release: every partial is visible to it. A
   __syncwarp() (which orders memory among the warp's threads) passes that on to the rest of
   warp 0, which folds the partials, reading them with ld.global.cg (from L2, past the
   non-coherent L1) for good measure. One block: no partials and no counter at all.

   COST  After its block reduction, each block's thread 0 does one store and one atomic;
   the last block's warp 0 then folds the partials (the other warps of every block return at
   once) and runs one warp reduction.

   OPERATIONS AND TYPES  those of block_reduce.cuh (warpred_op_sum, _min, _max, _min_num,
   _max_num, _and, _or, _xor or your own; int, unsigned, long long, unsigned long long, float,
   double, __half, __nv_bfloat16).

   PRECONDITIONS  Every thread of every block calls it exactly once per launch, from code all
   of them reach (it contains __syncthreads()). 1D, 2D or 3D grids and blocks; the number of
   blocks (gridDim.x * gridDim.y * gridDim.z) is at most scratch.capacity (checked with
   assert) and below 2^32.

   CONFIGURATION (define before including)
     WARPRED_ASSERT(cond)  device-side precondition check; default assert(cond).
     WARPRED_NO_REDUX      never use redux.sync (see warp_reduce.cuh).

   This header needs warp_reduce.cuh and block_reduce.cuh beside it; copy all three.
*/
#ifndef WARPRED_GRID_REDUCE_CUH
#define WARPRED_GRID_REDUCE_CUH

#ifndef WARPRED_ASSERT
#  ifndef __CUDACC_RTC__
#    include <assert.h>
#  endif
#  define WARPRED_ASSERT(cond) assert(cond)
#endif

#include "block_reduce.cuh"

typedef struct warpred_grid_scratch {
    void *partials;     /* capacity values of the reduced type, device memory */
    unsigned *counter;  /* zero between launches; device memory */
    unsigned capacity;  /* how many partials fit: at least the blocks of a launch */
} warpred_grid_scratch;

/* Partials are read once, by another block than the one that wrote them: through L2. */
template <typename T> __device__ __forceinline__ T warpred__load_cg(const T *p) { return __ldcg(p); }

/* atomicAdd with acquire-release semantics at GPU scope: the release half publishes this
   thread's earlier stores (the partial) with the ticket, the acquire half makes the stores
   published with every earlier ticket visible to this thread's later loads. */
__device__ __forceinline__ unsigned warpred__ticket(unsigned *counter)
{
    unsigned ticket;
    asm volatile("atom.acq_rel.gpu.add.u32 %0, [%1], 1;" : "=r"(ticket) : "l"(counter) : "memory");
    return ticket;
}

/* Lane l of warp 0 folds partials l, l + lanes, l + 2*lanes, ... in that order (loads four
   at a time in flight); lanes with no partial hold nothing that counts. */
template <typename T, typename Op>
__device__ __forceinline__ T warpred__fold_partials(const T *partials, unsigned nblocks, unsigned lane, unsigned lanes, Op op)
{
    T acc = warpred__load_cg(&partials[lane < nblocks ? lane : 0]);
    unsigned b = lane + lanes;
    for (; b + 3 * lanes < nblocks; b += 4 * lanes) {
        const T x0 = warpred__load_cg(&partials[b]), x1 = warpred__load_cg(&partials[b + lanes]);
        const T x2 = warpred__load_cg(&partials[b + 2 * lanes]), x3 = warpred__load_cg(&partials[b + 3 * lanes]);
        acc = op(op(op(op(acc, x0), x1), x2), x3);
    }
    for (; b < nblocks; b += lanes) acc = op(acc, warpred__load_cg(&partials[b]));
    return acc;
}

template <typename T, typename Op>
__device__ __forceinline__ bool warpred_grid_reduce(T v, Op op, warpred_grid_scratch scratch, T *out)
{
    const unsigned nblocks = gridDim.x * gridDim.y * gridDim.z;
    const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const int tid = warpred__block_thread_id();
    T *partials = (T *)scratch.partials;
    WARPRED_ASSERT(nblocks <= scratch.capacity && scratch.counter != 0 && partials != 0);

    v = warpred_block_reduce(v, op);
    if (nblocks == 1) { /* the only block is the last one: no partials, no counter */
        if (tid == 0) *out = v;
        return tid == 0;
    }
    if (tid >= 32) return false; /* from here on only warp 0 works */
    const int nthreads = warpred__block_threads();
    const unsigned lanes = nthreads < 32 ? (unsigned)nthreads : 32u;
    const unsigned warp0 = warpred__first_lanes((int)lanes);
    unsigned is_last = 0;
    if (tid == 0) {
        partials[block] = v;
        is_last = warpred__ticket(scratch.counter) == nblocks - 1;
    }
    /* The barrier carries thread 0's acquire to the rest of warp 0 (bar.warp.sync orders
       memory among its threads), so their loads below see every block's partial. */
    __syncwarp(warp0);
    is_last = __shfl_sync(warp0, is_last, 0);
    if (!is_last) return false;

    T acc = warpred__fold_partials(partials, nblocks, (unsigned)tid, lanes, op);
    const int holders = nblocks < lanes ? (int)nblocks : (int)lanes;
    acc = warpred__warp_reduce_valid(acc, op, (int)lanes, holders);
    if (tid == 0) {
        *out = acc;
        *scratch.counter = 0; /* ready for the next launch; nobody else touches it in this one */
    }
    return tid == 0;
}

#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>

/* Bytes of partials for `capacity` blocks of values of `elem_size` bytes. */
static inline size_t warpred_grid_scratch_bytes(unsigned capacity, size_t elem_size)
{
    return (size_t)capacity * elem_size;
}

/* Allocates partials for `capacity` blocks and a zeroed counter. Returns cudaSuccess, or an
   error code with *why (when why is not NULL) set to a message; on error nothing stays
   allocated and *s is zeroed. */
static inline cudaError_t warpred_grid_scratch_create(warpred_grid_scratch *s, unsigned capacity, size_t elem_size,
                                                      const char **why)
{
    const char *ignored;
    if (!why) why = &ignored;
    *why = "no error";
    if (!s) {
        *why = "warpred_grid_scratch_create: s is NULL";
        return cudaErrorInvalidValue;
    }
    s->partials = 0;
    s->counter = 0;
    s->capacity = 0;
    if (capacity == 0 || elem_size == 0) {
        *why = "warpred_grid_scratch_create: capacity and elem_size must be at least 1";
        return cudaErrorInvalidValue;
    }
    cudaError_t err = cudaMalloc(&s->partials, warpred_grid_scratch_bytes(capacity, elem_size));
    if (err == cudaSuccess) err = cudaMalloc((void **)&s->counter, sizeof(unsigned));
    if (err == cudaSuccess) err = cudaMemset(s->counter, 0, sizeof(unsigned));
    if (err != cudaSuccess) {
        *why = cudaGetErrorString(err);
        cudaFree(s->partials);
        cudaFree(s->counter);
        s->partials = 0;
        s->counter = 0;
        return err;
    }
    s->capacity = capacity;
    return cudaSuccess;
}

static inline cudaError_t warpred_grid_scratch_destroy(warpred_grid_scratch *s)
{
    if (!s) return cudaErrorInvalidValue;
    cudaError_t a = cudaFree(s->partials), b = cudaFree(s->counter);
    s->partials = 0;
    s->counter = 0;
    s->capacity = 0;
    return a != cudaSuccess ? a : b;
}
#endif /* __CUDACC_RTC__ */

#endif /* WARPRED_GRID_REDUCE_CUH */
