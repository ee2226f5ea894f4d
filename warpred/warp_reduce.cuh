/* warpred/warp_reduce.cuh - warp-level reductions for CUDA.      MIT licensed, see LICENSE.

   A warp (or each independent segment of Width lanes of it) combines one value per lane
   into one result. Two flavours of every reduction:

     warpred_warp_reduce<Width>(v, op)         __shfl_down_sync tree; result in the FIRST lane
                                                of each segment (other lanes: unspecified)
     warpred_warp_allreduce<Width>(v, op)      __shfl_xor_sync butterfly; result in EVERY lane

   and a partial-warp form of each, for the tail of an array or the last warp of a block
   whose size is not a multiple of 32:

     warpred_warp_reduce_partial<Width>(v, op, n)    only lanes 0..n-1 of the warp call (1 <= n <= 32)
     warpred_warp_allreduce_partial<Width>(v, op, n)

   USAGE
       #include <warpred/warp_reduce.cuh>

       __global__ void demo(int *out)
       {
           int lane = threadIdx.x & 31;
           int s = warpred_warp_reduce(lane + 1, warpred_op_sum());          // 528 in lane 0
           int m = warpred_warp_allreduce<8>(lane, warpred_op_max());       // 7,15,23,31 per 8 lanes
           if (lane < 5) {
               int t = warpred_warp_reduce_partial(lane + 1, warpred_op_sum(), 5); // 15 in lane 0
               if (lane == 0) out[2] = t;
           }
           if (lane == 0) out[0] = s;
           out[3 + lane] = m;
       }
       // demo<<<1, 32>>>(out): out[0] = 528, out[2] = 15, out[3..34] = 7 x8, 15 x8, 23 x8, 31 x8

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
                          every lane get the bitwise-identical result).
   Every NaN a warpred min/max produces is the canonical quiet NaN: 0x7fffffff (float),
   0x7fffffffffffffff (double), 0x7fff (__half, __nv_bfloat16), whatever NaNs went in. A
   reduction over a single value (Width 1, or a segment with one valid lane) applies no
   operation and returns that value unchanged, NaN payload included.

   TYPES  int, unsigned, long long, unsigned long long, float, double, __half, __nv_bfloat16.
   Under nvcc this header includes <cuda_fp16.h> and <cuda_bf16.h>. Under NVRTC it includes
   nothing; include those two before this header (with the toolkit's include/ on NVRTC's
   path) to reduce __half / __nv_bfloat16.

   WIDTH  a template argument, 1, 2, 4, 8, 16 or 32 (default 32; others fail a static_assert).
   The warp is cut into 32/Width segments of consecutive lanes, each reduced on its own.

   PRECONDITIONS (undefined behaviour otherwise; checked with assert where cheap)
     - warpred_warp_reduce / warpred_warp_allreduce: every lane of the calling lane's segment
       calls, converged, with the same Width and op (for Width 32: the whole warp).
     - the _n forms: exactly lanes 0..n-1 of the warp call, all with the same n, 1 <= n <= 32;
       lanes n..31 must not call (they may have exited or be in another branch). Segments
       past n get nothing; the segment holding lane n-1 reduces its valid lanes only.
     - The lane is the hardware lane (%laneid): with 2D/3D blocks, warps are formed from the
       linear thread index x + y*Dx + z*Dx*Dy, as CUDA does.

   HARDWARE PATHS  On sm_80 and newer, 32-bit integer sum/min/max/and/or/xor over a whole
   warp (Width 32, full or _n) use the redux.sync instruction (__reduce_*_sync) instead of
   five shuffles. Integer results are exact either way, so the path never changes a result.
   Define WARPRED_NO_REDUX to force the shuffle path. Float/double min/max spend one hardware
   min/max per shuffle step and settle NaN and the sign of zero once at the end with two
   warp votes; the tests check both this and the plain path against the same reference.

   COST  One shuffle per halving (log2(Width) steps); the down tree and the butterfly cost
   the same. On an H100 both match cub::WarpReduce and cg::reduce for float, int and double
   sums (`make bench`). IEEE min/max cost more than CUB's `a < b ? b : a`, which is not
   order-independent with NaN or signed zeros: about 0.6x of its throughput in a tight loop.

   CONFIGURATION (define before including)
     WARPRED_ASSERT(cond)  device-side precondition check; default assert(cond), which NDEBUG
                           turns off.
     WARPRED_NO_REDUX      never use redux.sync.
*/
#ifndef WARPRED_WARP_REDUCE_CUH
#define WARPRED_WARP_REDUCE_CUH

