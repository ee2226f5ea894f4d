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

   RULES (x: the value in memory, v the argument; the function stores r and returns x)
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
     returned   every call returns the x its update saw, as if the calls had run one after
                another in some order. On sm_80 and newer, lanes of a warp that call
                together with the same address are ordered thus: first the lane whose
                argument wins (the lowest such lane on ties), then the others, which see
                what it left in memory. So of such a group at most one lane gets back an x
                that its own argument displaced.
     Use one function per address (mixing max with min, or _num with the NaN-propagating
     form, on one address gives no meaningful result).

   HOW (why it is fast)  On sm_80 and newer the calling lanes of a warp first combine their
   arguments per address: a shuffle and a vote find whether they share one address (else
   __match_any_sync groups them), each lane maps its argument to an integer key that orders
   arguments by the rules above, one redux.sync (two for double) finds the best key, and its
   lane alone updates memory for the group; two shuffles hand back the old value and the
   value stored. That one lane reads first: when its update would not change memory, no
   atomic at all (under contention most updates end here). Otherwise one integer atomicMax
   or atomicMin on the bit pattern: for a non-negative v (sign bit clear) signed-integer order
   is float order, and for a negative v (sign bit set, -0 included) unsigned order is the
   reverse; mixed signs resolve correctly either way. NaN arguments and NaN in memory take a
   compare-and-swap loop (it compares bits, so it never spins on NaN != NaN). The results
   equal a compare-and-swap loop applying the rules above for every input; the tests check
   that equivalence on every pair of special values. __half and __nv_bfloat16 have no 16-bit
   integer atomicMax: after the read-first check they take a 16-bit compare-and-swap
   (atomicCAS on unsigned short, sm_70+), which never touches the other half of the 32-bit
   word. Their order is the same bit-key order, so results follow the same rules. On sm_75,
   or with WARPRED_NO_REDUX, every lane reads and updates on its own (warpred 0.1's path).

   COST  A warp's call to one address: about 25 instructions in every lane to combine
   (address check, key, redux, ballot), then in one lane one read of memory, about 25
   instructions of rules, and one atomic only when the warp's best argument changes memory;
   two shuffles for the returned values. Lanes with different addresses add a
   __match_any_sync. Figures against a compare-and-swap loop and a lane-by-lane update:
   docs/BENCHMARKS.md (bench_atomics).

   PRECONDITIONS  p is a naturally aligned address in global or shared memory (checked with
   assert). sm_70 or newer for the 16-bit types.

   CONFIGURATION  see config.cuh (WARPRED_ASSERT, WARPRED_NO_REDUX).

   This header needs ops.cuh and its base beside it (README: Copying a header).
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
        if (warpred__isnan_bits<F>(v))
            return IsMax ? B::canonical_nan() : (S)(B::canonical_nan() | ~B::magnitude_mask());
    }
    const bool v_wins =
        IsMax ? warpred__order_key(v) > warpred__order_key(x) : warpred__order_key(v) < warpred__order_key(x);
    return v_wins ? v : x;
}

/* How the first read is done: a relaxed atomic load at GPU scope, so that it is coherent (never
   a stale L1 copy) and the value returned from an early exit is one that memory holds during
   the call. A volatile load gives the same guarantees at system scope and measured slower
   with one hot address (bench_atomics). Generic
   addresses: global and shared memory alike. (bench_atomics.cu measures other reads through
   this parameter.) */
