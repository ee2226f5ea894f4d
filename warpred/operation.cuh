/* warpred/operation.cuh - what an operation provides so that every warpred layer can run it.
   MIT licensed, see LICENSE.

   An operation is a function object. The warp, block, grid and device layers call only what
   this header describes; they know no operation and no value type by name. The built-in
   operations (ops.cuh) and the compound ones (op_*.cuh) plug in through the same protocol as
   yours.

   REQUIRED
     T operator()(T a, T b) const       __device__, associative and commutative (the butterfly
                                        combines lanes in a different order in each lane, and
                                        commutativity is what gives every lane the same bits)
   FOR THE DEVICE-WIDE REDUCE AND EMPTY INPUTS
     template <typename T> static __device__ T identity()    e with op(e, x) == x for every x
   A reduction that needs the identity of an operation without one stops with one
   static_assert naming it.

   USAGE
       #include <warpred/block_reduce.cuh>

       struct op_absmax {                   // the largest magnitude, of any integer or float
           template <typename T> __device__ T operator()(T a, T b) const
           {
               const double fa = fabs((double)a), fb = fabs((double)b);
               return fa < fb || (fa == fb && a < b) ? b : a;   // ties: the larger, so a op b == b op a
           }
           template <typename T> static __device__ T identity(void) { return (T)0; }
       };

       __global__ void peak(const float *x, float *out)      // one block of 256
       {
           float p = warpred_block_reduce<256>(x[threadIdx.x], op_absmax());
           if (threadIdx.x == 0) *out = p;
       }
       // x[i] = (i % 2 ? -1 : 1) * i: *out = -255

   (This snippet is compiled and checked in tests/test_values.cu.)

   MEMBER BY MEMBER  warpred_elementwise<Self> turns a rule for scalars into an operation on
   every value: write  template <typename T> static __device__ T scalar(T a, T b)  and
   template <typename T> static __device__ T scalar_identity(), derive from
   warpred_elementwise<your_op>, and a float2, a user struct (value.cuh) or a tuple of them is
   combined member by member (ops.cuh's operations are written so). An operation that combines
   a compound value member by member with other operations (op_tuple.cuh, op_extrema.cuh) says
   so with
     template <typename T, typename F> __device__ void each_member(T &r, const T &a, const T &b, F &f) const
   calling f(op_i, r.m_i, a.m_i, b.m_i) for each member m_i and its operation op_i. The layers
   then run each member with its own operation's fast paths, and a block folds such values left
   to right (block_reduce.cuh, ORDER).

   FAST PATHS (optional; the results never change, only the speed)
     warpred_op_warp<Op, T>   how a warp tree applies Op to T. The primary template applies op
       (member by member, with each member's own fast paths, where each_member exists).
       Specialise it to give
         enum { hardware = 1 }  static T hardware_reduce(unsigned mask, T v): a whole-warp
                                hardware reduction (ops.cuh: redux.sync for 32-bit integers);
         enum { votes = 1 }     static bool special(T v) and static T plain(T a, T b): a tree
                                of plain steps is exact unless an input is special; the warp
                                votes once (ops.cuh: float/double min/max, where NaN and zeros
                                are special);
         step / settle          static T step(const Op &, T a, T b) applied at every step, and
                                static T settle(T r, T v, unsigned segment, unsigned counted)
                                that fixes the tree's result r once at the end (v: this lane's
                                input; segment: the calling lanes; counted: those whose inputs
                                count). Settle may vote and shuffle over segment:
                                every lane of it calls, and the counted lanes are its first
                                ones (op_rsum.cuh: steps without realignment, redone when
                                two bins met).
   ACCUMULATORS (optional)
     warpred_op_accumulator<Op, R>   the running state of the device-wide reduce when it
       writes an R: type (default R), start() (default: the identity; -0 for float sums),
       absorb(op, acc, v) (one transformed element in; default acc = op(acc, v)), absorb_batch
       (the elements of one vector load; default: combined pairwise, then into acc), finish(acc)
       (the state out as R; default: as it is) and max_count (the most elements one state may
       take). op_rsum.cuh specialises it: its state is an accumulator, not a float.

   This header needs value.cuh, types.cuh, config.cuh and version.h beside it.
*/
#ifndef WARPRED_OPERATION_CUH
#define WARPRED_OPERATION_CUH

