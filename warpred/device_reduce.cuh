/* warpred/device_reduce.cuh - reduce a whole array in device memory, from the host, in one launch.
   MIT licensed, see LICENSE.

   warpred_device_reduce combines f(in[i], i) for i = 0 .. n-1 with an operation into one value
   that it writes to device memory: one kernel launch, stream-ordered, the same bits on every run,
   no memset between calls, capturable in a CUDA graph. The scratch memory and the grid size
   come from a plan that you create once per device.

   USAGE
       #include <warpred/device_reduce.cuh>

       struct squared_error {                  // a transform: R operator()(T x, size_t i) const
           const float *target;
           __device__ float operator()(float y, size_t i) const { float d = y - target[i]; return d * d; }
       };

       // x = {1, 2, 3, 4, 5}, t = {0, 2, 3, 4, 7}: device arrays of floats; out_f, out_d: device memory
       static cudaError_t device_reduce_example(const float *x, const float *t, float *out_f, double *out_d,
                                                cudaStream_t stream)
       {
           warpred_device_plan plan;
           const char *why;
           cudaError_t err = warpred_device_plan_create(&plan, 0, &why);          // once per device
           if (err != cudaSuccess) { fprintf(stderr, "plan: %s\n", why); return err; }
           warpred_device_sum(&plan, x, 5, out_f);                                      // 15
           warpred_device_reduce(&plan, x, 5, out_f + 1, warpred_op_max());           // 5
           warpred_device_transform_reduce(&plan, x, 5, out_d, warpred_op_sum(),
                                           warpred_xf_to<double>());                   // 15.0 (double)
           squared_error se = {t};
           warpred_device_transform_reduce(&plan, x, 5, out_f + 2, warpred_op_sum(), se, stream); // 5
           err = warpred_device_reduce(&plan, x, 5, (float *)NULL, warpred_op_sum(), stream, &why);
           if (err != cudaSuccess) fprintf(stderr, "%s\n", why);   // "warpred_device_reduce: out is NULL"
           warpred_device_plan_destroy(&plan);
           return err == cudaErrorInvalidValue ? cudaSuccess : cudaErrorUnknown;
       }

   (This snippet is compiled and checked in tests/test_device_reduce.cu.)

   THE CALLS (host functions; out is device memory; every pointer is device memory)
     warpred_device_plan_create(&plan, value_bytes, &why)   allocates the scratch for the
         current device: room for one partial per block of a full wave, each of up to
         value_bytes bytes (0: 64 bytes, enough for every scalar and single compound value;
         a larger value, as a tuple of compound values, needs more: a call then fails with a
         message).
         The scratch's counter is zeroed here, once, and the call waits for that (a
         synchronization, as with any create).
     warpred_device_reduce(&plan, in, n, out, op, stream = 0, &why = NULL)
         *out = op over in[i], i in [0, n). The accumulator and *out have the type R of out:
         each element converts to R (so float input and a double out accumulate in double).
     warpred_device_transform_reduce(&plan, in, n, out, op, f, stream = 0, &why = NULL)
         *out = op over f(in[i], i), i in [0, n); f's result converts to R.
     warpred_device_sum(&plan, in, n, out, stream = 0, &why = NULL)
         warpred_device_reduce with warpred_op_sum.
     warpred_device_blocks(&plan, n, sizeof(T))   the grid size a call with n elements of T
         uses (for benchmarks that compare against a kernel with the same grid).
     warpred_device_plan_destroy(&plan)   frees the scratch.
   Each returns cudaSuccess or an error code. why, when not NULL, points at a message after
   the call ("no error" on success): a static string, valid for the life of the program. A
   launch error returned is this call's own (the kernel goes through cudaLaunchKernel, whose
   result is its own status; an older unread error of yours is neither returned nor cleared,
   unless it is a sticky one, which every CUDA call returns).

   TRANSFORMS  (transforms.cuh) function objects with  __device__ R operator()(T x, size_t i)
   const, i the element's index; they may hold state (pointers to other arrays, thresholds):
     warpred_xf_identity     x
     warpred_xf_to<R>()      (R)x; __half and __nv_bfloat16 go through float
   and, beside their operations in the op_*.cuh headers (include the header too):
     warpred_xf_arg          {x, i} as warpred_arg<T, long long>, for warpred_op_argmax & co.
     warpred_xf_welford<>    warpred_welford<T> of one x, for warpred_op_welford
                             (warpred_xf_welford<double>: float input, double summaries)
     warpred_xf_softmax      warpred_softmax<T> of one x, for warpred_op_softmax
     warpred_xf_extrema      warpred_extrema<T> of one x, for warpred_op_extrema
   The reproducible sum of op_rsum.cuh needs no transform: warpred_device_reduce(&plan, x, n,
   out, warpred_op_rsum()) with out a float * or double * writes the rounded sum (the same bits
   for any grid, alignment or GPU), with out a warpred_rsum<F> * the accumulator itself (to merge
   with other GPUs' results). n may not exceed warpred_rsum_max_count (2^34 - 2^17).

   OPERATIONS AND VALUES  every operation (ops.cuh, op_*.cuh, yours: operation.cuh) over every
   value (value.cuh) of at most plan.value_bytes bytes; the operation needs an identity (one
   static_assert says so otherwise). The running state of each thread is the operation's
   accumulator (operation.cuh, warpred_op_accumulator): R itself for every operation but the
   reproducible sum, whose state is a warpred_rsum. T (the input) may be any type that f
   accepts, of any size: elements of 1, 2, 4, 8 or 16 bytes are read in 16-byte loads, others
   one at a time (a 12-byte struct, say).

   SEMANTICS
     - n == 0 writes op's identity (sum 0, max -inf, ...); in may then be NULL.
     - Floating-point sums add in R's precision. Each thread adds about n / (grid threads)
       values in sequence (after pairing the elements of each 16-byte load), then the partials
       go through fixed trees: the error bound grows with that count. For a float sum that
       must be accurate, accumulate in double: out a double and warpred_xf_to<double>(),
       then round once (on the host, or in your next kernel). A sum of only -0 is -0.
     - min / max / _num: as in ops.cuh (NaN wins or is ignored, -0 < +0); every element goes
       through op, so a NaN result is always the canonical NaN.
     - Integer sums wrap modulo 2^bits: to sum int without overflow, out a long long and
       warpred_xf_to<long long>().
   DETERMINISM  The grid size depends only on n, sizeof(T), the plan and the kernel's occupancy
   on the plan's device (fixed for a given T, R, op, transform and GPU model); which thread takes
   which element depends on that and on the address of in modulo 16. So the same call (same
   pointer, n, plan, data) gives the same bits every time, in any stream or graph. Moving the
   data to an address with another remainder modulo 16 may change the last bits of a float sum.

   STREAMS AND GRAPHS  Everything happens in `stream`: no synchronization, no allocation, no
   memset per call, so a call can be captured in a CUDA graph and the graph replayed. The plan
   holds one scratch: calls through one plan must not run at the same time (one stream, or
   streams ordered by events; two graphs that replay concurrently need a plan each).

   ERRORS  cudaErrorInvalidValue for: plan or out NULL, a plan not created (or destroyed), in
   NULL with n > 0, in not aligned to its type, the accumulator (R for plain operations) larger
   than plan.value_bytes, n above the accumulator's max_count.
   cudaErrorInvalidDevice when the current device is not the plan's. Errors of the launch
   itself (cudaLaunchKernel's) are returned as they are. Nothing is launched on an error.

   LIMITS  n up to 2^64 - 1 elements (size_t counts; beyond one wave each thread loops).
   The input is read through the read-only cache, 4 loads in flight per thread: it must not
   change while the call runs, and `in` must be aligned to alignof(T) (any 16-byte alignment:
   up to 15 bytes of head and tail go through single-element loads).

   COST  One launch of blocks of WARPRED_DEVICE_THREADS (256) threads, at most one wave of the
   kernel at hand (a transform or value type that needs more registers than the float sum fits
   fewer blocks per SM, and gets fewer; the occupancy is asked once per kernel); below that,
   one block per 4096 elements of 4 bytes (4 loads of 16 bytes per thread). The blocks' values
   meet in grid_reduce.cuh's fold: the last block to finish folds them. Figures against CUB:
   docs/BENCHMARKS.md.
   On the host a call costs the argument checks (compares), one cudaGetDevice (to refuse a
   plan of another device: the current device may change between calls, so it cannot be
   cached) and cudaLaunchKernel; the kernel's occupancy is asked once per kernel and device
   and kept in a static. bench_tail prints the host time per call beside a bare launch.

   This header needs device_reduce_kernel.cuh, transforms.cuh, grid_reduce.cuh, grid_scratch.h,
   block_reduce.cuh, warp_reduce.cuh, ops.cuh and its base beside it (README: Copying a header;
   and op_*.cuh for the compound operations). Under NVRTC only the kernel is compiled.
*/
#ifndef WARPRED_DEVICE_REDUCE_CUH
#define WARPRED_DEVICE_REDUCE_CUH

