/* warpred/op_rsum.cuh - a float/double sum with the same bits on every GPU and every launch.
   MIT licensed, see LICENSE.

   A floating-point sum's last bits depend on the order of its additions, so a different grid,
   block size, GPU or number of GPUs gives a different answer. warpred_rsum is an accumulator
   whose result depends only on the values summed: in any order, any grouping, at any level
   (thread, warp, block, grid, device, several GPUs), the bits are the same. It is also more
   accurate than a plain sum (error bound below).

     warpred_rsum<F>            the accumulator, F = float (32 bytes) or double (40 bytes)
     warpred_op_rsum::identity<warpred_rsum<F> >()   the sum of nothing
     warpred_make_rsum(x)       the accumulator of one value
     warpred_rsum_add(acc, x)   acc += x: the per-element path, a few double adds
     warpred_op_rsum            merges two accumulators: pass it to any warpred layer
     warpred_rsum_value(acc)    the sum, rounded to F
     warpred_rsum_max_count     values one accumulator may take in all (2^34 - 2^17)

   USAGE
       #include <warpred/op_rsum.cuh>
       #include <warpred/block_reduce.cuh>

       __global__ void row_sums(const float *x, int cols, float *out)      // a block per row
       {
           warpred_rsum<float> acc = warpred_op_rsum::identity<warpred_rsum<float> >();
           for (int c = threadIdx.x; c < cols; c += blockDim.x)
               warpred_rsum_add(acc, x[blockIdx.x * cols + c]);
           acc = warpred_block_reduce(acc, warpred_op_rsum());
           if (threadIdx.x == 0) out[blockIdx.x] = warpred_rsum_value(acc);
       }
       // row {1e8, 1, -1e8, 0.5}: 1.5 with any block size (a plain float sum: 0, 0.5, 1 or 1.5)

   and for a whole array, from the host (device_reduce.cuh):
       static cudaError_t reproducible_total(const warpred_device_plan *plan, const float *x, size_t n, float *out)
       {
           return warpred_device_reduce(plan, x, n, out, warpred_op_rsum());   // or a double *out
       }

   (Both snippets are compiled and checked in tests/test_rsum.cu.)

   HOW  Binned summation after Demmel, Ahrens and Nguyen. The exponent range is cut into fixed
   bins 18 bits wide. Each value is split, exactly and in a way that depends on the value alone,
   into its parts on the bins' grids, and the accumulator adds the parts of the K highest bins
   that hold data (K = 3 for float, 4 for double) in doubles, where those additions are exact.
   Exact additions do not depend on order, and the highest bin of the whole input does not
   depend on how the input was split, so neither does the result. Parts below the K bins are
   dropped: that is the error term below. The final rounding is a fixed sequence of operations.

   SEMANTICS
     - The result depends only on the multiset of values summed. Zero total: +0 (also for a
       sum of -0 values only).
     - NaN anywhere: NaN. +inf and -inf both present: NaN. Otherwise an infinity in the input
       gives that infinity. NaNs come out canonical (0x7fffffff, 0x7fffffffffffffff).
     - Finite values never overflow inside the accumulator: FLT_MAX + FLT_MAX - FLT_MAX is
       FLT_MAX. A total beyond F's range rounds to +-inf.
     - Subnormal values count in full (no flush to zero, -ftz has no effect).
   ACCURACY  For n finite values of largest magnitude M:
       |result - exact sum| <= 1 ulp(result) + n * M * 2^-36   (float)
       |result - exact sum| <= 1 ulp(result) + n * M * 2^-54   (double)
     Values whose lowest set bit is at least M * 2^-35 (float) / M * 2^-53 (double) are summed
     exactly, and the result is then within one ulp of the exact sum (tests/test_rsum.cu
     measures it against an exact host sum). {1e8f, 1, -1e8f, 0.5f} gives exactly 1.5;
     {1e20f, 1, -1e20f} gives 0, within the bound (1 lies 66 binary places below 1e20).

   PRECONDITIONS  At most warpred_rsum_max_count values reach one accumulator, through adds and
   merges together (the additions stop being exact beyond; warpred_device_reduce checks n).
   Treat the struct as opaque: its members are moved by the warpred layers, read by the
   functions here.

   COST  Per value: one multiply, one compare and 3 (float) / 4 (double) folds of one integer
   OR and up to three double adds; a value larger than all before it in this accumulator also
   takes a rare widening branch. The device-wide reduce takes the values of a 16-byte load (four
   floats, two doubles) together: their chains of adds overlap, with no branch between them. A
   merge is about 40 instructions, plus a realignment when the two sides' highest bins differ;
   inside a warp tree a step is K pairs of double adds and an OR, and a warp whose lanes hold
   different highest bins redoes its tree once with the realignment (about twice the shuffles of
   the plain tree). Accumulators of many values share their highest bin nearly always, and lanes
   that hold nothing (or values that cancelled) below the others' bin cost one check, no redo;
   lanes with one value each on both sides of a bin's edge take the redo (the edges nearest 1:
   2^-9 and 2^9 for float, 2^-14 and 16 for double, so data near 1 lies in one bin). Figures
   against the plain sum and CUB's gpu_to_gpu DeviceReduce::Sum: docs/BENCHMARKS.md (bench_cub36).

   It plugs into the layers through operation.cuh's protocol alone: warpred_value (its
   members), identity, warpred_op_accumulator (the device-wide reduce's threads add elements
   into an accumulator and the result converts to float/double at the end) and the warp trees'
   step/settle fast path of warpred_op_warp.
   This header needs ops.cuh and its base beside it (plus the layer you reduce with).
*/
#ifndef WARPRED_OP_RSUM_CUH
#define WARPRED_OP_RSUM_CUH

