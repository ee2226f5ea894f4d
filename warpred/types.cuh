/* warpred/types.cuh - the scalar types warpred reduces, their bits and their extremes.
   MIT licensed, see LICENSE.

   SCALARS  int, unsigned, long, unsigned long, long long, unsigned long long (so int32_t,
   int64_t, size_t, ... whatever they are typedefs of), float, double, __half, __nv_bfloat16.
   Everything else a reduction takes is built of these (value.cuh). char and short are not
   scalars here: widen them to int first.

   ORDER ON FLOATING POINT  warpred__order_key maps a float's bits to a signed integer whose
   order is the numeric order of non-NaN values with -0 < +0 (negative patterns have every bit
   but the sign flipped, so that larger magnitudes sort lower). Every rule of warpred that
   orders floats (min/max, argmin/argmax, the atomics) is stated through it.

   This header needs config.cuh and version.h beside it.
*/
#ifndef WARPRED_TYPES_CUH
#define WARPRED_TYPES_CUH

#include "config.cuh"

/* ---- small type utilities (no <type_traits> under NVRTC) ---- */

template <typename A, typename B> struct warpred__same {
    enum { value = 0 };
};
template <typename A> struct warpred__same<A, A> {
    enum { value = 1 };
};
template <typename T> struct warpred__always_false {
    enum { value = 0 };
};
template <typename...> struct warpred__void {
    typedef void type;
};
template <typename T> __host__ __device__ T &&warpred__declval(void); /* only in unevaluated contexts */
template <bool B, typename T = void> struct warpred__enable_if {};
template <typename T> struct warpred__enable_if<true, T> {
    typedef T type;
};
template <bool B, typename A, typename Z> struct warpred__conditional {
    typedef A type;
};
template <typename A, typename Z> struct warpred__conditional<false, A, Z> {
    typedef Z type;
};

/* ---- integers ---- */

template <typename T> struct warpred__is_integer {
    enum { value = 0 };
};
template <> struct warpred__is_integer<int> {
    enum { value = 1 };
};
template <> struct warpred__is_integer<unsigned> {
    enum { value = 1 };
};
template <> struct warpred__is_integer<long> {
    enum { value = 1 };
};
template <> struct warpred__is_integer<unsigned long> {
    enum { value = 1 };
};
template <> struct warpred__is_integer<long long> {
    enum { value = 1 };
};
template <> struct warpred__is_integer<unsigned long long> {
    enum { value = 1 };
};

template <typename S> struct warpred__unsigned_of;
template <> struct warpred__unsigned_of<short> {
    typedef unsigned short type;
};
template <> struct warpred__unsigned_of<int> {
    typedef unsigned type;
};
template <> struct warpred__unsigned_of<long> {
    typedef unsigned long type;
};
template <> struct warpred__unsigned_of<long long> {
    typedef unsigned long long type;
};

/* ---- floating point: a bit-level view; S is the signed integer of the same width ---- */

template <typename F> struct warpred__float_bits {
    enum { is_float = 0 };
};
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
#define WARPRED__FLOAT16_BITS(H, INF, TO_BITS, FROM_BITS)                                       \
    template <> struct warpred__float_bits<H> {                                                 \
        enum { is_float = 1 };                                                                  \
        typedef short S;                                                                        \
        static __device__ __forceinline__ S bits(H x) { return (S)TO_BITS(x); }                 \
        static __device__ __forceinline__ H value(S b) { return FROM_BITS((unsigned short)b); } \
        static __device__ __forceinline__ S canonical_nan(void) { return 0x7fff; }              \
        static __device__ __forceinline__ S inf(void) { return INF; }                           \
        static __device__ __forceinline__ S magnitude_mask(void) { return 0x7fff; }             \
    };
#if defined(__CUDA_FP16_TYPES_EXIST__)
WARPRED__FLOAT16_BITS(__half, 0x7c00, __half_as_ushort, __ushort_as_half)
#endif
#if defined(__CUDA_BF16_TYPES_EXIST__)
WARPRED__FLOAT16_BITS(__nv_bfloat16, 0x7f80, __bfloat16_as_ushort, __ushort_as_bfloat16)
#endif
#undef WARPRED__FLOAT16_BITS

template <typename T> struct warpred__is_scalar {
    enum { value = warpred__is_integer<T>::value || warpred__float_bits<T>::is_float };
};

template <typename S> __device__ __forceinline__ S warpred__order_key(S bits)
{
    const S flip = (S) ~((unsigned long long)1 << (sizeof(S) * 8 - 1)); /* every bit but the sign */
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

/* ---- extremes: integers' lowest/largest values, floats' -inf/+inf ---- */

template <typename T> __device__ __forceinline__ T warpred__lowest(void)
{
    if constexpr (warpred__is_integer<T>::value) /* the sign bit alone, or 0 for unsigned types */
        return (T)-1 < (T)0 ? (T)((unsigned long long)1 << (sizeof(T) * 8 - 1)) : (T)0;
    else
        return warpred__float_bits<T>::value((typename warpred__float_bits<T>::S)(
            warpred__float_bits<T>::inf() | ~warpred__float_bits<T>::magnitude_mask()));
}
template <typename T> __device__ __forceinline__ T warpred__highest(void)
{
    if constexpr (warpred__is_integer<T>::value) return (T)~warpred__lowest<T>();
    else
        return warpred__float_bits<T>::value(warpred__float_bits<T>::inf());
}
template <typename T> __device__ __forceinline__ T warpred__zero(void)
{
    if constexpr (warpred__is_integer<T>::value) return (T)0;
    else
        return warpred__float_bits<T>::value(0);
}

#endif /* WARPRED_TYPES_CUH */
