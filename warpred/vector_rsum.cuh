/* warpred/vector_rsum.cuh - element-wise sums of several vectors with the same bits on any
   number of GPUs, in any grouping: the reproducible all-reduce of gradients.   MIT licensed.

   K contribution vectors of m elements (float, __half or __nv_bfloat16; say the gradients of 16
   micro-batches) are spread over P GPUs, each GPU holding any number of them. Every GPU ends
   with out[i] = the sum over the K vectors of v[i], as a float, whose bits depend only on the
   set of K vectors: not on P, on which GPU holds which vector, on the order of anything, or on
   how the exchange between GPUs (NCCL's algorithm, channels, message size) adds. It is an
   exact integer sum per element: a max fixes each element's scale, the values become 64-bit
   fixed-point integers at that scale, integer sums are exact in any order, and one rounding
   makes the float. Between GPUs only a max of bytes and a sum of 64-bit integers travel, both
   exact in NCCL (ncclUint8 / ncclMax, ncclInt64 / ncclSum).

     warpred_vector_rsum_exponents(v, k, m, emax)      host: emax[i] = max over this GPU's k
                                                       vectors of the exponent byte of v[i]
        -> all-reduce emax with max (ncclAllReduce(emax, emax, m, ncclUint8, ncclMax, ...))
     warpred_vector_rsum_fixed(v, k, m, emax, sum)     host: sum[i] = the sum over this GPU's k
                                                       vectors of v[i] as integers at emax[i]'s
                                                       scale (one pass over all k: converted and
                                                       summed in registers)
        -> all-reduce sum (ncclAllReduce(sum, sum, m, ncclInt64, ncclSum, ...))
     warpred_vector_rsum_finish(sum, emax, m, out)     host: out[i] = the float of sum[i]
   and the per-element device functions behind them, to fuse into kernels of your own (convert
   while you compute a gradient, finish inside the optimizer step):
     warpred_vector_rsum_exponent(x)                   x's exponent byte (0 .. 255)
     warpred_vector_rsum_to_fixed(x, e)                x as an integer at the scale of an element
                                                       whose exponent byte (over all K) is e
     warpred_vector_rsum_value(s, e)                   the float of an element's integer sum s
     warpred_vector_rsum_max_count                     K may be at most 65536 (2^16)

   USAGE
       #include <warpred/vector_rsum.cuh>

       // v: a host array of k device pointers, each to m floats; emax (m bytes), sum (m long
       // longs) and out (m floats): device memory. One GPU holding all k vectors needs no
       // exchange; with several GPUs each runs this with its own vectors and the two
       // all-reduces in the comments run where they stand.
       static cudaError_t sum_vectors(const float *const *v, int k, size_t m, unsigned char *emax,
                                      long long *sum, float *out, cudaStream_t s)
       {
           const char *why;
           cudaError_t err = warpred_vector_rsum_exponents(v, k, m, emax, s, &why);
           // several GPUs: ncclAllReduce(emax, emax, m, ncclUint8, ncclMax, comm, s);
           if (err == cudaSuccess) err = warpred_vector_rsum_fixed(v, k, m, emax, sum, s, &why);
           // several GPUs: ncclAllReduce(sum, sum, m, ncclInt64, ncclSum, comm, s);
           if (err == cudaSuccess) err = warpred_vector_rsum_finish(sum, emax, m, out, s, &why);
           if (err != cudaSuccess) fprintf(stderr, "sum_vectors: %s\n", why);
           return err;
       }
       // vectors {1e8, 1}, {1, 2^-24}, {-1e8, 2^-24}: out = {1, 1.00000012 (1 + 2^-23)}, on any
       // number of GPUs in any grouping; a float sum in this order gives {0, 1}

   (This snippet is compiled and checked in tests/test_vector_rsum.cu; samples/multi_gpu_sum runs
   the sequence over NCCL.)

   SEMANTICS  (per element i; "the K values" are v[i] of every vector on every GPU)
     - The result depends only on the multiset of the K values. k = 0 on a GPU is fine (it
       contributes nothing: emax and sum get zeros).
     - NaN among the K values: NaN (canonical, 0x7fffffff). +inf and -inf both present: NaN.
       Otherwise an infinity among them gives that infinity. (The exponent byte of a non-finite
       value is 255, so after the max every GPU knows the element is special; its integers then
       count NaNs, +infs and -infs instead of adding values: 1, 2^21 and 2^42 per value.)
     - A zero total is +0, also when every value is -0. Subnormal values count in full; the
       result never depends on -ftz or --use_fast_math (all conversions are integer operations).
     - Finite values never overflow the integers (16 bits of headroom above the scale of the
       largest value, for K <= 2^16). A total beyond float's range rounds to +-inf.
   SCALE  Let e be the element's exponent byte after the max (the largest biased float exponent
     among the K values; 0 for zeros and subnormals) and g = max(max(e, 1) - 173, -149). Every
     |x| < 2^(max(e, 1) - 126), so |x| / 2^g < 2^(63 - 16): K <= 2^16 such integers sum below
     2^63. A value becomes q(x) = sign(x) * (floor(|x| / 2^g), with its last bit set when
     anything was cut off): truncation "to odd", decided by x and e alone. The result is the
     float nearest (ties to even) to (sum of the q) * 2^g: one rounding.
   ACCURACY  For an element whose K values are finite, with largest magnitude M:
       |result - exact sum| <= 1/2 ulp(result) + K_cut * 2^g  <  1/2 ulp(result) + K * M * 2^-46
     (K_cut: the values that lost bits, each by less than one step 2^g; 2^g <= M * 2^-46 unless g
     is clamped at -149, where nothing is cut.) Exact cases:
       - values whose lowest set bit is at least 2^g (every value within 2^23 of M in magnitude,
         i.e. exponent at most 23 below M's, and every value when M < 2^-103) are summed exactly,
         and the result is the correctly rounded exact sum;
       - K = 1 gives the value itself, K = 2 the correctly rounded sum of the two (as a float
         addition does): the largest value is exact and its integer even, so the odd truncation
         of the other keeps the final rounding on the side of the exact sum.
     Against a float sum of the K values in a fixed order (recursive summation, error up to
     (K - 1) * 2^-24 * sum|x| to first order): for K <= 2 both are correctly rounded; for K >= 3
     this bound is smaller, since 1/2 ulp(result) <= 2^-24 * sum|x| and K * M * 2^-46 <=
     (K - 2) * 2^-24 * sum|x|. (tests/test_vector_rsum.cu checks every result against an exact
     host sum with this bound, and prints the largest errors of both.)

   PRECONDITIONS  At most warpred_vector_rsum_max_count (2^16) values per element over all GPUs
   (each call checks its own k; the total is the caller's to keep). The same emax on every GPU
   when converting, and no value whose exponent byte exceeds its element's emax (what the max
   all-reduce guarantees; WARPRED_ASSERT checks it in warpred_vector_rsum_to_fixed). The vectors
   must not change between the two passes.

   THE CALLS (host; every pointer but v is device memory; v is a host array of k device pointers)
     warpred_vector_rsum_exponents(v, k, m, emax, stream = 0, &why = NULL)
     warpred_vector_rsum_fixed(v, k, m, emax, sum, stream = 0, &why = NULL)
     warpred_vector_rsum_finish(sum, emax, m, out, stream = 0, &why = NULL)
   T = float, __half or __nv_bfloat16 (converted exactly to float first). Each is one launch per
   WARPRED_VECTOR_RSUM_BATCH (16) vectors (more: further launches that take the max / add into
   what the first wrote), stream-ordered, no synchronization, no allocation, capturable in a
   CUDA graph. m == 0 launches nothing. out may not overlap sum or emax. They return cudaSuccess, or
   cudaErrorInvalidValue with *why saying what (k < 0 or k > max_count, v NULL with k > 0, a
   vector NULL or not aligned to its type, an output NULL with m > 0), or the launch's own error.
   When every vector is aligned to 4 elements (16 bytes for float), emax to 4 bytes and sum and
   out to 16 bytes, a thread takes 4 elements with vector loads; otherwise one element. The bits
   are the same either way.

   COST  exponents reads the k vectors (m * k * sizeof(T) bytes) and writes m bytes; fixed reads
   them again and writes 8 m bytes; finish reads 9 m bytes and writes 4 m. Between GPUs: m
   bytes (max) and 8 m bytes (sum): 2.25 times the bytes of a float all-reduce of the vector.
   Less with P GPUs: reduce-scatter the sums instead (ncclReduceScatter, ncclInt64, ncclSum),
   let each GPU finish only its share of the elements, and all-gather the floats (ncclFloat):
   the same bits, since the finish of an element depends on its sum and emax alone, for the
   traffic of an all-reduce of 7 bytes per element, and 1/P of the finish on each GPU.
   samples/multi_gpu_sum runs both ways and times them against ncclAllReduce.

   LIMITS  Output float only (a bf16 result: round the float). m up to 2^40. K up to 2^16 per
   element: more would need fewer bits of precision, which would change every result's bits.

   This header needs types.cuh, config.cuh and version.h beside it (README: Copying a header).
   Under NVRTC only the device functions and kernels are compiled; include cuda_fp16.h /
   cuda_bf16.h first for __half / __nv_bfloat16 input.
*/
#ifndef WARPRED_VECTOR_RSUM_CUH
#define WARPRED_VECTOR_RSUM_CUH

