/* warpred/op_argminmax.cuh - argmin / argmax: which element is the largest (smallest).      MIT licensed.

   A value-index pair and the operations that keep the winning pair. Reduce pairs with any
   warpred layer (warp, block, grid, device) exactly as you would reduce numbers:

     warpred_arg<T, I>          { T value; I index; }    T: int, unsigned, long long, unsigned
                                                          long long, float, double; I: int or
                                                          long long
     warpred_make_arg(v, i)     builds one
     warpred_op_argmax          the largest value (NaN counts as the largest: numpy.argmax)
     warpred_op_argmin          the smallest value (NaN counts as the smallest: numpy.argmin)
     warpred_op_argmax_num      the largest value, NaN ignored (numpy.nanargmax)
     warpred_op_argmin_num      the smallest value, NaN ignored (numpy.nanargmin)
     warpred_xf_arg             transform for warpred_device_reduce: (x, i) -> {x, i}

   USAGE
       #include <warpred/op_argminmax.cuh>
       #include <warpred/block_reduce.cuh>

       __global__ void row_argmax(const float *x, int cols, int *out)   // one block per row
       {
           warpred_arg<float, int> best = warpred_op_argmax::identity<warpred_arg<float, int> >();
           for (int c = threadIdx.x; c < cols; c += blockDim.x)
               best = warpred_op_argmax()(best, warpred_make_arg(x[blockIdx.x * cols + c], c));
           best = warpred_block_reduce(best, warpred_op_argmax());
           if (threadIdx.x == 0) out[blockIdx.x] = best.index;
       }
       // rows {3, 7, 7, 1} -> 1 (ties: the lowest index); {2, NaN, 5, NaN} -> 1 (the first NaN);
       // with warpred_op_argmax_num: {2, NaN, 5, NaN} -> 2

   (This snippet is compiled and checked in tests/test_argminmax.cu.)

   RULES  The result is always one of the input pairs, with its bits unchanged (a NaN keeps its
   payload).
     order    that of warpred_op_max / _min: -inf < ... < -0 < +0 < ... < +inf, so the argmax
              of {-0 at 0, +0 at 1} is 1.
     ties     equal values (the same bits): the lowest index wins. Indices compare as
              unsigned, so a pair with index -1 loses every tie.
     NaN      argmax / argmin: a NaN beats every number and, among NaNs, the lowest index
              wins: the result is the first NaN. _num forms: a NaN loses to every number; an
              all-NaN input gives the first NaN.
     integers plain order; the _num forms equal the plain ones.
     empty    identity<warpred_arg<T, I> >(), what an empty input gives (warpred_device_reduce
              with n = 0): index -1 and the value that loses to everything: argmax -inf,
              argmin +inf (integers: the type's lowest / largest), _num forms the canonical NaN.
              It loses to every real pair. Test `index < 0` for "no element".

   COST  A pair is shuffled as two values (the value, then the index: never padding), so a
   warp step costs two shuffles and a few compares. float + int pairs take 8 bytes, double +
   int 16 (4 of them padding, which is never moved).

   This header needs ops.cuh and its base beside it (plus the layer you reduce with).
*/
#ifndef WARPRED_OP_ARGMINMAX_CUH
#define WARPRED_OP_ARGMINMAX_CUH

#include "ops.cuh"

template <typename T, typename I = int> struct warpred_arg {
    T value;
    I index;
};

template <typename T, typename I>
__host__ __device__ __forceinline__ warpred_arg<T, I> warpred_make_arg(T value, I index)
{
    warpred_arg<T, I> a;
    a.value = value;
    a.index = index;
    return a;
}

template <typename T, typename I> struct warpred_value<warpred_arg<T, I> > {
    template <typename F> static __device__ __forceinline__ void members(warpred_arg<T, I> &x, F &f)
    {
        f(x.value);
        f(x.index);
    }
};

template <typename T, typename I> __device__ __forceinline__ void warpred__check_arg_types(void)
{
    static_assert(warpred__is_integer<T>::value || warpred__same<T, float>::value || warpred__same<T, double>::value,
                  "warpred_arg: the value type must be int, unsigned, long long, unsigned long long, float or double");
    static_assert(warpred__same<I, int>::value || warpred__same<I, long long>::value,
                  "warpred_arg: the index type must be int or long long");
}

/* Does pair a win over pair b? A strict order on distinct pairs, so that a op b and b op a pick
   the same pair (every lane of a butterfly gets the same bits). */