#include "ops.cuh"

/* ---- the accumulator ----
   fold[k] = M_k + S_k, where S_k is the exact sum of the parts on bin (bin - k)'s grid and M_k
   a constant 1.5 * 2^e_k that pins fold[k] to one binade, so that adding a part rounds it to
   that grid. The values live scaled by a power of two that depends on `bin` alone, which makes
   the M_k constants. */
template <typename F> struct warpred_rsum {
    double fold[warpred__same<F, double>::value ? 4 : 3];
    int bin;   /* the highest bin the accumulator holds */
    int flags; /* non-finite values seen: 1 +inf, 2 -inf, 4 NaN (8: only inside a warp tree, see settle) */
};

enum {
    WARPRED__RSUM_W = 18,   /* bin width in bits */
    WARPRED__RSUM_TOP = -9, /* log2 of the highest fold's grid, in the scaled domain */
    WARPRED__RSUM_POS_INF = 1,
    WARPRED__RSUM_NEG_INF = 2,
    WARPRED__RSUM_NAN = 4,
    WARPRED__RSUM_APART = 8 /* inside a warp tree only: two bins met (see settle) */
};
/* 2^51 / (2^17 + 1/2) parts fit a fold before its sum could leave M_k's binade */
static const unsigned long long warpred_rsum_max_count = (1ull << 34) - (1ull << 17);

template <typename F> struct warpred__rsum_traits {
    static_assert(warpred__same<F, float>::value || warpred__same<F, double>::value, "warpred_rsum: float or double");
    enum {
        K = warpred__same<F, double>::value ? 4 : 3,
        BIAS = warpred__same<F, double>::value ? 1023 : 127,
        EXP_MAX = warpred__same<F, double>::value ? 2047 : 255,
        /* where the bins' edges fall: bin b holds the biased exponents e with
           W (b - 1) < e + EDGE <= W b. Data near 1 (normalised values, N(0,1)) should lie in one bin,
           or a warp's lanes hold different bins and its trees take the redo: float's bin 8 holds
           [2^-9, 2^9); double's bin 57 holds [2^-14, 16) (an EDGE above 6 would push double's
           highest bin's scale below the normal range) */
        EDGE = warpred__same<F, double>::value ? 0 : 9,
        /* a value of bin b scales by 2^(SCALE0 - W * b); bins start at 1, so that the scale of every
           bin is a normal double (the subnormals then sit in the lower folds of bin 1, exactly) */
        SCALE0 = WARPRED__RSUM_TOP + WARPRED__RSUM_W - 2 + BIAS + EDGE
    };
};

/* The F of an accumulator, or of a result type */
template <typename A> struct warpred__rsum_float {};
template <> struct warpred__rsum_float<float> {
    typedef float type;
};
template <> struct warpred__rsum_float<double> {
    typedef double type;
};
template <typename F> struct warpred__rsum_float<warpred_rsum<F> > {
    typedef F type;
};