/* ---- configuration (repeated in every warpred header so each can be copied alone) ---- */
#ifndef WARPRED_ASSERT
#  ifndef __CUDACC_RTC__
#    include <assert.h>
#  endif
#  define WARPRED_ASSERT(cond) assert(cond)
#endif
#if !defined(__CUDACC_RTC__) && defined(__CUDACC__)
#  include <cuda_fp16.h>
#  include <cuda_bf16.h>
#endif

/* ---- private helpers ---- */

__device__ __forceinline__ unsigned warpred__lane_id(void)
{
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

template <typename T> struct warpred__is_integer { enum { value = 0 }; };
template <> struct warpred__is_integer<int> { enum { value = 1 }; };
template <> struct warpred__is_integer<unsigned> { enum { value = 1 }; };
template <> struct warpred__is_integer<long long> { enum { value = 1 }; };
template <> struct warpred__is_integer<unsigned long long> { enum { value = 1 }; };

template <int Width> struct warpred__check_width {
    static_assert(Width == 1 || Width == 2 || Width == 4 || Width == 8 || Width == 16 || Width == 32,
                  "warpred: Width must be 1, 2, 4, 8, 16 or 32");
};

/* Lanes of the calling lane's segment, for the sync masks of the shuffles. */
template <int Width>
__device__ __forceinline__ unsigned warpred__segment_mask(void)
{
    if (Width == 32) return 0xffffffffu;
    return (0xffffffffu >> (32 - Width)) << (warpred__lane_id() & ~(unsigned)(Width - 1));
}

/* Floating-point min/max. The hardware's max/min return the number when one input is NaN and
   some NaN when both are (for f64, measured: possibly an input's NaN, so it is made canonical
   here); max.NaN/min.NaN (sm_80+, f32 only) return the canonical NaN when either input is NaN.
   None of them orders -0 below +0, so a pair of zeros is settled on
   the bits (AND keeps +0 for max, OR keeps -0 for min); that test is on bits too, so
   flush-to-zero never turns a subnormal into a "zero". Inline PTX carries no .ftz, so
   --use_fast_math changes nothing here. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WARPRED__NO_NAN_MINMAX)
#  define WARPRED__HAS_NAN_MINMAX 1
#else
#  define WARPRED__HAS_NAN_MINMAX 0
#endif

__device__ __forceinline__ bool warpred__isnan(float x) { return (__float_as_uint(x) & 0x7fffffffu) > 0x7f800000u; }
__device__ __forceinline__ bool warpred__isnan(double x)
{
    return (__double_as_longlong(x) & 0x7fffffffffffffffll) > 0x7ff0000000000000ll;
}

template <bool IsMax, bool Num> __device__ __forceinline__ float warpred__fminmax(float a, float b)
{
    float r;
    if (WARPRED__HAS_NAN_MINMAX && !Num) {
        if (IsMax) asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
        else asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    } else {
        if (IsMax) asm("max.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
        else asm("min.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
        if ((!Num && (warpred__isnan(a) || warpred__isnan(b))) || warpred__isnan(r)) r = __int_as_float(0x7fffffff);
    }
    const unsigned ua = __float_as_uint(a), ub = __float_as_uint(b);
    if (((ua | ub) << 1) == 0) r = __uint_as_float(IsMax ? ua & ub : ua | ub);
    return r;
}

template <bool IsMax, bool Num> __device__ __forceinline__ double warpred__fminmax(double a, double b)
{
    double r;
    if (IsMax) asm("max.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
    else asm("min.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
    /* max.f64/min.f64 may return an input NaN when both are NaN: make every NaN canonical */
    if ((!Num && (warpred__isnan(a) || warpred__isnan(b))) || warpred__isnan(r)) r = __longlong_as_double(0x7fffffffffffffffll);
    const unsigned long long ua = __double_as_longlong(a), ub = __double_as_longlong(b);
    if (((ua | ub) << 1) == 0) r = __longlong_as_double(IsMax ? ua & ub : ua | ub);
    return r;
}