template <bool IsMax, bool Num, typename T, typename I>
__device__ __forceinline__ bool warpred__arg_wins(const warpred_arg<T, I> &a, const warpred_arg<T, I> &b)
{
    warpred__check_arg_types<T, I>();
    typedef typename warpred__unsigned_of<I>::type UI;
    if constexpr (warpred__is_integer<T>::value) {
        if (a.value != b.value) return IsMax ? a.value > b.value : a.value < b.value;
    } else {
        /* The common cases first, with plain compares: different numbers (one test, the
           answer a select), or the same bits (a tie). What is left involves a NaN or a -0/+0
           pair and takes the full rule below. */
        const bool gt = a.value > b.value;
        if (gt || a.value < b.value) return gt == IsMax;
        typedef warpred__float_bits<T> B;
        if (B::bits(a.value) == B::bits(b.value)) return (UI)a.index < (UI)b.index;
        const bool a_nan = warpred__isnan(a.value), b_nan = warpred__isnan(b.value);
        if (a_nan != b_nan) return Num ? b_nan : a_nan;
        if (!a_nan) {
            const typename B::S ka = warpred__order_key(B::bits(a.value)), kb = warpred__order_key(B::bits(b.value));
            if (ka != kb) return IsMax ? ka > kb : ka < kb;
        }
    }
    return (UI)a.index < (UI)b.index;
}

template <bool IsMax, bool Num> struct warpred__op_arg {
    template <typename T, typename I>
    __device__ __forceinline__ warpred_arg<T, I> operator()(warpred_arg<T, I> a, warpred_arg<T, I> b) const
    {
        return warpred__arg_wins<IsMax, Num>(a, b) ? a : b;
    }
    /* Arg is a warpred_arg<T, I> */
    template <typename Arg> static __device__ __forceinline__ Arg identity(void)
    {
        typedef decltype(Arg().value) T;
        Arg e;
        if constexpr (warpred__is_integer<T>::value || !Num)
            e.value = IsMax ? warpred__lowest<T>() : warpred__highest<T>();
        else
            e.value = warpred__canonical_nan<T>();
        e.index = -1;
        return e;
    }
};

struct warpred_op_argmax : warpred__op_arg<true, false> {};
struct warpred_op_argmin : warpred__op_arg<false, false> {};
struct warpred_op_argmax_num : warpred__op_arg<true, true> {};
struct warpred_op_argmin_num : warpred__op_arg<false, true> {};

/* Warp trees of float/double pairs: one vote beside a plain tree on whether any value is a NaN
   or a zero (as for warpred_op_max); almost always none is, and then a plain compare decides
   every step exactly (the better value wins, equal values the lower index), with no branch.
   Otherwise the tree is run again with the full rule. Integer values take the full rule, which
   is already plain. */
template <bool IsMax, typename T, typename I> struct warpred__arg_warp_votes {
    enum { hardware = 0, votes = 1 };
    typedef warpred_arg<T, I> A;
    typedef typename warpred__unsigned_of<I>::type UI;
    template <typename Op> static __device__ __forceinline__ A step(const Op &op, A a, A b) { return op(a, b); }
    static __device__ __forceinline__ A settle(A r, A, unsigned, unsigned) { return r; }
    static __device__ __forceinline__ bool special(A v)
    {
        return warpred__minmax_warp<IsMax, false, T>::special(v.value);
    }
    static __device__ __forceinline__ A plain(A a, A b)
    {
        const bool a_better = IsMax ? a.value > b.value : a.value < b.value;
        return a_better || (a.value == b.value && (UI)a.index < (UI)b.index) ? a : b;
    }
};
template <typename Op, bool IsMax, typename T, typename I>
struct warpred__arg_warp
    : warpred__conditional<warpred__is_integer<T>::value, warpred__default_warp<Op, warpred_arg<T, I> >,
                           warpred__arg_warp_votes<IsMax, T, I> >::type {};
template <typename T, typename I>
struct warpred_op_warp<warpred_op_argmax, warpred_arg<T, I> > : warpred__arg_warp<warpred_op_argmax, true, T, I> {};
template <typename T, typename I>
struct warpred_op_warp<warpred_op_argmin, warpred_arg<T, I> > : warpred__arg_warp<warpred_op_argmin, false, T, I> {};
template <typename T, typename I>
struct warpred_op_warp<warpred_op_argmax_num, warpred_arg<T, I> >
    : warpred__arg_warp<warpred_op_argmax_num, true, T, I> {};
template <typename T, typename I>
struct warpred_op_warp<warpred_op_argmin_num, warpred_arg<T, I> >
    : warpred__arg_warp<warpred_op_argmin_num, false, T, I> {};

/* For warpred_device_reduce: element x at position i becomes the pair {x, i}. */
struct warpred_xf_arg {
    template <typename T> __device__ __forceinline__ warpred_arg<T, long long> operator()(T x, size_t i) const
    {
        return warpred_make_arg(x, (long long)i);
    }
};

#endif /* WARPRED_OP_ARGMINMAX_CUH */