template <typename F> struct warpred_value<warpred_rsum<F> > {
    template <typename Fn> static __device__ __forceinline__ void members(warpred_rsum<F> &x, Fn &f)
    {
#pragma unroll
        for (int k = 0; k < warpred__rsum_traits<F>::K; k++) f(x.fold[k]);
        f(x.bin);
        f(x.flags);
    }
};

__device__ __forceinline__ double warpred__pow2(int e) /* 2^e for -1022 <= e <= 1023 */
{
    return __hiloint2double((e + 1023) << 20, 0);
}

/* M_k = 1.5 * 2^(52 + TOP - W k): its ulp is fold k's grid, 2^(TOP - W k) */
__device__ __forceinline__ double warpred__rsum_pin(int k)
{
    return 1.5 * warpred__pow2(52 + WARPRED__RSUM_TOP - WARPRED__RSUM_W * k);
}

template <typename F> __device__ __forceinline__ double warpred__rsum_scale(int bin)
{
    return warpred__pow2(warpred__rsum_traits<F>::SCALE0 - WARPRED__RSUM_W * bin);
}

/* The lowest bin b with |x| < 2^(W-1) * grid(b): every part of x above it is zero. */
template <typename F> __device__ __forceinline__ int warpred__rsum_bin_of(F x)
{
    typedef warpred__rsum_traits<F> R;
    int e;
    if constexpr (R::K == 4) e = (int)((unsigned long long)__double_as_longlong(x) >> 52) & 0x7ff;
    else
        e = (int)(__float_as_uint(x) >> 23) & 0xff;
    const int b = (e + R::EDGE + WARPRED__RSUM_W - 1) / WARPRED__RSUM_W;
    return b > 1 ? b : 1;
}

/* The sum of nothing: every fold at its pin, the lowest bin. */
template <typename F> __host__ __device__ __forceinline__ warpred_rsum<F> warpred__rsum_empty(void)
{
    warpred_rsum<F> a;
    for (int k = 0; k < warpred__rsum_traits<F>::K; k++)
        a.fold[k] = 1.5 * (double)(1ull << 43) / (double)(1ull << (WARPRED__RSUM_W * k)); /* M_k, host-callable */
    a.bin = 1;
    a.flags = 0;
    return a;
}

/* Round-to-nearest with its ties decided by x alone: setting the last bit of r (always below
   half a grid step here) breaks every tie the same way, whatever fold[k] holds. */
__device__ __forceinline__ double warpred__rsum_untie(double r)
{
    return __hiloint2double(__double2hiint(r), __double2loint(r) | 1);
}

/* Adds the parts of r (already scaled, |r| < 2^(W-1) times the top grid) to the folds. */
template <typename F> __device__ __forceinline__ void warpred__rsum_deposit(warpred_rsum<F> &a, double r)
{
    enum { K = warpred__rsum_traits<F>::K };
#pragma unroll
    for (int k = 0; k < K - 1; k++) {
        const double q = a.fold[k] + warpred__rsum_untie(r);
        r -= q - a.fold[k]; /* both exact: what is left for the finer folds */
        a.fold[k] = q;
    }
    a.fold[K - 1] += warpred__rsum_untie(r);
}

/* Moves the folds up by `up` bins: fold k takes fold k - up, rescaled; the lowest `up` folds
   fall off (their parts lie below every bin the accumulator can still reach). */
template <typename F> __device__ __forceinline__ void warpred__rsum_lift(warpred_rsum<F> &a, int up)
{
    enum { K = warpred__rsum_traits<F>::K };
    const double rescale = warpred__pow2(-WARPRED__RSUM_W * (up < K ? up : 0));
    double moved[K];
#pragma unroll
    for (int k = 0; k < K; k++) {
        double part = 0.0;
#pragma unroll
        for (int j = 0; j < K; j++)
            if (j + up == k) part = (a.fold[j] - warpred__rsum_pin(j)) * rescale;
        moved[k] = part;
    }
#pragma unroll
    for (int k = 0; k < K; k++) a.fold[k] = warpred__rsum_pin(k) + moved[k];
    a.bin += up;
}

