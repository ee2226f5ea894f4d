/* warpred/op_extrema.cuh - the smallest and the largest value in one pass.      MIT licensed.

   A value's minimum and maximum as one reducible pair: one shuffle per member and step, one
   barrier pair per block reduction, where two reductions would take two of everything.

     warpred_extrema<T>          { T min; T max; }   T: any scalar (types.cuh)
     warpred_make_extrema(x)     the pair of one value: {x, x}
     warpred_op_extrema          min of the mins, max of the maxes (warpred_op_min/_max rules:
                                 NaN wins, -0 < +0)
     warpred_op_extrema_num      the same with NaN ignored (warpred_op_min_num/_max_num)
     warpred_xf_extrema          transform for warpred_device_transform_reduce: x -> {x, x}

   USAGE
       #include <warpred/op_extrema.cuh>
       #include <warpred/block_reduce.cuh>

       __global__ void span(const float *x, int n, float *out)      // one block
       {
           warpred_extrema<float> e = warpred_op_extrema::identity<warpred_extrema<float> >();
           for (int i = threadIdx.x; i < n; i += blockDim.x) e = warpred_op_extrema()(e, warpred_make_extrema(x[i]));
           e = warpred_block_reduce(e, warpred_op_extrema());
           if (threadIdx.x == 0) { out[0] = e.min; out[1] = e.max; }
       }
       // x = {3, -2, 7.5, 0}: out = {-2, 7.5}

   (This snippet is compiled and checked in tests/test_extrema.cu.)

   SEMANTICS  min and max follow warpred_op_min and warpred_op_max (or their _num forms)
   exactly, member by member, at every level: each member has the bits a separate reduction of
   it gives (neither depends on the order). Identity: {+inf, -inf} (integers: the largest and
   the lowest value; _num forms: the canonical NaN in both).

   This header is written against operation.cuh's protocol alone (warpred_value, each_member,
   identity): it is the model for adding an operation of your own. It needs ops.cuh and its
   base beside it (plus the layer you reduce with).
*/
#ifndef WARPRED_OP_EXTREMA_CUH
#define WARPRED_OP_EXTREMA_CUH

#include "ops.cuh"

template <typename T> struct warpred_extrema {
    T min;
    T max;
};

/* Its members, for the layers that move it. */
template <typename T> struct warpred_value<warpred_extrema<T> > {
    template <typename F> static __device__ __forceinline__ void members(warpred_extrema<T> &x, F &f)
    {
        f(x.min);
        f(x.max);
    }
};

template <typename T> __host__ __device__ __forceinline__ warpred_extrema<T> warpred_make_extrema(T x)
{
    warpred_extrema<T> e = {x, x};
    return e;
}

/* Member min with OpMin, member max with OpMax; combining, the identity and the warp trees'
   fast paths follow from each_member. */
template <typename OpMin, typename OpMax> struct warpred__op_extrema {
    template <typename E, typename F>
    __device__ __forceinline__ void each_member(E &r, const E &a, const E &b, F &f) const
    {
        f(OpMin(), r.min, a.min, b.min);
        f(OpMax(), r.max, a.max, b.max);
    }
    template <typename E> __device__ __forceinline__ E operator()(E a, E b) const
    {
        return warpred__combine_members(*this, a, b);
    }
    template <typename E> static __device__ __forceinline__ E identity(void)
    {
        return warpred__identity_members<E>(warpred__op_extrema());
    }
};

struct warpred_op_extrema : warpred__op_extrema<warpred_op_min, warpred_op_max> {};
struct warpred_op_extrema_num : warpred__op_extrema<warpred_op_min_num, warpred_op_max_num> {};

/* For warpred_device_transform_reduce: element x becomes {x, x}. */
struct warpred_xf_extrema {
    template <typename T> __device__ __forceinline__ warpred_extrema<T> operator()(T x, size_t) const
    {
        return warpred_make_extrema(x);
    }
};

#endif /* WARPRED_OP_EXTREMA_CUH */
