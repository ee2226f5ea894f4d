/* warpred/atomic_minmax.cuh - exact atomic max/min for floating point.      MIT licensed.

   CUDA has no atomicMax(float *) and PTX has no floating-point atomic max/min. These do it,
   correctly for every input, in global and shared memory, and return the old value like the
   integer atomics do.

     NaN propagates (IEEE 754-2019 maximum/minimum, numpy.max, C++26 fetch_fmaximum):
       float  warpred_atomic_fmaximum(float *p, float v)
       float  warpred_atomic_fminimum(float *p, float v)
     NaN is missing data (IEEE maximumNumber/minimumNumber, numpy.nanmax, fmaxf, C++26
     fetch_fmaximum_num):
       float  warpred_atomic_fmaximum_num(float *p, float v)
       float  warpred_atomic_fminimum_num(float *p, float v)
     each for float, double, __half and __nv_bfloat16.

   USAGE
       #include <warpred/atomic_minmax.cuh>

       __global__ void peak(const float *x, int n, float *out)   // *out starts at -INFINITY
       {
           int i = blockIdx.x * blockDim.x + threadIdx.x;
           if (i < n) warpred_atomic_fmaximum(out, x[i]);
       }
       // x = {-3, -0.0, -7}: *out == -0.0 (bit pattern 0x80000000)
       // x = {1, NaN, 2}:    *out is NaN (0x7fffffff); with warpred_atomic_fmaximum_num: 2

   (This snippet is compiled and checked in tests/test_atomic_minmax.cu.)

   RULES (x: the value in memory, v: the argument; the function stores r and returns x)
     order      -inf < ... < -0 < +0 < ... < +inf for every function; subnormals are ordinary
                numbers (the comparisons work on bit patterns, so -ftz and --use_fast_math
                change nothing).
     fmaximum   x NaN: r = x (a NaN in memory wins and keeps its bits). Else v NaN: r = the
     fminimum   canonical NaN of the function (below). Else r = the larger (smaller) of x, v.
     _num       v NaN: r = x (ignored). Else x NaN: r = v (memory starts "empty" as NaN).
                Else r = the larger (smaller) of x, v.
     stored NaN fmaximum stores 0x7fffffff (double: 0x7fffffffffffffff, 16-bit: 0x7fff);
                fminimum stores 0xffffffff (double: 0xffffffffffffffff, 16-bit: 0xffff).
                The sign is chosen so that the NaN sorts past every number in the integer
                order the fast path relies on; the _num functions never store a NaN.
     Use one function per address (mixing max with min, or _num with the NaN-propagating
     form, on one address gives no meaningful result).

   HOW (why it is fast)  Read first: when the update would not change memory, return without
   any atomic (under contention most updates end here: ~90 G updates/s on an H100 with random
   values, against ~1 G/s for a compare-and-swap loop that always writes; `make bench`). Otherwise one integer atomicMax or
   atomicMin on the bit pattern: for a non-negative v (sign bit clear) signed-integer order
   is float order, and for a negative v (sign bit set, -0 included) unsigned order is the
   reverse; mixed signs resolve correctly either way. NaN arguments and NaN in memory take a
   compare-and-swap loop (it compares bits, so it never spins on NaN != NaN). The results
   equal a compare-and-swap loop applying the rules above for every input; the tests check
   that equivalence on every pair of special values. __half and __nv_bfloat16 have no 16-bit
   integer atomicMax: after the read-first check they take a 16-bit compare-and-swap
   (atomicCAS on unsigned short, sm_70+), which never touches the other half of the 32-bit
   word. Their order is the same bit-key order, so results follow the same rules.

   PRECONDITIONS  p is a naturally aligned address in global or shared memory (checked with
   assert). sm_70 or newer for the 16-bit types.

   CONFIGURATION  see ops.cuh (WARPRED_ASSERT).

   This header needs ops.cuh beside it; copy both.
*/
#ifndef WARPRED_ATOMIC_MINMAX_CUH
#define WARPRED_ATOMIC_MINMAX_CUH

#include "ops.cuh"

/* The rules, as functions of the bit patterns (x in memory, v the argument), returning what
   memory should hold afterwards. IsMax picks max or min, Num the NaN policy. The order of
   numbers is warpred__order_key's, the same as the reductions'. */
template <typename F, bool IsMax, bool Num>
__device__ __forceinline__ typename warpred__float_bits<F>::S warpred__atomic_rule(typename warpred__float_bits<F>::S x,
                                                                                typename warpred__float_bits<F>::S v)
{
    typedef warpred__float_bits<F> B;
    typedef typename B::S S;
    if (Num) {
        if (warpred__isnan_bits<F>(v)) return x;
        if (warpred__isnan_bits<F>(x)) return v;
    } else {
        if (warpred__isnan_bits<F>(x)) return x;
        /* fminimum's NaN has the sign bit set, so that it sorts past every number in the integer
           order the fast path uses, as fmaximum's does */
        if (warpred__isnan_bits<F>(v)) return IsMax ? B::canonical_nan() : (S)(B::canonical_nan() | ~B::magnitude_mask());
    }
    const bool v_wins = IsMax ? warpred__order_key(v) > warpred__order_key(x) : warpred__order_key(v) < warpred__order_key(x);
    return v_wins ? v : x;
}

