/* warpred/ops.cuh - the operations every warpred reduction applies.      MIT licensed, see LICENSE.

   The bottom layer of warpred: the function objects that say how two values combine, each with
   its identity, and the IEEE 754 rules they follow. warp_reduce.cuh, block_reduce.cuh,
   grid_reduce.cuh and device_reduce.cuh apply them across lanes, threads and blocks; the
   compound operations (op_argminmax.cuh, op_tuple.cuh, op_welford.cuh, op_softmax.cuh) are
   built on them. You rarely include this header yourself: every other header does.

   USAGE
       #include <warpred/ops.cuh>

       __global__ void combine(float *out)
       {
           out[0] = warpred_op_max()(-0.0f, 0.0f);                 // +0: -0 < +0
           out[1] = warpred_op_max()(1.0f, __int_as_float(0x7fc00001)); // NaN (0x7fffffff)
           out[2] = warpred_op_max_num()(1.0f, nanf(""));          // 1: NaN is ignored
           out[3] = warpred_op_min::identity<float>();             // +inf
       }
       // out = {+0 (bits 0x00000000), NaN (bits 0x7fffffff), 1, +inf}

   (This snippet is compiled and checked in tests/test_warp_reduce.cu.)

   OPERATIONS (function objects; pass an instance, e.g. warpred_op_sum())
     warpred_op_sum       a + b. Signed integers wrap modulo 2^bits (no undefined overflow).
                          __half / __nv_bfloat16 add in their own precision: convert to float
                          first if you need accuracy.
     warpred_op_min/max   integers: the usual order. Floating point (float, double, __half,
                          __nv_bfloat16): IEEE 754-2019 minimum/maximum, like numpy.min/max:
                          any NaN input gives NaN, and -0 < +0. Subnormals are ordinary
                          numbers: results do not depend on -ftz or --use_fast_math.
     warpred_op_min_num/  the NaN-ignoring versions (IEEE minimumNumber/maximumNumber, like
       warpred_op_max_num numpy.nanmin/nanmax or fminf/fmaxf): NaN is missing data; the result
                          is NaN only if every input is NaN. -0 < +0 as above.
     warpred_op_and/or/xor  bitwise; integer types only (a static_assert says so otherwise).
     your own             any function object with  T operator()(T a, T b) const  that is
                          __device__, associative and commutative (the butterfly combines
                          lanes in a different order in each lane; commutativity is what makes
                          every lane get the bitwise-identical result). Give it a
                          template <typename T> static __device__ T identity() to use it with
                          warpred_device_reduce.
   Every NaN a warpred min/max produces is the canonical quiet NaN: 0x7fffffff (float),
   0x7fffffffffffffff (double), 0x7fff (__half, __nv_bfloat16), whatever NaNs went in. A
   reduction over a single value applies no operation and returns that value unchanged, NaN
   payload included.

   IDENTITIES  Op::identity<T>(): the value e with op(e, x) == x for every x. sum: 0; min: +inf
   (integers: the largest value); max: -inf (integers: the lowest); min_num / max_num: the
   canonical NaN (integers: as min / max); and: all ones; or, xor: 0.

   TYPES  int, unsigned, long long, unsigned long long, float, double, __half, __nv_bfloat16,
   and the compound types of the op_*.cuh headers. Any other type stops the compilation with
   one static_assert that lists these. Under nvcc this header includes <cuda_fp16.h> and
   <cuda_bf16.h>; under NVRTC it includes nothing: include those two first (with the toolkit's
   include/ on NVRTC's path) to reduce __half / __nv_bfloat16.

   CONFIGURATION (define before including any warpred header)
     WARPRED_ASSERT(cond)    device-side precondition check; default assert(cond), which
                             NDEBUG turns off.
     WARPRED_NO_REDUX        never use the redux.sync instruction (see warp_reduce.cuh).
     WARPRED_NO_NAN_MINMAX   never use the sm_80 max.NaN/min.NaN instructions (the portable
                             path older GPUs take; the tests run both).

   VERSION  WARPRED_VERSION_MAJOR, _MINOR, _PATCH and WARPRED_VERSION (MAJOR * 10000 +
   MINOR * 100 + PATCH). Mixing headers of different versions stops with an #error.

   This header is the base of the others: copy it with any warpred header.
*/
#ifndef WARPRED_OPS_CUH
#define WARPRED_OPS_CUH