/* The rare branch: a non-finite value, or one above the accumulator's highest bin. */
template <typename F> __device__ __forceinline__ void warpred__rsum_widen(warpred_rsum<F> &a, F x)
{
    if (!(x == x)) {
        a.flags |= WARPRED__RSUM_NAN;
        return;
    }
    if (x - x != 0) {
        a.flags |= x > 0 ? WARPRED__RSUM_POS_INF : WARPRED__RSUM_NEG_INF;
        return;
    }
    const int up = warpred__rsum_bin_of(x) - a.bin;
    if (up > 0) warpred__rsum_lift(a, up);
    warpred__rsum_deposit(a, (double)x * warpred__rsum_scale<F>(a.bin));
}

/* The top fold's reach: a scaled value r deposits when fabs(r) < this (NaN never does). */
__device__ __forceinline__ double warpred__rsum_reach(void)
{
    return warpred__pow2(WARPRED__RSUM_W - 1 + WARPRED__RSUM_TOP);
}

template <typename F> __device__ __forceinline__ void warpred_rsum_add(warpred_rsum<F> &a, F x)
{
    const double r = (double)x * warpred__rsum_scale<F>(a.bin);
    if (fabs(r) < warpred__rsum_reach()) warpred__rsum_deposit(a, r);
    else
        warpred__rsum_widen(a, x); /* also NaN, which fails every compare */
}

template <typename F> __device__ __forceinline__ warpred_rsum<F> warpred_make_rsum(F x)
{
    warpred_rsum<F> a = warpred__rsum_empty<F>();
    warpred_rsum_add(a, x);
    return a;
}

/* a += b for two accumulators on the same bins: fold by fold (the pins cancel; exact), flags
   joined. The merge after its realignment and the warp trees' redo (a tree's step writes the
   same adds out beside its bin check, which the compiler schedules better that way). */
template <typename F>
__device__ __forceinline__ void warpred__rsum_add_aligned(warpred_rsum<F> &a, const warpred_rsum<F> &b)
{
#pragma unroll
    for (int k = 0; k < warpred__rsum_traits<F>::K; k++) a.fold[k] += b.fold[k] - warpred__rsum_pin(k);
    a.flags |= b.flags;
}

struct warpred_op_rsum {
    /* Exact fold-by-fold additions after aligning the lower side's bins to the higher side's:
       the result is the same real number in either order, so a op b and b op a have the
       same bits, and so does every grouping. */
    template <typename F>
    __device__ __forceinline__ warpred_rsum<F> operator()(warpred_rsum<F> a, warpred_rsum<F> b) const
    {
        if (a.bin < b.bin) {
            const warpred_rsum<F> t = a;
            a = b;
            b = t;
        }
        if (a.bin != b.bin) warpred__rsum_lift(b, a.bin - b.bin); /* the folds that fall off are below a's reach */
        warpred__rsum_add_aligned(a, b);
        return a;
    }
    template <typename A> static __host__ __device__ __forceinline__ A identity(void)
    {
        return warpred__rsum_empty<typename warpred__rsum_float<A>::type>();
    }
};

/* One accumulator's members shuffled: down by `arg` lanes (Idx false) or from lane `arg` (Idx true). */
template <bool Idx, typename F>
__device__ __forceinline__ warpred_rsum<F> warpred__rsum_shfl(unsigned mask, const warpred_rsum<F> &v, int arg)
{
    warpred_rsum<F> o;
#pragma unroll
    for (int k = 0; k < warpred__rsum_traits<F>::K; k++)
        o.fold[k] = Idx ? __shfl_sync(mask, v.fold[k], arg) : __shfl_down_sync(mask, v.fold[k], arg);
    o.bin = Idx ? __shfl_sync(mask, v.bin, arg) : __shfl_down_sync(mask, v.bin, arg);
    o.flags = Idx ? __shfl_sync(mask, v.flags, arg) : __shfl_down_sync(mask, v.flags, arg);
    return o;
}

/* Whether an accumulator holds nothing but zero parts (empty, or values that cancelled). */
template <typename F> __device__ __forceinline__ bool warpred__rsum_is_zero(const warpred_rsum<F> &v)
{
    bool zero = true;
#pragma unroll
    for (int k = 0; k < warpred__rsum_traits<F>::K; k++) zero &= v.fold[k] == warpred__rsum_pin(k);
    return zero;
}