#include "types.cuh"
#ifndef __CUDACC_RTC__
#    include <string.h> /* memcpy, which NVRTC has built in */
#endif

enum {
    WARPRED_VECTOR_RSUM_HEADROOM = 16, /* bits above the largest value's scale: K <= 2^16 */
    WARPRED_VECTOR_RSUM_BATCH = 16,    /* vectors one launch takes */
    WARPRED_VECTOR_RSUM_THREADS = 256  /* block size of the kernels */
};
static const unsigned long long warpred_vector_rsum_max_count = 1ull << WARPRED_VECTOR_RSUM_HEADROOM;

enum {
    WARPRED__VRSUM_COUNT_BITS = 21, /* a non-finite element's integer: +inf, -inf, NaN counts */
    WARPRED__VRSUM_SUBNORMAL_GRID = -149
};

/* ---- per element ---- */

/* A value's float bit pattern (every input converts to float exactly). */
__device__ __forceinline__ unsigned warpred__vrsum_bits(float x) { return __float_as_uint(x); }
#if defined(__CUDA_BF16_TYPES_EXIST__)
__device__ __forceinline__ unsigned warpred__vrsum_bits(__nv_bfloat16 x)
{
    return (unsigned)__bfloat16_as_ushort(x) << 16; /* bf16 is float's top half */
}
#endif
#if defined(__CUDA_FP16_TYPES_EXIST__)
__device__ __forceinline__ unsigned warpred__vrsum_bits(__half x) { return __float_as_uint(__half2float(x)); }
#endif

