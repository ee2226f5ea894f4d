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
   identical on every run: no floating-point atomics are involved; the last block folds the
   partials in a fixed order (thread t takes partials t, t + blockDim, ... in turn) and then
   runs the fixed block reduction tree. Which block happens to finish last does not matter.

   MEMORY ORDERING  A block's thread 0 stores its partial, then __threadfence() (a GPU-scope
   fence), then increments the counter with a relaxed atomic. The thread that draws the last
   ticket runs __threadfence() after its atomic; fence-atomic ... atomic-fence is the PTX
   release/acquire pattern, so every partial stored before another block's increment is
   visible to it. A __syncthreads() then extends that to its whole block, and the partials
   are read with ld.global.cg (L2, bypassing the non-coherent L1) for good measure.

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

template <typename T, typename Op>
__device__ __forceinline__ bool warpred_grid_reduce(T v, Op op, warpred_grid_scratch scratch, T *out)
{
    __shared__ bool is_last;
    const unsigned nblocks = gridDim.x * gridDim.y * gridDim.z;
    const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const bool leader = threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;
    T *partials = (T *)scratch.partials;
    WARPRED_ASSERT(nblocks <= scratch.capacity && scratch.counter != 0 && partials != 0);

    v = warpred_block_reduce(v, op);
    if (leader) {
        partials[block] = v;
        __threadfence(); /* release: the partial before the ticket */
        const unsigned ticket = atomicAdd(scratch.counter, 1u);
        is_last = ticket == nblocks - 1;
        if (is_last) __threadfence(); /* acquire: every other block's partial after its ticket */
    }
    __syncthreads();
    if (!is_last) return false;

    const int nthreads = warpred__block_threads();
    const int tid = warpred__block_thread_id();
    /* Thread t folds partials t, t + nthreads, ... in that order; with fewer blocks than
       threads, only the first nblocks threads hold a value. */
    T acc = v;
    if ((unsigned)tid < nblocks) {
        acc = warpred__load_cg(&partials[tid]);
        for (unsigned b = tid + nthreads; b < nblocks; b += nthreads) acc = op(acc, warpred__load_cg(&partials[b]));
    }
    acc = warpred_block_reduce_first_n(acc, op, nblocks < (unsigned)nthreads ? (int)nblocks : nthreads);
    if (leader) {
        *out = acc;
        *scratch.counter = 0; /* ready for the next launch; nobody else touches it in this one */
    }
    return leader;
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
