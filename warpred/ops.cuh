/* warpred/ops.cuh - the operations every warpred reduction applies.      MIT licensed, see LICENSE.

   The function objects that say how two values combine, each with its identity and the IEEE
   754 rules it follows. warp_reduce.cuh, block_reduce.cuh, grid_reduce.cuh and
   device_reduce.cuh apply them across lanes, threads and blocks through the protocol of
   operation.cuh. You rarely include this header yourself: every layer does.

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
     warpred_op_and/or/xor  bitwise; integer members only (a static_assert says so otherwise).
   Each works member by member on compound values (float2, int4, your structs: value.cuh), with
   the rules above in every member. Your own operations: operation.cuh.
   Every NaN a warpred min/max produces is the canonical quiet NaN: 0x7fffffff (float),
   0x7fffffffffffffff (double), 0x7fff (__half, __nv_bfloat16), whatever NaNs went in. A
   reduction over a single value applies no operation and returns that value unchanged, NaN
   payload included.

   IDENTITIES  Op::identity<T>(): the value e with op(e, x) == x for every x. sum: 0; min: +inf
   (integers: the largest value); max: -inf (integers: the lowest); min_num / max_num: the
   canonical NaN (integers: as min / max); and: all ones; or, xor: 0. Compound values: each
   member's.

   FAST PATHS (operation.cuh)  32-bit integer sum/min/max/and/or/xor over a whole warp use
   redux.sync on sm_80+ (WARPRED_NO_REDUX turns it off); float/double min/max run a plain
   tree of hardware min/max and one warp vote on whether any input is a NaN or a zero, then
   settle those cases exactly (warp_reduce.cuh, HARDWARE PATHS). Float sums start the
   device-wide reduce's threads from -0 (-0 + x == x for every x, where +0 + -0 == +0).

   This header needs operation.cuh, value.cuh, ieee.cuh, types.cuh, lanes.cuh, config.cuh and
   version.h beside it.
*/
#ifndef WARPRED_OPS_CUH
#define WARPRED_OPS_CUH

#include "ieee.cuh"
#include "lanes.cuh"
#include "operation.cuh"

/* Signed overflow is undefined in C++; the reduction wraps instead, as the hardware does. */
template <typename T> __device__ __forceinline__ T warpred__add(T a, T b)
{
    if constexpr (warpred__is_integer<T>::value) return (T)((unsigned long long)a + (unsigned long long)b);
#if defined(__CUDA_FP16_TYPES_EXIST__)
    else if constexpr (warpred__same<T, __half>::value)
        return __hadd(a, b);
#endif
#if defined(__CUDA_BF16_TYPES_EXIST__)
    else if constexpr (warpred__same<T, __nv_bfloat16>::value)
        return __hadd(a, b);
#endif
    else
        return a + b;
}

/* One message per type, and nothing else compiled for it. */
template <typename T> struct warpred__require_integer {
    static_assert(warpred__is_integer<T>::value,
                  "warpred_op_and/or/xor: integer members only (convert floats to their bits first)");
    enum { value = warpred__is_integer<T>::value };
};
template <typename T> __device__ __forceinline__ constexpr bool warpred__bitwise_ok(void)
{
    return warpred__require_integer<T>::value != 0;
}

/* ---- the operations ---- */

struct warpred_op_sum : warpred_elementwise<warpred_op_sum> {
    template <typename T> static __device__ __forceinline__ T scalar(T a, T b) { return warpred__add(a, b); }
    template <typename T> static __device__ __forceinline__ T scalar_identity(void) { return warpred__zero<T>(); }
};
/* min/max in one template: IsMax picks the side, Num the NaN-ignoring _num forms; Self is the
   operation's own name (warpred_elementwise applies it member by member). */
template <bool IsMax, bool Num, typename Self> struct warpred__minmax_op : warpred_elementwise<Self> {
    template <typename T> static __device__ __forceinline__ T scalar(T a, T b)
    {
        return warpred__minmax<IsMax, Num>(a, b);
    }
    template <typename T> static __device__ __forceinline__ T scalar_identity(void)
    {
        if constexpr (Num && !warpred__is_integer<T>::value) return warpred__canonical_nan<T>();
        else if constexpr (IsMax)
            return warpred__lowest<T>();
        else
            return warpred__highest<T>();
    }
};
struct warpred_op_min : warpred__minmax_op<false, false, warpred_op_min> {};
struct warpred_op_max : warpred__minmax_op<true, false, warpred_op_max> {};
struct warpred_op_min_num : warpred__minmax_op<false, true, warpred_op_min_num> {};
struct warpred_op_max_num : warpred__minmax_op<true, true, warpred_op_max_num> {};