/* The rare way of the warp trees below: the counted lanes of the segment (its first `span`
   lanes; every lane of the segment calls) hold different highest bins. When every lane below the
   highest bin holds zero parts (lanes with nothing to add, as past a short row's end), the
   tree's fold-wise adds were exact anyway: its result r stands, with the highest bin. Otherwise
   each lane lifts its accumulator v to the highest bin; the fold-wise adds are then exact, and
   their sum is what any merge tree gives (the parts below the highest bin's folds drop out
   whichever way). The result goes to every lane of the segment. */
template <typename F>
__device__ __forceinline__ warpred_rsum<F> warpred__rsum_settle_apart(warpred_rsum<F> r, warpred_rsum<F> v,
                                                                      unsigned segment, unsigned counted)
{
    const int lane = (int)warpred__lane_id();
    const int first = __ffs(segment) - 1;
    const int span = 32 - __clz(counted) - first; /* the counted lanes: first .. first + span - 1 */
    int top = v.bin;
#pragma unroll 1
    for (int d = 1; d < span; d <<= 1) {
        const int o = __shfl_down_sync(segment, top, d);
        if (lane - first + d < span && o > top) top = o;
    }
    top = __shfl_sync(segment, top, first);
    /* votes over a segment narrower than the warp would be guarded by the compiler (a mask
       that differs between segments): an AND over shuffles instead */
    int fits = lane - first >= span || v.bin == top || warpred__rsum_is_zero(v);
#pragma unroll 1
    for (int d = 1; d < span; d <<= 1) fits &= __shfl_down_sync(segment, fits, d) | (lane - first + d >= span);
    if (__shfl_sync(segment, fits, first)) {
        r = warpred__rsum_shfl<true>(segment, r, first);
        r.bin = top;
        r.flags &= ~(int)WARPRED__RSUM_APART;
        return r;
    }
    if (v.bin < top) warpred__rsum_lift(v, top - v.bin);
#pragma unroll 1
    for (int d = 1; d < span; d <<= 1) {
        const warpred_rsum<F> o = warpred__rsum_shfl<false>(segment, v, d);
        if (lane - first + d < span) warpred__rsum_add_aligned(v, o);
    }
    return warpred__rsum_shfl<true>(segment, v, first);
}

/* The warp trees' fast path (operation.cuh): a step that adds the folds without realigning
   them, exact when both sides hold the same highest bin, as a warp's accumulators nearly always
   do (a step of the full merge spent most of its time choosing sides and branching around the
   realignment). A step that meets two bins marks its result (WARPRED__RSUM_APART); settle then
   redoes the segment with the realignment, and the result is the merge tree's, bit for bit. */
template <typename F> struct warpred_op_warp<warpred_op_rsum, warpred_rsum<F> > {
    typedef warpred_rsum<F> A;
    enum { hardware = 0, votes = 0 };
    static __device__ __forceinline__ A step(const warpred_op_rsum &, A a, A b)
    {
#pragma unroll
        for (int k = 0; k < warpred__rsum_traits<F>::K; k++) a.fold[k] += b.fold[k] - warpred__rsum_pin(k);
        a.flags |= b.flags | (a.bin != b.bin ? (int)WARPRED__RSUM_APART : 0);
        return a;
    }
    static __device__ __forceinline__ A settle(A r, A v, unsigned segment, unsigned counted)
    {
        /* the segment's first lane holds every counted lane's flags (a vote over a narrower
           segment would be guarded by the compiler, see settle_apart) */
        if (!(__shfl_sync(segment, r.flags, __ffs(segment) - 1) & WARPRED__RSUM_APART)) return r;
        return warpred__rsum_settle_apart(r, v, segment, counted);
    }
};

template <typename F> __device__ __forceinline__ F warpred__rsum_special(int flags)
{
    typedef warpred__float_bits<F> B;
    if ((flags & WARPRED__RSUM_NAN) || flags == (WARPRED__RSUM_POS_INF | WARPRED__RSUM_NEG_INF))
        return warpred__canonical_nan<F>();
    return flags == WARPRED__RSUM_POS_INF ? B::value(B::inf()) : -B::value(B::inf());
}