template <typename T> struct warpred__vrsum_input {
    enum {
        ok = warpred__same<T, float>::value || (sizeof(T) == 2 && warpred__float_bits<T>::is_float),
        raw_bytes = 4 * sizeof(T)
    };
    static_assert(ok, "warpred_vector_rsum: the vectors hold float, __half or __nv_bfloat16");
};

/* log2 of the element's integer unit: g = max(max(e, 1) - 173, -149) (manual, SCALE). */
__device__ __forceinline__ int warpred__vrsum_grid(unsigned e)
{
    const int top = (e > 1 ? (int)e : 1) - 126; /* every |x| < 2^top */
    const int g = top - (63 - WARPRED_VECTOR_RSUM_HEADROOM);
    return g > WARPRED__VRSUM_SUBNORMAL_GRID ? g : WARPRED__VRSUM_SUBNORMAL_GRID;
}

template <typename T> __device__ __forceinline__ unsigned warpred_vector_rsum_exponent(T x)
{
    (void)warpred__vrsum_input<T>::ok;
    return (warpred__vrsum_bits(x) >> 23) & 0xffu;
}

template <typename T> __device__ __forceinline__ long long warpred_vector_rsum_to_fixed(T x, unsigned e)
{
    (void)warpred__vrsum_input<T>::ok;
    const unsigned u = warpred__vrsum_bits(x);
    const unsigned ex = (u >> 23) & 0xffu;
    WARPRED_ASSERT(ex <= e);
    if (e >= 255u) { /* a non-finite element: count the kinds, ignore the finite values */
        if (ex != 255u) return 0;
        if (u & 0x7fffffu) return 1ll << (2 * WARPRED__VRSUM_COUNT_BITS);
        return (u >> 31) ? 1ll << WARPRED__VRSUM_COUNT_BITS : 1ll;
    }
    const unsigned mant = (u & 0x7fffffu) | (ex ? 0x800000u : 0u);           /* |x| = mant * 2^(max(ex, 1) - 150) */
    const int shift = (ex > 1 ? (int)ex : 1) - 150 - warpred__vrsum_grid(e); /* <= 39 - HEADROOM = 23 when ex <= e */
    unsigned long long q;
    if (shift >= 0) q = (unsigned long long)mant << shift;
    else if (shift <= -24)
        q = mant != 0u; /* below one step: truncates to 0, and the cut-off bits make it odd */
    else
        q = (mant >> -shift) | ((mant & ((1u << -shift) - 1u)) != 0u);
    return (u >> 31) ? -(long long)q : (long long)q;
}