/* and, or, xor: integer members only (one static_assert otherwise). */
enum { WARPRED__AND, WARPRED__OR, WARPRED__XOR };
template <int Kind, typename Self> struct warpred__bitwise_op : warpred_elementwise<Self> {
    template <typename T> static __device__ __forceinline__ T scalar(T a, T b)
    {
        if constexpr (!warpred__bitwise_ok<T>()) return a;
        else if constexpr (Kind == WARPRED__AND)
            return (T)(a & b);
        else if constexpr (Kind == WARPRED__OR)
            return (T)(a | b);
        else
            return (T)(a ^ b);
    }
    template <typename T> static __device__ __forceinline__ T scalar_identity(void)
    {
        if constexpr (!warpred__bitwise_ok<T>()) return T();
        else
            return Kind == WARPRED__AND ? (T) ~(T)0 : (T)0;
    }
};
struct warpred_op_and : warpred__bitwise_op<WARPRED__AND, warpred_op_and> {};
struct warpred_op_or : warpred__bitwise_op<WARPRED__OR, warpred_op_or> {};
struct warpred_op_xor : warpred__bitwise_op<WARPRED__XOR, warpred_op_xor> {};

/* ---- fast path: redux.sync for 32-bit integers over a whole warp ---- */

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WARPRED_NO_REDUX)
#    define WARPRED__HAS_REDUX 1
#else
#    define WARPRED__HAS_REDUX 0
#endif

#if WARPRED__HAS_REDUX
#    define WARPRED__REDUX(OP, T, CALL)                                                                          \
        template <> struct warpred_op_warp<OP, T> : warpred__default_warp<OP, T> {                               \
            enum { hardware = 1 };                                                                               \
            static __device__ __forceinline__ T hardware_reduce(unsigned mask, T v) { return (T)CALL(mask, v); } \
        }
WARPRED__REDUX(warpred_op_sum, int, __reduce_add_sync);
WARPRED__REDUX(warpred_op_sum, unsigned, __reduce_add_sync);
WARPRED__REDUX(warpred_op_min, int, __reduce_min_sync);
WARPRED__REDUX(warpred_op_min, unsigned, __reduce_min_sync);
WARPRED__REDUX(warpred_op_max, int, __reduce_max_sync);
WARPRED__REDUX(warpred_op_max, unsigned, __reduce_max_sync);
WARPRED__REDUX(warpred_op_min_num, int, __reduce_min_sync);
WARPRED__REDUX(warpred_op_min_num, unsigned, __reduce_min_sync);
WARPRED__REDUX(warpred_op_max_num, int, __reduce_max_sync);
WARPRED__REDUX(warpred_op_max_num, unsigned, __reduce_max_sync);
WARPRED__REDUX(warpred_op_and, int, (int)__reduce_and_sync);
WARPRED__REDUX(warpred_op_and, unsigned, __reduce_and_sync);
WARPRED__REDUX(warpred_op_or, int, (int)__reduce_or_sync);
WARPRED__REDUX(warpred_op_or, unsigned, __reduce_or_sync);
WARPRED__REDUX(warpred_op_xor, int, (int)__reduce_xor_sync);
WARPRED__REDUX(warpred_op_xor, unsigned, __reduce_xor_sync);
#    undef WARPRED__REDUX
#endif

/* ---- fast path: float/double min/max ----
   Whole segments run a plain tree (plain) with one vote beside it on whether any input is a NaN
   or a zero (special); almost always none is, and then the plain tree is exact. Otherwise
   every step is one hardware min/max (NaN-ignoring, zeros unordered) and settle fixes the
   result once: one vote tells whether any counted input was a NaN or a zero; if so two more
   sort it out, giving the canonical NaN (NaN-propagating ops, or _num ops when every input was
   NaN) or the zero of the sign the op prefers (+0 for max, -0 for min). A single counted input
   is returned as it is. Every lane of a segment applies the same fix, so the butterfly still
   leaves identical bits. */