/* IEEE maximum/minimum (NaN wins) and maximumNumber/minimumNumber (NaN loses), -0 < +0. */
template <typename F> __device__ __forceinline__ F warpred__fmaximum(F a, F b) { return warpred__fminmax<true, false>(a, b); }
template <typename F> __device__ __forceinline__ F warpred__fminimum(F a, F b) { return warpred__fminmax<false, false>(a, b); }
template <typename F> __device__ __forceinline__ F warpred__fmaximum_num(F a, F b) { return warpred__fminmax<true, true>(a, b); }
template <typename F> __device__ __forceinline__ F warpred__fminimum_num(F a, F b) { return warpred__fminmax<false, true>(a, b); }

/* 16-bit floats: both formats convert to float exactly, so compare as float and hand back
   the original 16-bit value (or the 16-bit canonical NaN). */
#define WARPRED__HALF_MINMAX(H, TO_FLOAT, FROM_BITS)                                              \
    __device__ __forceinline__ H warpred__pick16(H a, H b, float r, float fa)                     \
    {                                                                                             \
        if (warpred__isnan(r)) return FROM_BITS((unsigned short)0x7fff);                          \
        return __float_as_uint(r) == __float_as_uint(fa) ? a : b;                                 \
    }                                                                                             \
    __device__ __forceinline__ H warpred__fmaximum(H a, H b)                                      \
    { float fa = TO_FLOAT(a); return warpred__pick16(a, b, warpred__fmaximum(fa, TO_FLOAT(b)), fa); } \
    __device__ __forceinline__ H warpred__fminimum(H a, H b)                                      \
    { float fa = TO_FLOAT(a); return warpred__pick16(a, b, warpred__fminimum(fa, TO_FLOAT(b)), fa); } \
    __device__ __forceinline__ H warpred__fmaximum_num(H a, H b)                                  \
    { float fa = TO_FLOAT(a); return warpred__pick16(a, b, warpred__fmaximum_num(fa, TO_FLOAT(b)), fa); } \
    __device__ __forceinline__ H warpred__fminimum_num(H a, H b)                                  \
    { float fa = TO_FLOAT(a); return warpred__pick16(a, b, warpred__fminimum_num(fa, TO_FLOAT(b)), fa); }

#if defined(__CUDA_FP16_TYPES_EXIST__)
WARPRED__HALF_MINMAX(__half, __half2float, __ushort_as_half)
__device__ __forceinline__ __half warpred__add(__half a, __half b) { return __hadd(a, b); }
#endif
#if defined(__CUDA_BF16_TYPES_EXIST__)
WARPRED__HALF_MINMAX(__nv_bfloat16, __bfloat162float, __ushort_as_bfloat16)
__device__ __forceinline__ __nv_bfloat16 warpred__add(__nv_bfloat16 a, __nv_bfloat16 b) { return __hadd(a, b); }
#endif
#undef WARPRED__HALF_MINMAX

/* Signed overflow is undefined in C++; the reduction wraps instead, as the hardware does. */
__device__ __forceinline__ int warpred__add(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__device__ __forceinline__ long long warpred__add(long long a, long long b)
{
    return (long long)((unsigned long long)a + (unsigned long long)b);
}
__device__ __forceinline__ unsigned warpred__add(unsigned a, unsigned b) { return a + b; }
__device__ __forceinline__ unsigned long long warpred__add(unsigned long long a, unsigned long long b) { return a + b; }
__device__ __forceinline__ float warpred__add(float a, float b) { return a + b; }
__device__ __forceinline__ double warpred__add(double a, double b) { return a + b; }

/* Integers: min/max with and without _num are the same thing. */
#define WARPRED__INT_MINMAX(T)                                                                    \
    __device__ __forceinline__ T warpred__fmaximum(T a, T b) { return a < b ? b : a; }            \
    __device__ __forceinline__ T warpred__fminimum(T a, T b) { return b < a ? b : a; }            \
    __device__ __forceinline__ T warpred__fmaximum_num(T a, T b) { return a < b ? b : a; }        \
    __device__ __forceinline__ T warpred__fminimum_num(T a, T b) { return b < a ? b : a; }
WARPRED__INT_MINMAX(int)
WARPRED__INT_MINMAX(unsigned)
WARPRED__INT_MINMAX(long long)
WARPRED__INT_MINMAX(unsigned long long)
#undef WARPRED__INT_MINMAX

/* ---- operations ---- */

struct warpred_op_sum {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return warpred__add(a, b); }
};
struct warpred_op_min {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return warpred__fminimum(a, b); }
};
struct warpred_op_max {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return warpred__fmaximum(a, b); }
};
struct warpred_op_min_num {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return warpred__fminimum_num(a, b); }
};
struct warpred_op_max_num {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return warpred__fmaximum_num(a, b); }
};
struct warpred_op_and {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const
    {
        static_assert(warpred__is_integer<T>::value, "warpred_op_and: integer types only");
        return a & b;
    }
};
struct warpred_op_or {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const
    {
        static_assert(warpred__is_integer<T>::value, "warpred_op_or: integer types only");
        return a | b;
    }
};
struct warpred_op_xor {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const
    {
        static_assert(warpred__is_integer<T>::value, "warpred_op_xor: integer types only");
        return a ^ b;
    }
};