template <typename F> __device__ __forceinline__ F warpred_rsum_value(warpred_rsum<F> a)
{
    enum { K = warpred__rsum_traits<F>::K };
    if (a.flags) return warpred__rsum_special<F>(a.flags);
    double s[K];
#pragma unroll
    for (int k = 0; k < K; k++) s[k] = a.fold[k] - warpred__rsum_pin(k); /* exact */
    /* s[0] + s[1] with its rounding error kept (TwoSum), then the finer folds, which sit below
       half an ulp of the top ones, added to that error: a fixed sequence, nearly always the
       correctly rounded sum of the folds. */
    const double hi = s[0] + s[1];
    const double back = hi - s[0];
    double lo = (s[0] - (hi - back)) + (s[1] - back);
    double rest = s[K - 1];
#pragma unroll
    for (int k = K - 2; k >= 2; k--) rest += s[k];
    lo += rest;
    const double scaled = hi + lo;
    /* undo the scale: one multiply by a power of two (exact unless the result leaves double's
       normal range), then round to F */
    return (F)(scaled * warpred__pow2(-(warpred__rsum_traits<F>::SCALE0 - WARPRED__RSUM_W * a.bin)));
}

/* For warpred_device_reduce (device_reduce.cuh): a thread adds its elements one by one into
   an accumulator, and the result converts to out's type R: F (the rounded sum) or the
   accumulator itself. */
template <typename R> struct warpred_op_accumulator<warpred_op_rsum, R> {
    typedef warpred_rsum<typename warpred__rsum_float<R>::type> type;
    static const unsigned long long max_count = warpred_rsum_max_count;
    static __device__ __forceinline__ type start(void) { return warpred_op_rsum::identity<type>(); }
    template <typename V> static __device__ __forceinline__ void absorb(const warpred_op_rsum &, type &a, const V &x)
    {
        warpred_rsum_add(a, (typename warpred__rsum_float<R>::type)x);
    }
    /* The values of one vector load: scaled and checked together, then deposited with no
       branch between them, so that each value's chain of adds overlaps the next one's (one
       by one, each value waited for the last one's chain of dependent adds). A batch above the
       folds' bin goes the same way once an accumulator of zero parts has risen to it (the first
       batch of every accumulator); above a nonzero accumulator, or with a value not finite, the
       whole batch goes one by one. Every way the deposits happen in the same order, with the
       same bits. */
    template <int K, typename V>
    static __device__ __forceinline__ void absorb_batch(const warpred_op_rsum &op, type &a, const V (&x)[K])
    {
        typedef typename warpred__rsum_float<R>::type F;
        const double scale = warpred__rsum_scale<F>(a.bin);
        const double reach = warpred__rsum_reach();
        double r[K];
        bool all_fit = true;
#pragma unroll
        for (int j = 0; j < K; j++) {
            r[j] = (double)(F)x[j] * scale;
            all_fit &= fabs(r[j]) < reach;
        }
        if (all_fit) {
#pragma unroll
            for (int j = 0; j < K; j++) warpred__rsum_deposit(a, r[j]);
        } else if (warpred__rsum_lift_to_batch<K>(a, x)) {
            const double lifted = warpred__rsum_scale<F>(a.bin);
#pragma unroll
            for (int j = 0; j < K; j++) warpred__rsum_deposit(a, (double)(F)x[j] * lifted);
        } else {
#pragma unroll
            for (int j = 0; j < K; j++) absorb(op, a, x[j]);
        }
    }
    /* The first batch of an accumulator (its empty start holds the lowest bin, below every
       value's): when a holds only zero parts, its bin rises to the batch's highest at no cost
       (lifting zeros moves nothing), and the batch then fits. False when a holds something (a
       rare larger value: one by one, through the widening branch) or the batch holds an
       infinity or a NaN. */
    template <int K, typename V>
    static __device__ __forceinline__ bool warpred__rsum_lift_to_batch(type &a, const V (&x)[K])
    {
        typedef typename warpred__rsum_float<R>::type F;
        typedef warpred__float_bits<F> B;
        typename B::S largest = 0; /* the bits of the largest magnitude: one bin_of for all */
#pragma unroll
        for (int j = 0; j < K; j++) {
            const typename B::S m = B::bits((F)x[j]) & B::magnitude_mask();
            largest = m > largest ? m : largest;
        }
        if (largest >= B::inf() || !warpred__rsum_is_zero(a)) return false;
        const int top = warpred__rsum_bin_of(B::value(largest));
        a.bin = top > a.bin ? top : a.bin;
        return true;
    }
    static __device__ __forceinline__ R finish(const type &a)
    {
        if constexpr (warpred__same<R, type>::value) return a;
        else
            return warpred_rsum_value(a);
    }
};

#endif /* WARPRED_OP_RSUM_CUH */