struct warpred__read_relaxed {
    template <typename S> static __device__ __forceinline__ S load(const S *p)
    {
        if constexpr (sizeof(S) == 2) {
            unsigned short r;
            asm volatile("ld.relaxed.gpu.b16 %0, [%1];" : "=h"(r) : "l"(p) : "memory");
            return (S)r;
        } else if constexpr (sizeof(S) == 4) {
            unsigned r;
            asm volatile("ld.relaxed.gpu.b32 %0, [%1];" : "=r"(r) : "l"(p) : "memory");
            return (S)r;
        } else {
            unsigned long long r;
            asm volatile("ld.relaxed.gpu.b64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
            return (S)r;
        }
    }
};

/* atomicCAS on the bit patterns, 16, 32 or 64 bits wide. */
__device__ __forceinline__ short warpred__cas_bits(short *p, short compare, short value)
{
    return (short)atomicCAS((unsigned short *)p, (unsigned short)compare, (unsigned short)value);
}
__device__ __forceinline__ int warpred__cas_bits(int *p, int compare, int value)
{
    return atomicCAS(p, compare, value);
}
__device__ __forceinline__ long long warpred__cas_bits(long long *p, long long compare, long long value)
{
    return (long long)atomicCAS((unsigned long long *)p, (unsigned long long)compare, (unsigned long long)value);
}

/* A compare-and-swap loop on the bit patterns from `old`, a value memory held (it compares
   bits, so it never spins on NaN != NaN). Returns the old bits. */
template <typename F, bool IsMax, bool Num, typename S>
__device__ __forceinline__ S warpred__atomic_cas_loop(S *word, S old, S vb)
{
    for (;;) {
        const S want = warpred__atomic_rule<F, IsMax, Num>(old, vb);
        if (want == old) return old;
        const S seen = warpred__cas_bits(word, old, want);
        if (seen == old) return old;
        old = seen;
    }
}

/* The reference implementation: the compare-and-swap loop alone. */
template <typename F, bool IsMax, bool Num> __device__ __forceinline__ F warpred__atomic_minmax_cas(F *p, F v)
{
    typedef warpred__float_bits<F> B;
    typedef typename B::S S;
    return B::value(
        warpred__atomic_cas_loop<F, IsMax, Num>((S *)p, warpred__read_relaxed::load((const S *)p), B::bits(v)));
}

/* One integer atomic on the bit pattern: for a non-negative v (sign bit clear) signed order is
   float order, for a negative v unsigned order is the reverse; mixed signs resolve correctly
   either way. Valid while memory holds a number or the stored NaN of this IsMax (which no
   number displaces in this integer order). 32- and 64-bit only. Returns the old bits. */
template <bool IsMax, typename S> __device__ __forceinline__ S warpred__atomic_minmax_bits(S *p, S vb)
{
    typedef typename warpred__unsigned_of<S>::type U;
    if ((vb >= 0) == IsMax) return IsMax ? atomicMax(p, vb) : (S)atomicMax((U *)p, (U)vb);
    return IsMax ? (S)atomicMin((U *)p, (U)vb) : atomicMin(p, vb);
}

/* One lane's update on its own: read first and return when nothing would change; else one
   integer atomic, or the compare-and-swap loop for NaNs and the 16-bit types (there is no
   16-bit atomicMax). Returns the old bits. */
template <typename F, bool IsMax, bool Num, typename Read = warpred__read_relaxed>
__device__ __forceinline__ typename warpred__float_bits<F>::S
warpred__atomic_minmax_lane(F *p, typename warpred__float_bits<F>::S vb)
{
    typedef typename warpred__float_bits<F>::S S;
    const S old = Read::load((const S *)p);
    if (warpred__atomic_rule<F, IsMax, Num>(old, vb) == old) return old; /* no change: no atomic at all */
    if constexpr (sizeof(F) == 2) {
        return warpred__atomic_cas_loop<F, IsMax, Num>((S *)p, old, vb);
    } else {
        if (warpred__isnan_bits<F>(old) || warpred__isnan_bits<F>(vb))
            return warpred__atomic_cas_loop<F, IsMax, Num>((S *)p, old, vb);
        return warpred__atomic_minmax_bits<IsMax>((S *)p, vb);
    }
}

/* ---- lanes of a warp that target one address combine first (sm_80+: redux.sync) ---- */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WARPRED_NO_REDUX)
#    define WARPRED__ATOMIC_COMBINE 1
#else
#    define WARPRED__ATOMIC_COMBINE 0
#endif

/* Keys are 32 bits wide for the 16- and 32-bit types, 64 for double. */
template <typename S> struct warpred__atomic_key_type {
    typedef int type;
};
template <> struct warpred__atomic_key_type<long long> {
    typedef long long type;
};

/* A key whose largest (IsMax) or smallest value among the lanes picks the one argument that
   stands for all of them: numbers by order_key; NaN at the winning end where a NaN argument
   wins (fmaximum, fminimum), at the losing end where it changes nothing (the _num forms). No
   number has either end's key. */