template <bool IsMax, bool Num, typename F> struct warpred__minmax_warp {
    enum { hardware = 0, votes = 1 };
    typedef warpred__float_bits<F> B;
    template <typename Op> static __device__ __forceinline__ F step(const Op &, F a, F b)
    {
        return IsMax ? warpred__hw_max(a, b) : warpred__hw_min(a, b);
    }
    /* exact when neither input is special. float: the hardware's (one instruction, no -ftz:
       inline PTX); double: a compare and a select, which Hopper issues faster than f64 max/min
       (double never flushes subnormals) */
    static __device__ __forceinline__ F plain(F a, F b)
    {
        if constexpr (sizeof(F) == 8) return IsMax ? (a < b ? b : a) : (b < a ? b : a);
        else
            return IsMax ? warpred__hw_max(a, b) : warpred__hw_min(a, b);
    }
    /* NaN or a zero in one compare: !(|v| > 0); with -ftz subnormals too (they then take the
       exact path: slower, same result) */
    static __device__ __forceinline__ bool special(F v)
    {
        if constexpr (sizeof(F) == 8) return !(fabs(v) > 0.0);
        else
            return !(fabsf(v) > 0.0f);
    }
    static __device__ __forceinline__ typename B::S preferred_zero(void) { return IsMax ? 0 : ~B::magnitude_mask(); }
    /* NaN or a zero of either sign, exactly, in three instructions: |v| - 1 wraps for zeros */
    static __device__ __forceinline__ bool nan_or_zero(F v)
    {
        typedef typename warpred__unsigned_of<typename B::S>::type U;
        return (U)(B::bits(v) & B::magnitude_mask()) - 1u >= (U)B::inf();
    }
    static __device__ __forceinline__ F settle(F r, F v, unsigned segment, unsigned counted)
    {
        const bool mine = (counted >> warpred__lane_id()) & 1u;
        if ((__ballot_sync(segment, mine && nan_or_zero(v)) & segment) == 0) return r;
        const bool any_nan = (__ballot_sync(segment, mine && warpred__isnan(v)) & segment) != 0;
        const bool any_zero = (__ballot_sync(segment, mine && B::bits(v) == preferred_zero()) & segment) != 0;
        const bool several = (counted & (counted - 1)) != 0;
        if (several && ((!Num && any_nan) || warpred__isnan(r))) return warpred__canonical_nan<F>();
        if ((B::bits(r) & B::magnitude_mask()) == 0 && any_zero)
            return B::value(preferred_zero()); /* bits: no -ftz surprises */
        return r;
    }
};
template <> struct warpred_op_warp<warpred_op_max, float> : warpred__minmax_warp<true, false, float> {};
template <> struct warpred_op_warp<warpred_op_min, float> : warpred__minmax_warp<false, false, float> {};
template <> struct warpred_op_warp<warpred_op_max_num, float> : warpred__minmax_warp<true, true, float> {};
template <> struct warpred_op_warp<warpred_op_min_num, float> : warpred__minmax_warp<false, true, float> {};
template <> struct warpred_op_warp<warpred_op_max, double> : warpred__minmax_warp<true, false, double> {};
template <> struct warpred_op_warp<warpred_op_min, double> : warpred__minmax_warp<false, false, double> {};
template <> struct warpred_op_warp<warpred_op_max_num, double> : warpred__minmax_warp<true, true, double> {};
template <> struct warpred_op_warp<warpred_op_min_num, double> : warpred__minmax_warp<false, true, double> {};

/* ---- float sums start from -0 in the device-wide reduce ---- */

template <typename R>
struct warpred_op_accumulator<warpred_op_sum, R, typename warpred__enable_if<warpred__float_bits<R>::is_float>::type>
    : warpred__plain_accumulator<warpred_op_sum, R> {
    static __device__ __forceinline__ R start(void)
    {
        return warpred__float_bits<R>::value(
            (typename warpred__float_bits<R>::S) ~warpred__float_bits<R>::magnitude_mask());
    }
};

#endif /* WARPRED_OPS_CUH */