__device__ __forceinline__ float warpred_vector_rsum_value(long long s, unsigned e)
{
    if (e >= 255u) {
        const long long mask = (1ll << WARPRED__VRSUM_COUNT_BITS) - 1;
        const bool pos = (s & mask) != 0, neg = ((s >> WARPRED__VRSUM_COUNT_BITS) & mask) != 0;
        const bool nan = (s >> (2 * WARPRED__VRSUM_COUNT_BITS)) != 0;
        if (nan || pos == neg) return __uint_as_float(0x7fffffffu); /* pos == neg == 0: inconsistent input */
        return __uint_as_float(pos ? 0x7f800000u : 0xff800000u);
    }
    if (s == 0) return 0.0f; /* +0, whatever the signs of the zeros */
    const int g = warpred__vrsum_grid(e);
    const unsigned long long mag = s < 0 ? 0ull - (unsigned long long)s : (unsigned long long)s;
    const unsigned sign = s < 0 ? 0x80000000u : 0u;
    const int top = 63 - __clzll((long long)mag);
    unsigned bits;
    if (top + g < -126) {
        bits = (unsigned)(mag << (g + 149)); /* a subnormal: g >= -149 puts it on float's grid, exactly */
    } else {
        const unsigned f = __float_as_uint(__ull2float_rn(mag)); /* the one rounding */
        const int biased = (int)(f >> 23) + g;
        bits = biased >= 255 ? 0x7f800000u : (unsigned)((int)f + g * (1 << 23));
    }
    return __uint_as_float(bits | sign);
}
/* ---- the kernels behind the host calls ---- */

template <typename T> struct warpred__vrsum_batch {
    const T *v[WARPRED_VECTOR_RSUM_BATCH];
    int k;
};

/* 4 elements of one vector at 4 * sizeof(T)-byte alignment, through the read-only cache. */
template <typename T> __device__ __forceinline__ void warpred__vrsum_load4(const T *p, unsigned out[4])
{
    T e[4];
    if constexpr (sizeof(T) == 4) {
        const uint4 raw = __ldg((const uint4 *)p);
        memcpy(e, &raw, 16);
    } else {
        const uint2 raw = __ldg((const uint2 *)p);
        memcpy(e, &raw, 8);
    }
#pragma unroll
    for (int c = 0; c < 4; c++) out[c] = warpred__vrsum_bits(e[c]);
}