#include "device_reduce_kernel.cuh"

#ifndef __CUDACC_RTC__
#    include <stddef.h>
#    include <string.h>
#    include <cuda_runtime.h>

typedef struct warpred_device_plan {
    warpred_grid_scratch scratch; /* partials: max_blocks values of up to value_bytes each */
    unsigned max_blocks;          /* blocks of the float-sum kernel resident on the device at once */
    unsigned value_bytes;         /* the largest reduced value this plan serves */
    int device;                   /* the device the scratch lives on */
    unsigned sms;                 /* its multiprocessors */
} warpred_device_plan;

/* The plan's scratch and grid limit for the current device. value_bytes 0 means 64. On error
   *plan is zeroed and nothing stays allocated. */
static inline cudaError_t warpred_device_plan_create(warpred_device_plan *plan, unsigned value_bytes, const char **why)
{
    const char *ignored;
    int device = 0, sms = 0, per_sm = 0;
    cudaError_t err;
    if (!why) why = &ignored;
    *why = "no error";
    if (!plan) {
        *why = "warpred_device_plan_create: plan is NULL";
        return cudaErrorInvalidValue;
    }
    memset(plan, 0, sizeof *plan);
    err = cudaGetDevice(&device);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (err == cudaSuccess)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, warpred__device_reduce_kernel<float, float, warpred_op_sum, warpred_xf_identity>,
            WARPRED_DEVICE_THREADS, 0);
    if (err != cudaSuccess) {
        *why = cudaGetErrorString(err);
        return err;
    }
    plan->value_bytes = value_bytes ? value_bytes : 64;
    plan->max_blocks = (unsigned)(sms > 0 ? sms : 1) * (unsigned)(per_sm > 0 ? per_sm : 1);
    plan->device = device;
    plan->sms = (unsigned)(sms > 0 ? sms : 1);
    err = warpred_grid_scratch_create(&plan->scratch, plan->max_blocks, plan->value_bytes, why);
    if (err != cudaSuccess) memset(plan, 0, sizeof *plan);
    return err;
}