/* ---- redux.sync dispatch: which (type, op) pairs the hardware reduces ---- */

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WARPRED_NO_REDUX)
#  define WARPRED__HAS_REDUX 1
#else
#  define WARPRED__HAS_REDUX 0
#endif

template <typename T, typename Op> struct warpred__redux {
    enum { ok = 0 };
    static __device__ __forceinline__ T run(unsigned, T v) { return v; }
};
#if WARPRED__HAS_REDUX
#  define WARPRED__REDUX(T, OP, CALL)                                                             \
    template <> struct warpred__redux<T, OP> {                                                    \
        enum { ok = 1 };                                                                          \
        static __device__ __forceinline__ T run(unsigned m, T v) { return (T)(CALL); }            \
    };
WARPRED__REDUX(int, warpred_op_sum, __reduce_add_sync(m, v))
WARPRED__REDUX(int, warpred_op_min, __reduce_min_sync(m, v))
WARPRED__REDUX(int, warpred_op_max, __reduce_max_sync(m, v))
WARPRED__REDUX(int, warpred_op_min_num, __reduce_min_sync(m, v))
WARPRED__REDUX(int, warpred_op_max_num, __reduce_max_sync(m, v))
WARPRED__REDUX(int, warpred_op_and, __reduce_and_sync(m, (unsigned)v))
WARPRED__REDUX(int, warpred_op_or, __reduce_or_sync(m, (unsigned)v))
WARPRED__REDUX(int, warpred_op_xor, __reduce_xor_sync(m, (unsigned)v))
WARPRED__REDUX(unsigned, warpred_op_sum, __reduce_add_sync(m, v))
WARPRED__REDUX(unsigned, warpred_op_min, __reduce_min_sync(m, v))
WARPRED__REDUX(unsigned, warpred_op_max, __reduce_max_sync(m, v))
WARPRED__REDUX(unsigned, warpred_op_min_num, __reduce_min_sync(m, v))
WARPRED__REDUX(unsigned, warpred_op_max_num, __reduce_max_sync(m, v))
WARPRED__REDUX(unsigned, warpred_op_and, __reduce_and_sync(m, v))
WARPRED__REDUX(unsigned, warpred_op_or, __reduce_or_sync(m, v))
WARPRED__REDUX(unsigned, warpred_op_xor, __reduce_xor_sync(m, v))
#  undef WARPRED__REDUX
#endif

/* ---- float/double min and max across lanes ----
   Each shuffle step is one hardware min/max in its NaN-ignoring form; NaN propagation and the
   sign of a zero result are settled once, at the end, from ballots over the lanes' inputs,
   which is cheaper than settling them at every step. The result is the same as folding with
   the op: a NaN input makes the result the canonical NaN (NaN-propagating ops; a lone NaN
   input stays as it is, as documented), a zero result is +0 for max if any input is +0 and
   -0 for min if any input is -0. Every lane of a segment applies the same fix, so the
   butterfly still leaves identical bits in every lane. */