#include "value.cuh"

/* ---- identity ---- */

template <typename Op, typename T, typename = void> struct warpred__has_identity {
    enum { value = 0 };
};
template <typename Op, typename T>
struct warpred__has_identity<Op, T, typename warpred__void<decltype(Op::template identity<T>())>::type> {
    enum { value = 1 };
};

/* The one message for an operation without identity; the compiler names Op where it prints
   this class's instantiation. */
template <typename Op, typename T> struct warpred__require_identity {
    static_assert(warpred__has_identity<Op, T>::value,
                  "warpred: this operation has no identity. Give it  template <typename T> static __device__ T "
                  "identity()  returning e with op(e, x) == x (the device-wide reduce and empty inputs need it; "
                  "see warpred/operation.cuh)");
    enum { value = warpred__has_identity<Op, T>::value };
};

template <typename Op, typename T> __host__ __device__ constexpr bool warpred__identity_ok(void)
{
    return warpred__require_identity<Op, T>::value != 0;
}

template <typename Op, typename T> __device__ __forceinline__ T warpred__identity(void)
{
    if constexpr (warpred__identity_ok<Op, T>()) return Op::template identity<T>();
    else
        return T();
}

/* ---- member by member ---- */

struct warpred__probe4 {
    template <typename O, typename M> __device__ void operator()(const O &, M &, const M &, const M &) const {}
};

/* Whether Op combines the compound value T member by member (each_member). */
template <typename Op, typename T, typename = void> struct warpred__member_wise {
    enum { value = 0 };
};
template <typename Op, typename T>
struct warpred__member_wise<Op, T,
                            typename warpred__void<decltype(warpred__declval<const Op &>().each_member(
                                warpred__declval<T &>(), warpred__declval<const T &>(), warpred__declval<const T &>(),
                                warpred__declval<warpred__probe4 &>()))>::type> {
    enum { value = !warpred__is_scalar<T>::value };
};

struct warpred__combine_member {
    template <typename O, typename M>
    __device__ __forceinline__ void operator()(const O &op, M &r, const M &a, const M &b) const
    {
        r = op(a, b);
    }
};
struct warpred__identity_member {
    template <typename O, typename M>
    __device__ __forceinline__ void operator()(const O &, M &r, const M &, const M &) const
    {
        r = warpred__identity<O, M>();
    }
};

/* op(a, b) of a member-wise operation. */
template <typename Op, typename T>
__device__ __forceinline__ T warpred__combine_members(const Op &op, const T &a, const T &b)
{
    T r;
    warpred__combine_member f;
    op.each_member(r, a, b, f);
    return r;
}

/* The identity of a member-wise operation: each member's. */
template <typename T, typename Op> __device__ __forceinline__ T warpred__identity_members(const Op &op)
{
    T r, unused;
    warpred__identity_member f;
    op.each_member(r, unused, unused, f);
    return r;
}

/* each_member for operations that apply themselves to every member (warpred_elementwise). */
template <typename Op, typename F> struct warpred__member_op_walker {
    const Op *op;
    char *r0;
    const char *a0, *b0;
    F *f;
    template <typename M> __device__ __forceinline__ void operator()(M &m) const
    {
        const long long at = (char *)&m - r0;
        (*f)(*op, m, *reinterpret_cast<const M *>(a0 + at), *reinterpret_cast<const M *>(b0 + at));
    }
};

