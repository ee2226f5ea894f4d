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

       warpred_device_plan plan;
       const char *why;
       if (warpred_device_plan_create(&plan, 0, &why) != cudaSuccess)   // once per device
           fprintf(stderr, "plan: %s\n", why);
       // x = {1, 2, 3, 4, 5}, t = {0, 2, 3, 4, 7}: device arrays of floats; out: device memory
       warpred_device_sum(&plan, x, 5, out_f);                                     // 15
       warpred_device_reduce(&plan, x, 5, out_f, warpred_op_max());               // 5
       warpred_device_reduce(&plan, x, 5, out_d, warpred_op_sum(),
                             warpred_xf_to<double>());                            // 15.0 (double)
       squared_error se = {t};
       warpred_device_reduce(&plan, x, 5, out_f, warpred_op_sum(), se, stream);   // 5 (1 + 4)
       if (warpred_device_reduce(&plan, x, 5, (float *)NULL, warpred_op_sum(), stream, &why)
           != cudaSuccess)
           fprintf(stderr, "%s\n", why);      // "warpred_device_reduce: out is NULL"
       warpred_device_plan_destroy(&plan);

   (This snippet is compiled and checked in tests/test_device_reduce.cu.)

   THE CALLS (host functions; out is device memory; every pointer is device memory)
     warpred_device_plan_create(&plan, value_bytes, &why)   allocates the scratch for the
         current device: room for one partial per block of a full wave, each of up to
         value_bytes bytes (0: 64 bytes, enough for every scalar and single compound value;
         a tuple of compound values may need more: the call then fails with a message).
         The scratch's counter is zeroed here, once, and the call waits for that (a
         synchronization, as with any create).
     warpred_device_reduce(&plan, in, n, out, op, f, stream = 0, &why = NULL)
         *out = op over f(in[i], i), i in [0, n). The accumulator and *out have the type R of
         out: f's result converts to R (so float input, double out and warpred_xf_identity
         accumulate in double).
     warpred_device_reduce(&plan, in, n, out, op, stream = 0, &why = NULL)
         the same with f = warpred_xf_identity: each element converts to R.
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

   TRANSFORMS  function objects with  __device__ R operator()(T x, size_t i) const, i the
   element's index. A transform may hold state (pointers to other arrays, thresholds):
     warpred_xf_identity     x
     warpred_xf_to<R>()      (R)x; __half and __nv_bfloat16 go through float
   and, beside their operations in the op_*.cuh headers (include the header too):
     warpred_xf_arg          {x, i} as warpred_arg<T, long long>, for warpred_op_argmax & co.
     warpred_xf_welford<>    warpred_welford<T> of one x, for warpred_op_welford
                             (warpred_xf_welford<double>: float input, double summaries)
     warpred_xf_softmax      warpred_softmax<T> of one x, for warpred_op_softmax
   The reproducible sum of op_rsum.cuh needs no transform: warpred_device_reduce(&plan, x, n,
   out, warpred_op_rsum()) with out a float * or double * writes the rounded sum (the same bits
   for any grid, alignment or GPU), with out a warpred_rsum<F> * the accumulator itself (to merge
   with other GPUs' results). n may not exceed warpred_rsum_max_count (2^34 - 2^17).

   OPERATIONS AND VALUE TYPES  every operation of ops.cuh and of the op_*.cuh headers, and
   your own, which needs a  template <typename T> static __device__ T identity()  besides its
   operator() (see ops.cuh). An operation whose running state is not a value of R (as
   warpred_op_rsum) declares  enum { absorbs = 1 },  a member template accumulator<R>::type (the
   state A), static absorb(A &, V) (one transformed element in), static finish<R>(A) (the state
   out, as R) and max_count (the most elements it takes); the layers then reduce A. R: int, unsigned, long long, unsigned long long, float, double,
   __half, __nv_bfloat16 and the compound types of op_*.cuh, at most plan.value_bytes bytes.
   T (the input) may be any type of 1, 2, 4 or 8 bytes that f accepts, such as unsigned char
   with a transform to int.

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
   NULL with n > 0, in not aligned to its type, R (or the operation's accumulator) larger than
   plan.value_bytes, n above the operation's max_count.
   cudaErrorInvalidDevice when the current device is not the plan's. Errors of the launch
   itself (cudaLaunchKernel's) are returned as they are. Nothing is launched on an error.

   LIMITS  n up to 2^64 - 1 elements (size_t counts; beyond one wave each thread loops).
   The input is read with 16-byte loads through the read-only cache, 4 in flight per thread:
   it must not change while the call runs, and `in` must be aligned to sizeof(T) (any 16-byte
   alignment: up to 15 bytes of head and tail go through scalar loads).

   COST  One launch of blocks of WARPRED_DEVICE_THREADS (256) threads, at most one wave of the
   kernel at hand (a transform or value type that needs more registers than the float sum fits
   fewer blocks per SM, and gets fewer; the occupancy is asked once per kernel); below that,
   one block per 4096 elements of 4 bytes (4 loads of 16 bytes per thread). The blocks' values
   meet in warpred_grid_reduce (grid_reduce.cuh): the last block to finish folds them.
   (figures: README, `make bench`; H100, 2026-11-21, float sum: 7.4 us at 2^10, 9.6 us
   at 2^20 (1.38x CUB 3.0.1), 14.4 us at 2^22 (1.20x), 1402 us at 2^30 (99.9% of a read kernel))
   On the host a call costs the argument checks (compares), one cudaGetDevice (to refuse a
   plan of another device: the current device may change between calls, so it cannot be
   cached) and cudaLaunchKernel; the kernel's occupancy is asked once per kernel and device
   and kept in a static. bench_tail prints the host time per call beside a bare launch.

   This header needs grid_reduce.cuh, grid_scratch.h, block_reduce.cuh, warp_reduce.cuh and
   ops.cuh beside it (and op_*.cuh for the compound operations). The device part compiles
   under NVRTC; the host functions are left out there.
*/
#ifndef WARPRED_DEVICE_REDUCE_CUH
#define WARPRED_DEVICE_REDUCE_CUH

#include "grid_reduce.cuh"
#ifndef __CUDACC_RTC__
#  include <string.h> /* memcpy, which NVRTC has built in */
#endif

enum {
    WARPRED_DEVICE_THREADS = 256, /* block size of warpred_device_reduce's kernel */
    WARPRED_DEVICE_LOADS = 4      /* 16-byte loads in flight per thread */
};

/* ---- transforms ---- */

/* 16-bit floats convert through float (exact); everything else directly. */
template <typename R, typename T> __device__ __forceinline__ R warpred__device_convert(T x) { return (R)x; }
#if defined(__CUDA_FP16_TYPES_EXIST__)
template <typename R> __device__ __forceinline__ R warpred__device_convert(__half x) { return (R)__half2float(x); }
#endif
#if defined(__CUDA_BF16_TYPES_EXIST__)
template <typename R> __device__ __forceinline__ R warpred__device_convert(__nv_bfloat16 x) { return (R)__bfloat162float(x); }
#endif

struct warpred_xf_identity {
    template <typename T> __device__ __forceinline__ T operator()(T x, size_t) const { return x; }
};

template <typename R> struct warpred_xf_to {
    template <typename T> __device__ __forceinline__ R operator()(T x, size_t) const { return warpred__device_convert<R>(x); }
};

/* ---- the kernel ---- */

/* What a thread's accumulator starts from: op's identity, except -0 for floating-point sums
   (-0 + x == x for every x, -0 included, where +0 + -0 == +0). */
template <typename Op, typename R> struct warpred__device_start {
    static __device__ __forceinline__ R value(void) { return Op::template identity<R>(); }
};
template <> struct warpred__device_start<warpred_op_sum, float> {
    static __device__ __forceinline__ float value(void) { return __int_as_float((int)0x80000000u); }
};
template <> struct warpred__device_start<warpred_op_sum, double> {
    static __device__ __forceinline__ double value(void) { return __longlong_as_double((long long)0x8000000000000000ull); }
};
#if defined(__CUDA_FP16_TYPES_EXIST__)
template <> struct warpred__device_start<warpred_op_sum, __half> {
    static __device__ __forceinline__ __half value(void) { return __ushort_as_half((unsigned short)0x8000u); }
};
#endif
#if defined(__CUDA_BF16_TYPES_EXIST__)
template <> struct warpred__device_start<warpred_op_sum, __nv_bfloat16> {
    static __device__ __forceinline__ __nv_bfloat16 value(void) { return __ushort_as_bfloat16((unsigned short)0x8000u); }
};
#endif

/* The K = 16 / sizeof(T) elements of one 16-byte load, first of them at index `first`,
   transformed and combined pairwise: ((e0 e1) (e2 e3)) for K = 4. Pairing first leaves one
   dependent op per load on the thread's running accumulator. */
template <typename T, typename R, typename Op, typename F>
__device__ __forceinline__ R warpred__device_vector(uint4 raw, size_t first, Op op, F f)
{
    enum { K = 16 / sizeof(T) };
    T e[K];
    memcpy(e, &raw, 16); /* registers only: the compiler turns this into moves */
    R r[K];
#pragma unroll
    for (int j = 0; j < K; j++) r[j] = (R)f(e[j], first + j);
#pragma unroll
    for (int s = 1; s < K; s *= 2)
#pragma unroll
        for (int j = 0; j < K; j += 2 * s) r[j] = op(r[j], r[j + s]);
    return r[0];
}

/* Operations whose running state differs from their inputs (warpred_op_rsum: an accumulator
   that takes values one at a time) declare `absorbs`, an accumulator<R> type, absorb() and
   finish<R>(); every other operation combines transformed elements with op itself. */
template <typename Op, typename = void> struct warpred__absorbs { enum { value = 0 }; };
template <typename Op> struct warpred__absorbs<Op, decltype((void)Op::absorbs)> { enum { value = 1 }; };

template <typename Op, typename R, bool = warpred__absorbs<Op>::value> struct warpred__device_acc { typedef R type; };
template <typename Op, typename R> struct warpred__device_acc<Op, R, true> { typedef typename Op::template accumulator<R>::type type; };

/* One transformed element into the thread's accumulator. */
template <typename A, typename Op, typename V> __device__ __forceinline__ void warpred__device_take(A &acc, Op op, V v)
{
    if constexpr (warpred__absorbs<Op>::value) Op::absorb(acc, v);
    else acc = op(acc, (A)v);
}

/* The K elements of one 16-byte load: paired by op, or absorbed one by one. */
template <typename T, typename A, typename Op, typename F>
__device__ __forceinline__ void warpred__device_take_vector(A &acc, uint4 raw, size_t first, Op op, F f)
{
    if constexpr (warpred__absorbs<Op>::value) {
        enum { K = 16 / sizeof(T) };
        T e[K];
        memcpy(e, &raw, 16);
#pragma unroll
        for (int j = 0; j < K; j++) Op::absorb(acc, f(e[j], first + j));
    } else {
        acc = op(acc, warpred__device_vector<T, A>(raw, first, op, f));
    }
}

template <typename A, typename Op> __device__ __forceinline__ A warpred__device_empty(void)
{
    if constexpr (warpred__absorbs<Op>::value) return Op::template identity<A>();
    else return warpred__device_start<Op, A>::value();
}

/* This thread's share of f(in[i], i), i < n: scalar loads up to the first 16-byte boundary
   (the head), a grid-stride loop of 16-byte loads with WARPRED_DEVICE_LOADS in flight, scalar
   loads for the rest (the tail). A thread with no element returns the start value. */
template <typename T, typename R, typename Op, typename F>
__device__ __forceinline__ R warpred__device_thread_reduce(const T *__restrict__ in, size_t n, Op op, F f)
{
    enum { K = 16 / sizeof(T), U = WARPRED_DEVICE_LOADS };
    const size_t g = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t G = (size_t)gridDim.x * blockDim.x;
    const size_t misalign = ((size_t)in % 16) / sizeof(T);
    size_t head = misalign ? K - misalign : 0;
    if (head > n) head = n;
    R acc = warpred__device_empty<R, Op>();
    if (g < head) warpred__device_take(acc, op, f(in[g], g));

    const uint4 *__restrict__ vec = (const uint4 *)(in + head);
    const size_t nv = (n - head) / K;
    size_t i = g;
    for (; i + (U - 1) * G < nv; i += U * G) {
        uint4 raw[U];
#pragma unroll
        for (int u = 0; u < U; u++) raw[u] = __ldg(&vec[i + u * G]); /* all loads first */
#pragma unroll
        for (int u = 0; u < U; u++) warpred__device_take_vector<T>(acc, raw[u], head + (i + u * G) * K, op, f);
    }
    for (; i < nv; i += G) warpred__device_take_vector<T>(acc, __ldg(&vec[i]), head + i * K, op, f);

    const size_t tail = head + nv * K;
    if (g < n - tail) warpred__device_take(acc, op, f(in[tail + g], tail + g));
    return acc;
}

template <typename T, typename R, typename Op, typename F>
__global__ void __launch_bounds__(WARPRED_DEVICE_THREADS)
warpred__device_reduce_kernel(const T *__restrict__ in, size_t n, warpred_grid_scratch scratch, R *out, Op op, F f)
{
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
                  "warpred_device_reduce: the input type must have 1, 2, 4 or 8 bytes");
    typedef typename warpred__device_acc<Op, R>::type A;
    const A acc = warpred__device_thread_reduce<T, A>(in, n, op, f);
    if constexpr (warpred__absorbs<Op>::value) {
        /* the accumulator lands in partial 0 (read already by the last block), then converts */
        A *slot = (A *)scratch.partials;
        if (warpred_grid_reduce<WARPRED_DEVICE_THREADS>(acc, op, scratch, slot)) *out = Op::template finish<R>(*slot);
    } else {
        warpred_grid_reduce<WARPRED_DEVICE_THREADS>(acc, op, scratch, out);
    }
}

template <typename R, typename Op> __global__ void warpred__device_identity_kernel(R *out, Op)
{
    typedef typename warpred__device_acc<Op, R>::type A;
    if constexpr (warpred__absorbs<Op>::value) *out = Op::template finish<R>(Op::template identity<A>());
    else *out = Op::template identity<R>();
}

/* ---- host side ---- */
#ifndef __CUDACC_RTC__
#include <stddef.h>
#include <cuda_runtime.h>

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
            &per_sm, warpred__device_reduce_kernel<float, float, warpred_op_sum, warpred_xf_identity>, WARPRED_DEVICE_THREADS, 0);
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
   16-byte loads, at least 1, at most plan->max_blocks (beyond that the threads loop). */
static inline unsigned warpred_device_blocks(const warpred_device_plan *plan, size_t n, size_t elem_bytes)
{
    const size_t per_block = (size_t)WARPRED_DEVICE_THREADS * WARPRED_DEVICE_LOADS * (16 / elem_bytes);
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

template <bool B, typename T> struct warpred__device_enable_if {};
template <typename T> struct warpred__device_enable_if<true, T> { typedef T type; };
/* Transforms are function objects (lambdas included), never a stream or a 0: this keeps
   warpred_device_reduce(plan, in, n, out, op, 0) on the overload without a transform. */
template <typename F> struct warpred__device_is_class { enum { value = __is_class(F) }; };

/* The argument checks shared by every entry point: NULL when the call may go ahead, else the
   message (*err set). All but the last are compares; the last, cudaGetDevice, is the one
   runtime call besides the launch (a read of the runtime's per-thread state: the current
   device can change between calls, so it cannot be cached). */
static inline const char *warpred__device_check(const warpred_device_plan *plan, const void *in, size_t n, size_t in_align,
                                                const void *out, size_t out_bytes, cudaError_t *err)
{
    int device = -1;
    *err = cudaErrorInvalidValue;
    if (!plan) return "warpred_device_reduce: plan is NULL";
    if (!out) return "warpred_device_reduce: out is NULL";
    if (!plan->scratch.partials || !plan->scratch.counter || plan->max_blocks == 0)
        return "warpred_device_reduce: the plan was not created (or was destroyed): call warpred_device_plan_create";
    if (!in && n > 0) return "warpred_device_reduce: in is NULL and n > 0";
    if ((size_t)in % in_align != 0) return "warpred_device_reduce: in is not aligned to sizeof(T)";
    if (out_bytes > plan->value_bytes)
        return "warpred_device_reduce: the result type is larger than the plan's value_bytes "
               "(create the plan with value_bytes >= sizeof(result), or 0 for 32)";
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
static inline typename warpred__device_enable_if<warpred__device_is_class<F>::value, cudaError_t>::type
warpred_device_reduce(const warpred_device_plan *plan, const T *in, size_t n, R *out, Op op, F f, cudaStream_t stream = 0,
                      const char **why = NULL)
{
    typedef typename warpred__device_acc<Op, R>::type A; /* what the blocks' partials hold */
    const char *ignored;
    cudaError_t err;
    if (!why) why = &ignored;
    if constexpr (warpred__absorbs<Op>::value) {
        if (n > Op::max_count) {
            *why = "warpred_device_reduce: n is larger than the operation's max_count (warpred_rsum_max_count)";
            return cudaErrorInvalidValue;
        }
    }
    *why = warpred__device_check(plan, in, n, sizeof(T), out, sizeof(A), &err); /* the vector path needs sizeof(T) */
    if (*why) return err;
    /* cudaLaunchKernel rather than <<< >>>: its result is this launch's own error (no
       cudaGetLastError after it, which would also hand back an older error of the caller's) */
    if (n == 0) {
        void *args[] = {(void *)&out, (void *)&op};
        err = cudaLaunchKernel(warpred__device_identity_kernel<R, Op>, dim3(1), dim3(1), args, 0, stream);
    } else {
        void (*kernel)(const T *, size_t, warpred_grid_scratch, R *, Op, F) = warpred__device_reduce_kernel<T, R, Op, F>;
        warpred_grid_scratch scratch = plan->scratch;
        void *args[] = {(void *)&in, (void *)&n, (void *)&scratch, (void *)&out, (void *)&op, (void *)&f};
        err = cudaLaunchKernel(kernel, dim3(warpred__device_grid(plan, kernel, n, sizeof(T))), dim3(WARPRED_DEVICE_THREADS), args, 0, stream);
    }
    if (err != cudaSuccess) {
        cudaGetLastError(); /* the failed launch also set the runtime's last error: returned here instead */
        *why = cudaGetErrorString(err);
        return err;
    }
    *why = "no error";
    return cudaSuccess;
}

template <typename T, typename R, typename Op>
static inline cudaError_t warpred_device_reduce(const warpred_device_plan *plan, const T *in, size_t n, R *out, Op op,
                                                cudaStream_t stream = 0, const char **why = NULL)
{
    return warpred_device_reduce(plan, in, n, out, op, warpred_xf_identity(), stream, why);
}

template <typename T>
static inline cudaError_t warpred_device_sum(const warpred_device_plan *plan, const T *in, size_t n, T *out,
                                             cudaStream_t stream = 0, const char **why = NULL)
{
    return warpred_device_reduce(plan, in, n, out, warpred_op_sum(), warpred_xf_identity(), stream, why);
}
#endif /* __CUDACC_RTC__ */

#endif /* WARPRED_DEVICE_REDUCE_CUH */