/* Each thread: elements 4t .. 4t+3 (VEC) and, for t < m % 4, the tail element 4 (m / 4) + t;
   or element t (not VEC). */
template <typename T, bool VEC>
__global__ void __launch_bounds__(WARPRED_VECTOR_RSUM_THREADS)
    warpred__vrsum_exponents_kernel(warpred__vrsum_batch<T> in, size_t m, unsigned char *emax, int accumulate)
{
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (VEC && t < m / 4) {
        unsigned e[4] = {0u, 0u, 0u, 0u};
        if (accumulate) {
            const uchar4 old = *(const uchar4 *)(emax + 4 * t);
            e[0] = old.x, e[1] = old.y, e[2] = old.z, e[3] = old.w;
        }
#pragma unroll
        for (int j = 0; j < WARPRED_VECTOR_RSUM_BATCH; j++) { /* static indices: the pointers stay parameters */
            if (j >= in.k) break;
            unsigned b[4];
            warpred__vrsum_load4(in.v[j] + 4 * t, b);
#pragma unroll
            for (int c = 0; c < 4; c++) {
                const unsigned x = (b[c] >> 23) & 0xffu;
                e[c] = x > e[c] ? x : e[c];
            }
        }
        *(uchar4 *)(emax + 4 * t) =
            make_uchar4((unsigned char)e[0], (unsigned char)e[1], (unsigned char)e[2], (unsigned char)e[3]);
    }
    const size_t i = VEC ? 4 * (m / 4) + t : t;
    if ((VEC && t < m % 4) || (!VEC && t < m)) {
        unsigned e = accumulate ? emax[i] : 0u;
#pragma unroll
        for (int j = 0; j < WARPRED_VECTOR_RSUM_BATCH; j++) {
            if (j >= in.k) break;
            const unsigned x = warpred_vector_rsum_exponent(in.v[j][i]);
            e = x > e ? x : e;
        }
        emax[i] = (unsigned char)e;
    }
}

template <typename T, bool VEC>
__global__ void __launch_bounds__(WARPRED_VECTOR_RSUM_THREADS)
    warpred__vrsum_fixed_kernel(warpred__vrsum_batch<T> in, size_t m, const unsigned char *emax, long long *sum,
                                int accumulate)
{
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (VEC && t < m / 4) {
        const uchar4 e4 = *(const uchar4 *)(emax + 4 * t);
        const unsigned e[4] = {e4.x, e4.y, e4.z, e4.w};
        long long s[4] = {0, 0, 0, 0};
        longlong2 *dst = (longlong2 *)(sum + 4 * t);
        if (accumulate) {
            const longlong2 a = dst[0], b = dst[1];
            s[0] = a.x, s[1] = a.y, s[2] = b.x, s[3] = b.y;
        }
#pragma unroll
        for (int j = 0; j < WARPRED_VECTOR_RSUM_BATCH; j++) {
            if (j >= in.k) break;
            unsigned b[4];
            warpred__vrsum_load4(in.v[j] + 4 * t, b);
#pragma unroll
            for (int c = 0; c < 4; c++) s[c] += warpred_vector_rsum_to_fixed(__uint_as_float(b[c]), e[c]);
        }
        dst[0] = make_longlong2(s[0], s[1]);
        dst[1] = make_longlong2(s[2], s[3]);
    }
    const size_t i = VEC ? 4 * (m / 4) + t : t;
    if ((VEC && t < m % 4) || (!VEC && t < m)) {
        const unsigned e = emax[i];
        long long s = accumulate ? sum[i] : 0;
#pragma unroll
        for (int j = 0; j < WARPRED_VECTOR_RSUM_BATCH; j++) {
            if (j >= in.k) break;
            s += warpred_vector_rsum_to_fixed(in.v[j][i], e);
        }
        sum[i] = s;
    }
}