static inline cudaError_t warpred_device_plan_destroy(warpred_device_plan *plan)
{
    cudaError_t err;
    if (!plan) return cudaErrorInvalidValue;
    err = warpred_grid_scratch_destroy(&plan->scratch);
    memset(plan, 0, sizeof *plan);
    return err;
}

/* Blocks for n elements of elem_bytes: one per WARPRED_DEVICE_THREADS * WARPRED_DEVICE_LOADS
   loads (of 16 bytes, or of one larger element), at least 1, at most plan->max_blocks (beyond
   that the threads loop). */
static inline unsigned warpred_device_blocks(const warpred_device_plan *plan, size_t n, size_t elem_bytes)
{
    const size_t per_load = elem_bytes > 0 && elem_bytes <= 16 ? 16 / elem_bytes : 1;
    const size_t per_block = (size_t)WARPRED_DEVICE_THREADS * WARPRED_DEVICE_LOADS * per_load;
    const size_t blocks = n / per_block + (n % per_block != 0);
    if (blocks < 1) return 1;
    return blocks < plan->max_blocks ? (unsigned)blocks : plan->max_blocks;
}

/* At most one wave of this kernel: kernels with more registers than the float sum's (compound
   values, transforms) fit fewer blocks per SM, and a second, partial wave would cost a third of
   the time at large n. Asked once per kernel (the answer depends on the kernel and the arch). */
template <typename Kernel>
static inline unsigned warpred__device_grid(const warpred_device_plan *plan, Kernel kernel, size_t n, size_t elem_bytes)
{
    enum { DEVICES = 64 };
    static int cached[DEVICES]; /* per device: GPUs of different models answer differently */
    int per_sm = plan->device >= 0 && plan->device < DEVICES ? cached[plan->device] : 0;
    if (per_sm == 0) {
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, WARPRED_DEVICE_THREADS, 0) != cudaSuccess) {
            cudaGetLastError(); /* not sticky; fall back to the plan's limit, and ask again next time */
            per_sm = -1;
        } else if (plan->device >= 0 && plan->device < DEVICES) {
            cached[plan->device] = per_sm; /* host threads racing here all store the same value */
        }
    }
    const unsigned blocks = warpred_device_blocks(plan, n, elem_bytes);
    const unsigned resident = per_sm > 0 ? plan->sms * (unsigned)per_sm : plan->max_blocks;
    return blocks < resident ? blocks : resident;
}

/* The argument checks shared by every entry point: NULL when the call may go ahead, else the
   message (*err set). All but the last are compares; the last, cudaGetDevice, is the one
   runtime call besides the launch (a read of the runtime's per-thread state: the current
   device can change between calls, so it cannot be cached). */
