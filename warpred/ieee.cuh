/* warpred/ieee.cuh - IEEE 754-2019 minimum/maximum, exactly, for every scalar.
   MIT licensed, see LICENSE.

   warpred__minmax<IsMax, Num>(a, b): integers in their usual order; float, double, __half,
   __nv_bfloat16 by IEEE 754-2019 maximum/minimum (Num false: any NaN input gives NaN) or
   maximumNumber/minimumNumber (Num true: NaN is missing data, the result is NaN only when both
   are), with -0 < +0 and the canonical quiet NaN (0x7fffffff, 0x7fffffffffffffff, 0x7fff)
   whatever NaNs went in. Subnormals are ordinary numbers: results do not depend on -ftz or
   --use_fast_math (inline PTX carries no .ftz, and zeros are recognised on their bits).
   ops.cuh's warpred_op_min/max/_num and the atomics are built on it.

   This header needs types.cuh, config.cuh and version.h beside it.
*/
#ifndef WARPRED_IEEE_CUH
#define WARPRED_IEEE_CUH

#include "types.cuh"

/* The hardware's min/max: NaN-ignoring (a NaN comes back only when both inputs are NaN, and
   then, for f64, possibly an input's NaN), -0 and +0 unordered. The building block of the
   rules below and of the warp trees' fast path (ops.cuh). */
__device__ __forceinline__ float warpred__hw_max(float a, float b)
{
    float r;
    asm("max.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}
__device__ __forceinline__ float warpred__hw_min(float a, float b)
{
    float r;
    asm("min.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}
__device__ __forceinline__ double warpred__hw_max(double a, double b)
{
    double r;
    asm("max.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
    return r;
}
__device__ __forceinline__ double warpred__hw_min(double a, double b)
{
    double r;
    asm("min.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
    return r;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WARPRED_NO_NAN_MINMAX)
#    define WARPRED__HAS_NAN_MINMAX 1
#else
#    define WARPRED__HAS_NAN_MINMAX 0
#endif

/* float/double. On sm_80+ max.NaN/min.NaN (f32) return the canonical NaN when either input is
   NaN. A pair of zeros is settled on the bits (AND keeps +0 for max, OR keeps -0 for min). */
template <bool IsMax, bool Num, typename F> __device__ __forceinline__ F warpred__ieee_minmax(F a, F b)
{
    typedef warpred__float_bits<F> B;
    F r;
    if constexpr (warpred__same<F, float>::value && WARPRED__HAS_NAN_MINMAX && !Num) {
        if (IsMax) asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
        else
            asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
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
template <bool IsMax, bool Num, typename H>
__device__ __forceinline__ H warpred__ieee_minmax16(H a, H b, float fa, float fb)
{
    const float r = warpred__ieee_minmax<IsMax, Num>(fa, fb);
    if (warpred__isnan(r)) return warpred__canonical_nan<H>();
    return __float_as_uint(r) == __float_as_uint(fa) ? a : b;
}

/* min/max of any scalar: integers in their usual order, floating point as above. */
template <bool IsMax, bool Num, typename T> __device__ __forceinline__ T warpred__minmax(T a, T b)
{
    if constexpr (warpred__is_integer<T>::value) return IsMax ? (a < b ? b : a) : (b < a ? b : a);
#if defined(__CUDA_FP16_TYPES_EXIST__)
    else if constexpr (warpred__same<T, __half>::value)
        return warpred__ieee_minmax16<IsMax, Num>(a, b, __half2float(a), __half2float(b));
#endif
#if defined(__CUDA_BF16_TYPES_EXIST__)
    else if constexpr (warpred__same<T, __nv_bfloat16>::value)
        return warpred__ieee_minmax16<IsMax, Num>(a, b, __bfloat162float(a), __bfloat162float(b));
#endif
    else
        return warpred__ieee_minmax<IsMax, Num>(a, b);
}

#endif /* WARPRED_IEEE_CUH */