template <bool VEC>
__global__ void __launch_bounds__(WARPRED_VECTOR_RSUM_THREADS)
    warpred__vrsum_finish_kernel(const long long *sum, const unsigned char *emax, size_t m, float *out)
{
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (VEC && t < m / 4) {
        const uchar4 e = *(const uchar4 *)(emax + 4 * t);
        const longlong2 a = ((const longlong2 *)(sum + 4 * t))[0], b = ((const longlong2 *)(sum + 4 * t))[1];
        *(float4 *)(out + 4 * t) =
            make_float4(warpred_vector_rsum_value(a.x, e.x), warpred_vector_rsum_value(a.y, e.y),
                        warpred_vector_rsum_value(b.x, e.z), warpred_vector_rsum_value(b.y, e.w));
    }
    const size_t i = VEC ? 4 * (m / 4) + t : t;
    if ((VEC && t < m % 4) || (!VEC && t < m)) out[i] = warpred_vector_rsum_value(sum[i], emax[i]);
}

#ifndef __CUDACC_RTC__
#    include <stddef.h>
#    include <cuda_runtime.h>

/* The argument checks of a pass over k vectors: NULL when the call may go ahead, else the message. */
template <typename T>
static inline const char *warpred__vrsum_check_vectors(const T *const *v, int k, size_t m, const void *out)
{
    (void)warpred__vrsum_input<T>::ok; /* float, __half or __nv_bfloat16 (static_assert) */
    if (k < 0) return "warpred_vector_rsum: k < 0";
    if ((unsigned long long)k > warpred_vector_rsum_max_count)
        return "warpred_vector_rsum: k > warpred_vector_rsum_max_count (2^16 values per element in all)";
    if (m == 0) return NULL;
    if (!out) return "warpred_vector_rsum: an output (emax or sum) is NULL and m > 0";
    if (k > 0 && !v) return "warpred_vector_rsum: v (the host array of vector pointers) is NULL and k > 0";
    for (int j = 0; j < k; j++) {
        if (!v[j]) return "warpred_vector_rsum: a vector pointer v[j] is NULL and m > 0";
        if ((size_t)v[j] % alignof(T) != 0) return "warpred_vector_rsum: a vector is not aligned to its type";
    }
    return NULL;
}

/* Every vector aligned to 4 elements: the 4-element path (together with the outputs' alignment). */
template <typename T> static inline bool warpred__vrsum_vectors_aligned(const T *const *v, int k)
{
    for (int j = 0; j < k; j++)
        if ((size_t)v[j] % (4 * sizeof(T)) != 0) return false;
    return true;
}

static inline unsigned warpred__vrsum_blocks(size_t m, bool vec)
{
    const size_t threads = vec ? (m / 4 > m % 4 ? m / 4 : m % 4) : m;
    const size_t blocks = (threads + WARPRED_VECTOR_RSUM_THREADS - 1) / WARPRED_VECTOR_RSUM_THREADS;
    return (unsigned)(blocks > 0 ? blocks : 1);
}

static inline cudaError_t warpred__vrsum_launched(cudaError_t err, const char **why)
{
    if (err != cudaSuccess) {
        cudaGetLastError(); /* the failed launch also set the runtime's last error: returned here instead */
        *why = cudaGetErrorString(err);
        return err;
    }
    *why = "no error";
    return cudaSuccess;
}

/* One launch per batch of WARPRED_VECTOR_RSUM_BATCH vectors; the first writes, the others fold
   into what it wrote. k == 0: one launch that writes the identity (zeros). */
template <typename T, typename Launch>
static inline cudaError_t warpred__vrsum_batches(const T *const *v, int k, Launch launch, const char **why)
{
    int done = 0;
    do {
        warpred__vrsum_batch<T> b;
        memset(&b, 0, sizeof b);
        b.k = k - done < WARPRED_VECTOR_RSUM_BATCH ? k - done : WARPRED_VECTOR_RSUM_BATCH;
        for (int j = 0; j < b.k; j++) b.v[j] = v[done + j];
        const cudaError_t err = warpred__vrsum_launched(launch(b, done > 0 ? 1 : 0), why);
        if (err != cudaSuccess) return err;
        done += b.k;
    } while (done < k);
    return cudaSuccess;
}