static inline const char *warpred__device_check(const warpred_device_plan *plan, const void *in, size_t n,
                                                size_t in_align, const void *out, size_t state_bytes,
                                                unsigned long long max_count, cudaError_t *err)
{
    int device = -1;
    *err = cudaErrorInvalidValue;
    if (!plan) return "warpred_device_reduce: plan is NULL";
    if (!out) return "warpred_device_reduce: out is NULL";
    if (!plan->scratch.partials || !plan->scratch.counter || plan->max_blocks == 0)
        return "warpred_device_reduce: the plan was not created (or was destroyed): call warpred_device_plan_create";
    if (!in && n > 0) return "warpred_device_reduce: in is NULL and n > 0";
    if ((size_t)in % in_align != 0) return "warpred_device_reduce: in is not aligned to its type (alignof(T))";
    if (state_bytes > plan->value_bytes)
        return "warpred_device_reduce: the result (or the operation's accumulator) is larger than the plan's "
               "value_bytes "
               "(create the plan with value_bytes >= its size; 0 means 64)";
    if (n > max_count)
        return "warpred_device_reduce: n is larger than the operation's max_count (e.g. warpred_rsum_max_count)";
    *err = cudaGetDevice(&device);
    if (*err != cudaSuccess) return cudaGetErrorString(*err);
    if (device != plan->device) {
        *err = cudaErrorInvalidDevice;
        return "warpred_device_reduce: the current device is not the one the plan was created on";
    }
    *err = cudaSuccess;
    return NULL;
}

template <typename T, typename R, typename Op, typename F>
static inline cudaError_t warpred_device_transform_reduce(const warpred_device_plan *plan, const T *in, size_t n,
                                                          R *out, Op op, F f, cudaStream_t stream = 0,
                                                          const char **why = NULL)
{
    typedef warpred_op_accumulator<Op, R> Acc;
    typedef typename Acc::type A; /* what the blocks' partials hold */
    const char *ignored;
    cudaError_t err;
    if (!why) why = &ignored;
    if constexpr (!(warpred__value_ok<R>() && warpred__value_ok<A>() && warpred__identity_ok<Op, A>())) {
        *why = "warpred_device_reduce: the value type or operation was rejected at compile time";
        return cudaErrorInvalidValue; /* not reached: the static_assert above stops the build */
    } else {
        *why = warpred__device_check(plan, in, n, alignof(T), out, sizeof(A), Acc::max_count, &err);
        if (*why) return err;
        /* cudaLaunchKernel rather than <<< >>>: its result is this launch's own error (no
           cudaGetLastError after it, which would also hand back an older error of the caller's) */
        if (n == 0) {
            void *args[] = {(void *)&out, (void *)&op};
            err = cudaLaunchKernel(warpred__device_identity_kernel<R, Op>, dim3(1), dim3(1), args, 0, stream);
        } else {
            void (*kernel)(const T *, size_t, warpred_grid_scratch, R *, Op, F) =
                warpred__device_reduce_kernel<T, R, Op, F>;
            warpred_grid_scratch scratch = plan->scratch;
            void *args[] = {(void *)&in, (void *)&n, (void *)&scratch, (void *)&out, (void *)&op, (void *)&f};
            err = cudaLaunchKernel(kernel, dim3(warpred__device_grid(plan, kernel, n, sizeof(T))),
                                   dim3(WARPRED_DEVICE_THREADS), args, 0, stream);
        }
        if (err != cudaSuccess) {
            cudaGetLastError(); /* the failed launch also set the runtime's last error: returned here instead */
            *why = cudaGetErrorString(err);
            return err;
        }
        *why = "no error";
        return cudaSuccess;
    }
}

template <typename T, typename R, typename Op>
static inline cudaError_t warpred_device_reduce(const warpred_device_plan *plan, const T *in, size_t n, R *out, Op op,
                                                cudaStream_t stream = 0, const char **why = NULL)
{
    return warpred_device_transform_reduce(plan, in, n, out, op, warpred_xf_identity(), stream, why);
}

template <typename T>
static inline cudaError_t warpred_device_sum(const warpred_device_plan *plan, const T *in, size_t n, T *out,
                                             cudaStream_t stream = 0, const char **why = NULL)
{
    return warpred_device_transform_reduce(plan, in, n, out, warpred_op_sum(), warpred_xf_identity(), stream, why);
}
#endif /* __CUDACC_RTC__ */

#endif /* WARPRED_DEVICE_REDUCE_CUH */