template <bool IsMax> struct warpred__hw_minmax_num {
    __device__ __forceinline__ float operator()(float a, float b) const
    {
        float r;
        if (IsMax) asm("max.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
        else asm("min.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
        return r;
    }
    __device__ __forceinline__ double operator()(double a, double b) const
    {
        double r;
        if (IsMax) asm("max.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
        else asm("min.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
        return r;
    }
};

__device__ __forceinline__ unsigned long long warpred__bits(double x) { return (unsigned long long)__double_as_longlong(x); }
__device__ __forceinline__ unsigned warpred__bits(float x) { return __float_as_uint(x); }
__device__ __forceinline__ float warpred__canonical_nan(float) { return __int_as_float(0x7fffffff); }
__device__ __forceinline__ double warpred__canonical_nan(double) { return __longlong_as_double(0x7fffffffffffffffll); }

/* segment: the calling lanes of this lane's segment; valid: those whose inputs count (r
   summarizes them). A NaN result is canonical unless a single input was reduced (then r is
   that input, untouched): the hardware's f64 min/max may hand back an input NaN. */
template <bool IsMax, bool Num, typename F>
__device__ __forceinline__ F warpred__minmax_finish(F r, F v, unsigned segment, unsigned valid)
{
    const F wanted_zero = IsMax ? F(0) : -F(0);
    const bool mine = (valid >> warpred__lane_id()) & 1u;
    const bool has_zero = __ballot_sync(segment, mine && warpred__bits(v) == warpred__bits(wanted_zero)) != 0;
    const bool has_nan = !Num && __ballot_sync(segment, mine && warpred__isnan(v)) != 0;
    if ((valid & (valid - 1)) != 0 && (has_nan || warpred__isnan(r))) return warpred__canonical_nan(r);
    if ((warpred__bits(r) << 1) == 0 && has_zero) r = wanted_zero; /* bits: no -ftz surprises */
    return r;
}

/* What a shuffle step applies and how the result is finished: the op itself and nothing, but
   for float/double min/max as above. */
template <int Width, typename T, typename Op> struct warpred__lanes {
    typedef Op step;
    static __device__ __forceinline__ step step_op(Op op) { return op; }
    static __device__ __forceinline__ T finish(T r, T, unsigned, unsigned) { return r; }
};
#define WARPRED__LANES_MINMAX(T, OP, IS_MAX, NUM)                                                 \
    template <int Width> struct warpred__lanes<Width, T, OP> {                                    \
        typedef warpred__hw_minmax_num<IS_MAX> step;                                              \
        static __device__ __forceinline__ step step_op(OP) { return step(); }                     \
        static __device__ __forceinline__ T finish(T r, T v, unsigned mask, unsigned valid)       \
        {                                                                                         \
            const unsigned segment = mask & warpred__segment_mask<Width>();                       \
            return warpred__minmax_finish<IS_MAX, NUM>(r, v, segment, valid & segment);           \
        }                                                                                         \
    };
WARPRED__LANES_MINMAX(float, warpred_op_max, true, false)
WARPRED__LANES_MINMAX(float, warpred_op_min, false, false)
WARPRED__LANES_MINMAX(float, warpred_op_max_num, true, true)
WARPRED__LANES_MINMAX(float, warpred_op_min_num, false, true)
WARPRED__LANES_MINMAX(double, warpred_op_max, true, false)
WARPRED__LANES_MINMAX(double, warpred_op_min, false, false)
WARPRED__LANES_MINMAX(double, warpred_op_max_num, true, true)
WARPRED__LANES_MINMAX(double, warpred_op_min_num, false, true)
#undef WARPRED__LANES_MINMAX

/* ---- the two paths, chosen at compile time ---- */

template <bool B> struct warpred__bool {};

template <int Width, typename T, typename Op> struct warpred__use_redux {
    typedef warpred__bool<Width == 32 && warpred__redux<T, Op>::ok> type;
};

/* The lanes 0..n-1, as a sync mask. */
__device__ __forceinline__ unsigned warpred__first_lanes(int n) { return 0xffffffffu >> (32 - n); }

template <int Width, typename T, typename Op>
__device__ __forceinline__ T warpred__down(T v, Op, unsigned mask, warpred__bool<true>)
{
    return warpred__redux<T, Op>::run(mask, v);
}

/* Rising offsets: lane i accumulates lanes [i, i + 2*offset), which never leaves the segment
   for the segment's first lane; lanes whose window leaves it hold garbage nobody reads. */
template <int Width, typename T, typename Op>
__device__ __forceinline__ T warpred__down(T v, Op op, unsigned mask, warpred__bool<false>)
{
    typedef warpred__lanes<Width, T, Op> L;
    const typename L::step step = L::step_op(op);
    T r = v;
#pragma unroll
    for (int offset = 1; offset < Width; offset <<= 1) r = step(r, __shfl_down_sync(mask, r, offset, Width));
    return L::finish(r, v, mask, mask);
}

template <int Width, typename T, typename Op>
__device__ __forceinline__ T warpred__butterfly(T v, Op, warpred__bool<true>)
{
    return warpred__redux<T, Op>::run(0xffffffffu, v);
}

template <int Width, typename T, typename Op>
__device__ __forceinline__ T warpred__butterfly(T v, Op op, warpred__bool<false>)
{
    typedef warpred__lanes<Width, T, Op> L;
    const typename L::step step = L::step_op(op);
    const unsigned mask = warpred__segment_mask<Width>();
    T r = v;
#pragma unroll
    for (int offset = Width / 2; offset > 0; offset >>= 1) r = step(r, __shfl_xor_sync(mask, r, offset, Width));
    return L::finish(r, v, mask, mask);
}

/* The lanes in `present` call (the first few lanes of the warp); the values of lanes 0..n-1
   count (n <= lanes present). The redux path is only taken when the two coincide. */
template <int Width, typename T, typename Op>
__device__ __forceinline__ T warpred__down_n(T v, Op, int, unsigned, unsigned present, warpred__bool<true>)
{
    return warpred__redux<T, Op>::run(present, v);
}

template <int Width, typename T, typename Op>
__device__ __forceinline__ T warpred__down_n(T v, Op op, int n, unsigned lane, unsigned present, warpred__bool<false>)
{
    typedef warpred__lanes<Width, T, Op> L;
    const typename L::step step = L::step_op(op);
    T r = v;
#pragma unroll
    for (int offset = 1; offset < Width && offset < n; offset <<= 1) {
        /* Every present lane must take part in the shuffle; only valid sources are used. */
        T other = __shfl_down_sync(present, r, offset, Width);
        if ((int)lane + offset < n) r = step(r, other);
    }
    return L::finish(r, v, present, present & warpred__first_lanes(n));
}

/* A butterfly cannot skip missing partners, so the partial all-reduce is the down tree
   followed by a broadcast from each segment's first lane (redux already gives every lane). */
template <int Width, typename T, typename Op>
__device__ __forceinline__ T warpred__broadcast_first(T v, int, warpred__bool<true>) { return v; }

template <int Width, typename T, typename Op>
__device__ __forceinline__ T warpred__broadcast_first(T v, int n, warpred__bool<false>)
{
    return __shfl_sync(warpred__first_lanes(n), v, 0, Width);
}

/* ---- public API ---- */

/* Result in the first lane of each Width-lane segment. */
template <int Width = 32, typename T, typename Op>
__device__ __forceinline__ T warpred_warp_reduce(T v, Op op)
{
    (void)sizeof(warpred__check_width<Width>);
    return warpred__down<Width>(v, op, warpred__segment_mask<Width>(),
                                typename warpred__use_redux<Width, T, Op>::type());
}

/* Result in every lane of each Width-lane segment. */
template <int Width = 32, typename T, typename Op>
__device__ __forceinline__ T warpred_warp_allreduce(T v, Op op)
{
    (void)sizeof(warpred__check_width<Width>);
    return warpred__butterfly<Width>(v, op, typename warpred__use_redux<Width, T, Op>::type());
}

/* Only lanes 0..n-1 call; result in the first lane of each segment that has a valid lane. */
template <int Width = 32, typename T, typename Op>
__device__ __forceinline__ T warpred_warp_reduce_partial(T v, Op op, int n)
{
    (void)sizeof(warpred__check_width<Width>);
    const unsigned lane = warpred__lane_id();
    WARPRED_ASSERT(n >= 1 && n <= 32 && (int)lane < n);
    return warpred__down_n<Width>(v, op, n, lane, warpred__first_lanes(n),
                                  typename warpred__use_redux<Width, T, Op>::type());
}

/* Only lanes 0..n-1 call; result in every calling lane. */
template <int Width = 32, typename T, typename Op>
__device__ __forceinline__ T warpred_warp_allreduce_partial(T v, Op op, int n)
{
    typedef typename warpred__use_redux<Width, T, Op>::type path;
    return warpred__broadcast_first<Width, T, Op>(warpred_warp_reduce_partial<Width>(v, op, n), n, path());
}

#endif /* WARPRED_WARP_REDUCE_CUH */