/* ---- configuration (repeated in every warpred header that includes no other) ---- */
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
#  error "warpred/*.cuh are CUDA device headers: compile with nvcc or NVRTC (host .c/.cpp files: include warpred/grid_scratch.h)"
/* gcc and clang go on after #error; a missing file stops them, so the #error stays the only message
   about warpred that counts */
#  include "warpred: stop here"
#endif
#ifndef WARPRED_VERSION
#  define WARPRED_VERSION_MAJOR 0
#  define WARPRED_VERSION_MINOR 2
#  define WARPRED_VERSION_PATCH 0
#  define WARPRED_VERSION 200
#elif WARPRED_VERSION != 200
#  error "warpred: headers of different versions are mixed (this is warpred/ops.cuh 0.2.0)"
#endif
#ifndef WARPRED_ASSERT
#  ifndef __CUDACC_RTC__
#    include <assert.h>
#  endif
#  define WARPRED_ASSERT(cond) assert(cond)
#endif
#if !defined(__CUDACC_RTC__)
#  include <cuda_fp16.h>
#  include <cuda_bf16.h>
#endif

/* ---- lanes ---- */

__device__ __forceinline__ unsigned warpred__lane_id(void)
{
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

/* The lanes below this one, as a mask. */
__device__ __forceinline__ unsigned warpred__lanes_below(void)
{
    unsigned mask;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
    return mask;
}

/* Lanes 0..n-1 as a mask, 1 <= n <= 32. */
__device__ __forceinline__ unsigned warpred__first_lanes(int n) { return 0xffffffffu >> (32 - n); }

/* ---- types ---- */

template <typename A, typename B> struct warpred__same { enum { value = 0 }; };
template <typename A> struct warpred__same<A, A> { enum { value = 1 }; };
template <typename T> struct warpred__always_false { enum { value = 0 }; };

template <typename S> struct warpred__unsigned_of;
template <> struct warpred__unsigned_of<short> { typedef unsigned short type; };
template <> struct warpred__unsigned_of<int> { typedef unsigned type; };
template <> struct warpred__unsigned_of<long long> { typedef unsigned long long type; };

template <typename T> struct warpred__is_integer { enum { value = 0 }; };
template <> struct warpred__is_integer<int> { enum { value = 1 }; };
template <> struct warpred__is_integer<unsigned> { enum { value = 1 }; };
template <> struct warpred__is_integer<long long> { enum { value = 1 }; };
template <> struct warpred__is_integer<unsigned long long> { enum { value = 1 }; };

/* Bit-level view of a floating-point type: S is the signed integer of the same width. The one
   statement of warpred's order on floating point is order_key: its signed integer order is the
   numeric order of non-NaN values with -0 < +0 (negative patterns have all bits but the sign
   flipped, so larger magnitudes sort lower). */
template <typename F> struct warpred__float_bits { enum { is_float = 0 }; };
template <> struct warpred__float_bits<float> {
    enum { is_float = 1 };
    typedef int S;
    static __device__ __forceinline__ S bits(float x) { return __float_as_int(x); }
    static __device__ __forceinline__ float value(S b) { return __int_as_float(b); }
    static __device__ __forceinline__ S canonical_nan(void) { return 0x7fffffff; }
    static __device__ __forceinline__ S inf(void) { return 0x7f800000; }
    static __device__ __forceinline__ S magnitude_mask(void) { return 0x7fffffff; }
};
template <> struct warpred__float_bits<double> {
    enum { is_float = 1 };
    typedef long long S;
    static __device__ __forceinline__ S bits(double x) { return __double_as_longlong(x); }
    static __device__ __forceinline__ double value(S b) { return __longlong_as_double(b); }
    static __device__ __forceinline__ S canonical_nan(void) { return 0x7fffffffffffffffll; }
    static __device__ __forceinline__ S inf(void) { return 0x7ff0000000000000ll; }
    static __device__ __forceinline__ S magnitude_mask(void) { return 0x7fffffffffffffffll; }
};
#define WARPRED__FLOAT16_BITS(H, INF, TO_BITS, FROM_BITS)                                          \
    template <> struct warpred__float_bits<H> {                                                   \
        enum { is_float = 1 };                                                                    \
        typedef short S;                                                                          \
        static __device__ __forceinline__ S bits(H x) { return (S)TO_BITS(x); }                   \
        static __device__ __forceinline__ H value(S b) { return FROM_BITS((unsigned short)b); }   \
        static __device__ __forceinline__ S canonical_nan(void) { return 0x7fff; }                \
        static __device__ __forceinline__ S inf(void) { return INF; }                             \
        static __device__ __forceinline__ S magnitude_mask(void) { return 0x7fff; }               \
    };
#if defined(__CUDA_FP16_TYPES_EXIST__)
WARPRED__FLOAT16_BITS(__half, 0x7c00, __half_as_ushort, __ushort_as_half)
#endif
#if defined(__CUDA_BF16_TYPES_EXIST__)
WARPRED__FLOAT16_BITS(__nv_bfloat16, 0x7f80, __bfloat16_as_ushort, __ushort_as_bfloat16)
#endif
#undef WARPRED__FLOAT16_BITS

template <typename S> __device__ __forceinline__ S warpred__order_key(S bits)
{
    const S flip = (S)~((unsigned long long)1 << (sizeof(S) * 8 - 1)); /* every bit but the sign */
    return bits < 0 ? (S)(bits ^ flip) : bits;
}

template <typename F> __device__ __forceinline__ bool warpred__isnan_bits(typename warpred__float_bits<F>::S b)
{
    typedef warpred__float_bits<F> B;
    return (b & B::magnitude_mask()) > B::inf();
}

template <typename F> __device__ __forceinline__ bool warpred__isnan(F x)
{
    return warpred__isnan_bits<F>(warpred__float_bits<F>::bits(x));
}

template <typename F> __device__ __forceinline__ F warpred__canonical_nan(void)
{
    return warpred__float_bits<F>::value(warpred__float_bits<F>::canonical_nan());
}

/* The hardware's min/max: NaN-ignoring (a NaN comes back only when both inputs are NaN, and
   then, for f64, possibly an input's NaN), -0 and +0 unordered. The building block of the
   IEEE operations below and of the warp trees' fast path. */
__device__ __forceinline__ float warpred__hw_max(float a, float b) { float r; asm("max.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r; }
__device__ __forceinline__ float warpred__hw_min(float a, float b) { float r; asm("min.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r; }
__device__ __forceinline__ double warpred__hw_max(double a, double b) { double r; asm("max.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b)); return r; }
__device__ __forceinline__ double warpred__hw_min(double a, double b) { double r; asm("min.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b)); return r; }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WARPRED_NO_NAN_MINMAX)
#  define WARPRED__HAS_NAN_MINMAX 1
#else
#  define WARPRED__HAS_NAN_MINMAX 0
#endif

/* IEEE maximum/minimum (Num false: NaN wins) and maximumNumber/minimumNumber (Num true: NaN
   loses), -0 < +0, canonical NaN. On sm_80+ max.NaN/min.NaN (f32) return the canonical NaN
   when either input is NaN. A pair of zeros is settled on the bits (AND keeps +0 for max, OR
   keeps -0 for min); that test is on bits too, so flush-to-zero never turns a subnormal into a
   "zero". Inline PTX carries no .ftz, so --use_fast_math changes nothing here. */
template <bool IsMax, bool Num, typename F> __device__ __forceinline__ F warpred__ieee_minmax(F a, F b)
{
    typedef warpred__float_bits<F> B;
    F r;
    if constexpr (warpred__same<F, float>::value && WARPRED__HAS_NAN_MINMAX && !Num) {
        if (IsMax) asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
        else asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    } else {
        r = IsMax ? warpred__hw_max(a, b) : warpred__hw_min(a, b);
        if ((!Num && (warpred__isnan(a) || warpred__isnan(b))) || warpred__isnan(r)) r = warpred__canonical_nan<F>();
    }
    const typename B::S ua = B::bits(a), ub = B::bits(b);
    if (((ua | ub) & B::magnitude_mask()) == 0) r = B::value(IsMax ? ua & ub : ua | ub);
    return r;
}

/* 16-bit floats convert to float exactly: compare as float and hand back the original 16-bit
   value (or the 16-bit canonical NaN). */
template <bool IsMax, bool Num, typename H> __device__ __forceinline__ H warpred__ieee_minmax16(H a, H b, float fa, float fb)
{
    const float r = warpred__ieee_minmax<IsMax, Num>(fa, fb);
    if (warpred__isnan(r)) return warpred__canonical_nan<H>();
    return __float_as_uint(r) == __float_as_uint(fa) ? a : b;
}

/* min/max of any supported type: integers in their usual order, floating point as above. */
template <bool IsMax, bool Num, typename T> __device__ __forceinline__ T warpred__minmax(T a, T b)
{
    if constexpr (warpred__is_integer<T>::value) return IsMax ? (a < b ? b : a) : (b < a ? b : a);
#if defined(__CUDA_FP16_TYPES_EXIST__)
    else if constexpr (warpred__same<T, __half>::value) return warpred__ieee_minmax16<IsMax, Num>(a, b, __half2float(a), __half2float(b));
#endif
#if defined(__CUDA_BF16_TYPES_EXIST__)
    else if constexpr (warpred__same<T, __nv_bfloat16>::value)
        return warpred__ieee_minmax16<IsMax, Num>(a, b, __bfloat162float(a), __bfloat162float(b));
#endif
    else return warpred__ieee_minmax<IsMax, Num>(a, b);
}

/* Signed overflow is undefined in C++; the reduction wraps instead, as the hardware does. */
template <typename T> __device__ __forceinline__ T warpred__add(T a, T b)
{
    if constexpr (warpred__same<T, int>::value) return (int)((unsigned)a + (unsigned)b);
    else if constexpr (warpred__same<T, long long>::value) return (long long)((unsigned long long)a + (unsigned long long)b);
#if defined(__CUDA_FP16_TYPES_EXIST__)
    else if constexpr (warpred__same<T, __half>::value) return __hadd(a, b);
#endif
#if defined(__CUDA_BF16_TYPES_EXIST__)
    else if constexpr (warpred__same<T, __nv_bfloat16>::value) return __hadd(a, b);
#endif
    else return a + b;
}

/* ---- the value types reductions accept ----
   Scalars are shuffled and loaded directly; a compound type (a struct of an op_*.cuh header)
   provides  warpred__visit(T &x, F f)  calling f on each member, which the layers use to move it
   member by member (never its padding). Any other type ends here with one message. */
template <typename T> struct warpred__is_scalar { enum { value = warpred__is_integer<T>::value || warpred__float_bits<T>::is_float }; };

/* Scalars, or tuples (op_tuple.cuh) of scalars: values whose operations are short, and which the
   layers fold the way they fold each member alone (so a tuple member gets the bits of a
   separate call). */
template <typename A, typename B> struct warpred_tuple2;
template <typename A, typename B, typename C> struct warpred_tuple3;
template <typename A, typename B, typename C, typename D> struct warpred_tuple4;
template <typename T> struct warpred__scalar_members { enum { value = warpred__is_scalar<T>::value }; };
template <typename A, typename B> struct warpred__scalar_members<warpred_tuple2<A, B> > {
    enum { value = warpred__scalar_members<A>::value && warpred__scalar_members<B>::value };
};
template <typename A, typename B, typename C> struct warpred__scalar_members<warpred_tuple3<A, B, C> > {
    enum { value = warpred__scalar_members<A>::value && warpred__scalar_members<B>::value && warpred__scalar_members<C>::value };
};
template <typename A, typename B, typename C, typename D> struct warpred__scalar_members<warpred_tuple4<A, B, C, D> > {
    enum {
        value = warpred__scalar_members<A>::value && warpred__scalar_members<B>::value && warpred__scalar_members<C>::value &&
                warpred__scalar_members<D>::value
    };
};

template <typename T, typename F> __device__ __forceinline__ void warpred__visit(T &, F)
{
    static_assert(warpred__always_false<T>::value,
                  "warpred: unsupported value type. Supported: int, unsigned, long long, unsigned long long, float, "
                  "double, __half, __nv_bfloat16, and the compound types of warpred/op_*.cuh (warpred_arg, "
                  "warpred_tuple2/3/4, warpred_welford, warpred_softmax)");
}

struct warpred__no_member_op {
    template <typename M> __device__ __forceinline__ void operator()(M &) const {}
};

template <typename T> __device__ __forceinline__ void warpred__check_type(void)
{
    if constexpr (!warpred__is_scalar<T>::value) {
        T x;
        warpred__visit(x, warpred__no_member_op()); /* fails to compile, with the message above, for unsupported types */
    }
}

/* Extreme values, for the identities. */
template <typename T> __device__ __forceinline__ T warpred__lowest(void)
{
    if constexpr (warpred__same<T, int>::value) return (int)0x80000000u;
    else if constexpr (warpred__same<T, long long>::value) return (long long)0x8000000000000000ull;
    else if constexpr (warpred__is_integer<T>::value) return (T)0;
    else return warpred__float_bits<T>::value((typename warpred__float_bits<T>::S)(warpred__float_bits<T>::inf() | ~warpred__float_bits<T>::magnitude_mask()));
}
template <typename T> __device__ __forceinline__ T warpred__highest(void)
{
    if constexpr (warpred__same<T, int>::value) return 0x7fffffff;
    else if constexpr (warpred__same<T, long long>::value) return 0x7fffffffffffffffll;
    else if constexpr (warpred__is_integer<T>::value) return (T)~(T)0;
    else return warpred__float_bits<T>::value(warpred__float_bits<T>::inf());
}
template <typename T> __device__ __forceinline__ T warpred__zero(void)
{
    if constexpr (warpred__is_integer<T>::value) return (T)0;
    else return warpred__float_bits<T>::value(0);
}

/* ---- operations ---- */

struct warpred_op_sum {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return warpred__add(a, b); }
    template <typename T> static __device__ __forceinline__ T identity(void) { return warpred__zero<T>(); }
};
struct warpred_op_min {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return warpred__minmax<false, false>(a, b); }
    template <typename T> static __device__ __forceinline__ T identity(void) { return warpred__highest<T>(); }
};
struct warpred_op_max {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return warpred__minmax<true, false>(a, b); }
    template <typename T> static __device__ __forceinline__ T identity(void) { return warpred__lowest<T>(); }
};
struct warpred_op_min_num {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return warpred__minmax<false, true>(a, b); }
    template <typename T> static __device__ __forceinline__ T identity(void)
    {
        if constexpr (warpred__is_integer<T>::value) return warpred__highest<T>();
        else return warpred__canonical_nan<T>();
    }
};
struct warpred_op_max_num {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return warpred__minmax<true, true>(a, b); }
    template <typename T> static __device__ __forceinline__ T identity(void)
    {
        if constexpr (warpred__is_integer<T>::value) return warpred__lowest<T>();
        else return warpred__canonical_nan<T>();
    }
};
struct warpred_op_and {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const
    {
        static_assert(warpred__is_integer<T>::value, "warpred_op_and: integer types only");
        return a & b;
    }
    template <typename T> static __device__ __forceinline__ T identity(void) { return (T)~(T)0; }
};
struct warpred_op_or {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const
    {
        static_assert(warpred__is_integer<T>::value, "warpred_op_or: integer types only");
        return a | b;
    }
    template <typename T> static __device__ __forceinline__ T identity(void) { return (T)0; }
};
struct warpred_op_xor {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const
    {
        static_assert(warpred__is_integer<T>::value, "warpred_op_xor: integer types only");
        return a ^ b;
    }
    template <typename T> static __device__ __forceinline__ T identity(void) { return (T)0; }
};

#endif /* WARPRED_OPS_CUH */