template <typename T>
static inline cudaError_t warpred_vector_rsum_exponents(const T *const *v, int k, size_t m, unsigned char *emax,
                                                        cudaStream_t stream = 0, const char **why = NULL)
{
    const char *ignored;
    if (!why) why = &ignored;
    *why = warpred__vrsum_check_vectors(v, k, m, emax);
    if (*why) return cudaErrorInvalidValue;
    *why = "no error";
    if (m == 0) return cudaSuccess;
    const bool vec = warpred__vrsum_vectors_aligned(v, k) && (size_t)emax % 4 == 0;
    const dim3 grid(warpred__vrsum_blocks(m, vec)), block(WARPRED_VECTOR_RSUM_THREADS);
    return warpred__vrsum_batches(
        v, k,
        [&](warpred__vrsum_batch<T> b, int accumulate) {
            void *args[] = {(void *)&b, (void *)&m, (void *)&emax, (void *)&accumulate};
            return cudaLaunchKernel(vec ? (const void *)warpred__vrsum_exponents_kernel<T, true>
                                        : (const void *)warpred__vrsum_exponents_kernel<T, false>,
                                    grid, block, args, 0, stream);
        },
        why);
}

template <typename T>
static inline cudaError_t warpred_vector_rsum_fixed(const T *const *v, int k, size_t m, const unsigned char *emax,
                                                    long long *sum, cudaStream_t stream = 0, const char **why = NULL)
{
    const char *ignored;
    if (!why) why = &ignored;
    *why = warpred__vrsum_check_vectors(v, k, m, sum);
    if (!*why && m > 0 && !emax) *why = "warpred_vector_rsum_fixed: emax is NULL and m > 0";
    if (*why) return cudaErrorInvalidValue;
    *why = "no error";
    if (m == 0) return cudaSuccess;
    const bool vec = warpred__vrsum_vectors_aligned(v, k) && (size_t)emax % 4 == 0 && (size_t)sum % 16 == 0;
    const dim3 grid(warpred__vrsum_blocks(m, vec)), block(WARPRED_VECTOR_RSUM_THREADS);
    return warpred__vrsum_batches(
        v, k,
        [&](warpred__vrsum_batch<T> b, int accumulate) {
            void *args[] = {(void *)&b, (void *)&m, (void *)&emax, (void *)&sum, (void *)&accumulate};
            return cudaLaunchKernel(vec ? (const void *)warpred__vrsum_fixed_kernel<T, true>
                                        : (const void *)warpred__vrsum_fixed_kernel<T, false>,
                                    grid, block, args, 0, stream);
        },
        why);
}

static inline cudaError_t warpred_vector_rsum_finish(const long long *sum, const unsigned char *emax, size_t m,
                                                     float *out, cudaStream_t stream = 0, const char **why = NULL)
{
    const char *ignored;
    if (!why) why = &ignored;
    *why = "no error";
    if (m == 0) return cudaSuccess;
    if (!sum || !emax || !out) {
        *why = "warpred_vector_rsum_finish: sum, emax or out is NULL and m > 0";
        return cudaErrorInvalidValue;
    }
    if ((const void *)out == (const void *)sum) {
        *why = "warpred_vector_rsum_finish: out may not alias sum";
        return cudaErrorInvalidValue;
    }
    const bool vec = (size_t)sum % 16 == 0 && (size_t)emax % 4 == 0 && (size_t)out % 16 == 0;
    void *args[] = {(void *)&sum, (void *)&emax, (void *)&m, (void *)&out};
    return warpred__vrsum_launched(cudaLaunchKernel(vec ? (const void *)warpred__vrsum_finish_kernel<true>
                                                        : (const void *)warpred__vrsum_finish_kernel<false>,
                                                    dim3(warpred__vrsum_blocks(m, vec)),
                                                    dim3(WARPRED_VECTOR_RSUM_THREADS), args, 0, stream),
                                   why);
}
#endif /* __CUDACC_RTC__ */

#endif /* WARPRED_VECTOR_RSUM_CUH */