template <typename S> __device__ __forceinline__ S warpred__load_bits(const S *p) { return *(const volatile S *)p; }

/* atomicCAS on the bit patterns, 16, 32 or 64 bits wide. */
__device__ __forceinline__ short warpred__cas_bits(short *p, short compare, short value)
{
    return (short)atomicCAS((unsigned short *)p, (unsigned short)compare, (unsigned short)value);
}
__device__ __forceinline__ int warpred__cas_bits(int *p, int compare, int value) { return atomicCAS(p, compare, value); }
__device__ __forceinline__ long long warpred__cas_bits(long long *p, long long compare, long long value)
{
    return (long long)atomicCAS((unsigned long long *)p, (unsigned long long)compare, (unsigned long long)value);
}

/* The reference implementation: a compare-and-swap loop on the bit patterns (it compares bits,
   so it never spins on NaN != NaN). */
template <typename F, bool IsMax, bool Num>
__device__ __forceinline__ F warpred__atomic_minmax_cas(F *p, F v)
{
    typedef warpred__float_bits<F> B;
    typedef typename B::S S;
    S *word = (S *)p;
    S old = warpred__load_bits(word);
    const S vb = B::bits(v);
    for (;;) {
        const S want = warpred__atomic_rule<F, IsMax, Num>(old, vb);
        if (want == old) return B::value(old);
        const S seen = warpred__cas_bits(word, old, want);
        if (seen == old) return B::value(old);
        old = seen;
    }
}

/* One integer atomic on the bit pattern: for a non-negative v (sign bit clear) signed order is
   float order, for a negative v unsigned order is the reverse; mixed signs resolve correctly
   either way. Valid while memory holds a number or the stored NaN of this IsMax (which no
   number displaces in this integer order). 32- and 64-bit only. */
template <typename F, bool IsMax>
__device__ __forceinline__ F warpred__atomic_minmax_bits(F *p, F v)
{
    typedef warpred__float_bits<F> B;
    typedef typename B::S S;
    typedef typename warpred__unsigned_of<S>::type U;
    const S vb = B::bits(v);
    S old;
    if ((vb >= 0) == IsMax) old = IsMax ? atomicMax((S *)p, vb) : (S)atomicMax((U *)p, (U)vb);
    else old = IsMax ? (S)atomicMin((U *)p, (U)vb) : atomicMin((S *)p, vb);
    return B::value(old);
}

template <typename F, bool IsMax, bool Num>
__device__ __forceinline__ F warpred__atomic_minmax(F *p, F v)
{
    typedef warpred__float_bits<F> B;
    typedef typename B::S S;
    WARPRED_ASSERT(((unsigned long long)p & (sizeof(F) - 1)) == 0);
    const S old = warpred__load_bits((const S *)p);
    const S vb = B::bits(v);
    if (warpred__atomic_rule<F, IsMax, Num>(old, vb) == old) return B::value(old); /* no change: no atomic at all */
    if constexpr (sizeof(F) == 2) { /* there is no 16-bit atomicMax */
        return warpred__atomic_minmax_cas<F, IsMax, Num>(p, v);
    } else {
        if (warpred__isnan_bits<F>(old) || warpred__isnan_bits<F>(vb)) return warpred__atomic_minmax_cas<F, IsMax, Num>(p, v);
        return warpred__atomic_minmax_bits<F, IsMax>(p, v);
    }
}

#define WARPRED__ATOMIC_MINMAX(F)                                                                           \
    __device__ __forceinline__ F warpred_atomic_fmaximum(F *p, F v) { return warpred__atomic_minmax<F, true, false>(p, v); }     \
    __device__ __forceinline__ F warpred_atomic_fminimum(F *p, F v) { return warpred__atomic_minmax<F, false, false>(p, v); }    \
    __device__ __forceinline__ F warpred_atomic_fmaximum_num(F *p, F v) { return warpred__atomic_minmax<F, true, true>(p, v); }  \
    __device__ __forceinline__ F warpred_atomic_fminimum_num(F *p, F v) { return warpred__atomic_minmax<F, false, true>(p, v); }
WARPRED__ATOMIC_MINMAX(float)
WARPRED__ATOMIC_MINMAX(double)
#if defined(__CUDA_FP16_TYPES_EXIST__)
WARPRED__ATOMIC_MINMAX(__half)
#endif
#if defined(__CUDA_BF16_TYPES_EXIST__)
WARPRED__ATOMIC_MINMAX(__nv_bfloat16)
#endif
#undef WARPRED__ATOMIC_MINMAX

#endif /* WARPRED_ATOMIC_MINMAX_CUH */