template <typename Self> struct warpred_elementwise {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const
    {
        if constexpr (!warpred__value_ok<T>()) return a;
        else if constexpr (warpred__is_scalar<T>::value)
            return Self::scalar(a, b);
        else
            return warpred__combine_members(static_cast<const Self &>(*this), a, b);
    }
    template <typename T> static __device__ __forceinline__ T identity(void)
    {
        if constexpr (!warpred__value_ok<T>()) return T();
        else if constexpr (warpred__is_scalar<T>::value)
            return Self::template scalar_identity<T>();
        else
            return warpred__identity_members<T>(Self());
    }
    template <typename T, typename F>
    __device__ __forceinline__ void each_member(T &r, const T &a, const T &b, F &f) const
    {
        warpred__member_op_walker<Self, F> walk = {static_cast<const Self *>(this), (char *)&r, (const char *)&a,
                                                   (const char *)&b, &f};
        warpred_value<T>::members(r, walk);
    }
};

/* ---- fast paths of the warp trees ---- */

template <typename Op, typename T, typename = void> struct warpred_op_warp;

struct warpred__step_member {
    template <typename O, typename M>
    __device__ __forceinline__ void operator()(const O &op, M &r, const M &a, const M &b) const
    {
        r = warpred_op_warp<O, M>::step(op, a, b);
    }
};
struct warpred__settle_member {
    unsigned segment, counted;
    template <typename O, typename M>
    __device__ __forceinline__ void operator()(const O &, M &r, const M &v, const M &) const
    {
        r = warpred_op_warp<O, M>::settle(r, v, segment, counted);
    }
};

/* The default: every step is op (member by member for member-wise operations, so that each
   member keeps its own fast path), nothing to settle but the members'. */
template <typename Op, typename T> struct warpred__default_warp {
    enum { hardware = 0, votes = 0 };
    static __device__ __forceinline__ T step(const Op &op, T a, T b)
    {
        if constexpr (warpred__member_wise<Op, T>::value) {
            T r;
            warpred__step_member f;
            op.each_member(r, a, b, f);
            return r;
        } else {
            return op(a, b);
        }
    }
    static __device__ __forceinline__ T settle(T r, T v, unsigned segment, unsigned counted)
    {
        if constexpr (warpred__member_wise<Op, T>::value) {
            warpred__settle_member f = {segment, counted};
            Op op;
            op.each_member(r, v, v, f);
        } else {
            (void)v, (void)segment, (void)counted;
        }
        return r;
    }
};

template <typename Op, typename T, typename> struct warpred_op_warp : warpred__default_warp<Op, T> {};

/* ---- accumulators of the device-wide reduce ---- */

template <typename Op, typename R, typename = void> struct warpred_op_accumulator;

struct warpred__start_member {
    template <typename O, typename M>
    __device__ __forceinline__ void operator()(const O &, M &r, const M &, const M &) const
    {
        r = warpred_op_accumulator<O, M>::start();
    }
};

/* The running state is an R and takes elements through op. */
template <typename Op, typename R> struct warpred__plain_accumulator {
    typedef R type;
    static const unsigned long long max_count = ~0ull;
    static __device__ __forceinline__ R start(void)
    {
        if constexpr (warpred__member_wise<Op, R>::value) {
            R r, unused;
            warpred__start_member f;
            Op().each_member(r, unused, unused, f);
            return r;
        } else {
            return warpred__identity<Op, R>();
        }
    }
    template <typename V> static __device__ __forceinline__ void absorb(const Op &op, R &acc, const V &v)
    {
        acc = op(acc, (R)v);
    }
    /* ((v0 v1) (v2 v3)) for K = 4: one dependent op per batch on the running state */
    template <int K, typename V>
    static __device__ __forceinline__ void absorb_batch(const Op &op, R &acc, const V (&v)[K])
    {
        R r[K];
#pragma unroll
        for (int j = 0; j < K; j++) r[j] = (R)v[j];
#pragma unroll
        for (int s = 1; s < K; s *= 2)
#pragma unroll
            for (int j = 0; j < K; j += 2 * s)
                if (j + s < K) r[j] = op(r[j], r[j + s]);
        acc = op(acc, r[0]);
    }
    static __device__ __forceinline__ R finish(const R &a) { return a; }
};

template <typename Op, typename R, typename> struct warpred_op_accumulator : warpred__plain_accumulator<Op, R> {};

#endif /* WARPRED_OPERATION_CUH */