template <typename F, bool IsMax, bool Num>
__device__ __forceinline__ typename warpred__atomic_key_type<typename warpred__float_bits<F>::S>::type
warpred__atomic_key(typename warpred__float_bits<F>::S vb)
{
    typedef typename warpred__atomic_key_type<typename warpred__float_bits<F>::S>::type K;
    const K top = (K)(~0ull >> (65 - 8 * sizeof(K))); /* the largest K */
    if (warpred__isnan_bits<F>(vb)) return IsMax != Num ? top : (K)~top;
    return (K)warpred__order_key(vb);
}

#if WARPRED__ATOMIC_COMBINE
/* The largest (IsMax) or smallest key among the lanes of `group`. */
template <bool IsMax> __device__ __forceinline__ int warpred__group_best(unsigned group, int k)
{
    return IsMax ? __reduce_max_sync(group, k) : __reduce_min_sync(group, k);
}
template <bool IsMax> __device__ __forceinline__ long long warpred__group_best(unsigned group, long long k)
{
    /* redux.sync is 32 bits wide: the high halves (signed), then the low halves (unsigned) of
       the lanes whose high half is the best one */
    const int hi = warpred__group_best<IsMax>(group, (int)(k >> 32));
    const unsigned lo = (int)(k >> 32) == hi ? (unsigned)k : IsMax ? 0u : ~0u;
    const unsigned best_lo = IsMax ? __reduce_max_sync(group, lo) : __reduce_min_sync(group, lo);
    return (long long)((unsigned long long)(unsigned)hi << 32 | best_lo);
}

/* The calling lanes with this lane's address combine their arguments into the winning one; its
   lane (the lowest on ties) makes the one update for all of them and gets the old value; the
   others get what memory holds after it, as if they had updated right after that lane. */
template <typename F, bool IsMax, bool Num, typename Read = warpred__read_relaxed>
__device__ __forceinline__ typename warpred__float_bits<F>::S
warpred__atomic_minmax_warp(F *p, typename warpred__float_bits<F>::S vb)
{
    typedef typename warpred__float_bits<F>::S S;
    typedef typename warpred__atomic_key_type<S>::type K;
    const unsigned active = __activemask(); /* read once; every step below uses this value */
    const unsigned long long address = (unsigned long long)p;
    const bool one_address = __all_sync(active, __shfl_sync(active, address, __ffs(active) - 1) == address);
    const unsigned group = one_address ? active : __match_any_sync(active, address);
    const K key = warpred__atomic_key<F, IsMax, Num>(vb);
    const int winner = __ffs(__ballot_sync(group, key == warpred__group_best<IsMax>(group, key))) - 1;
    const bool is_winner = (int)warpred__lane_id() == winner;
    S old = 0, now = 0;
    if (is_winner) {
        old = warpred__atomic_minmax_lane<F, IsMax, Num, Read>(p, vb);
        now = warpred__atomic_rule<F, IsMax, Num>(old, vb);
    }
    old = (S)__shfl_sync(group, (K)old, winner);
    now = (S)__shfl_sync(group, (K)now, winner);
    return is_winner ? old : now;
}
#endif

template <typename F, bool IsMax, bool Num, typename Read = warpred__read_relaxed>
__device__ __forceinline__ F warpred__atomic_minmax(F *p, F v)
{
    typedef warpred__float_bits<F> B;
    WARPRED_ASSERT(((unsigned long long)p & (sizeof(F) - 1)) == 0);
#if WARPRED__ATOMIC_COMBINE
    return B::value(warpred__atomic_minmax_warp<F, IsMax, Num, Read>(p, B::bits(v)));
#else
    return B::value(warpred__atomic_minmax_lane<F, IsMax, Num, Read>(p, B::bits(v)));
#endif
}

#define WARPRED__ATOMIC_MINMAX(F)                                       \
    __device__ __forceinline__ F warpred_atomic_fmaximum(F *p, F v)     \
    {                                                                   \
        return warpred__atomic_minmax<F, true, false>(p, v);            \
    }                                                                   \
    __device__ __forceinline__ F warpred_atomic_fminimum(F *p, F v)     \
    {                                                                   \
        return warpred__atomic_minmax<F, false, false>(p, v);           \
    }                                                                   \
    __device__ __forceinline__ F warpred_atomic_fmaximum_num(F *p, F v) \
    {                                                                   \
        return warpred__atomic_minmax<F, true, true>(p, v);             \
    }                                                                   \
    __device__ __forceinline__ F warpred_atomic_fminimum_num(F *p, F v) \
    {                                                                   \
        return warpred__atomic_minmax<F, false, true>(p, v);            \
    }
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
