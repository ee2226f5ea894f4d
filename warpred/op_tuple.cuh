/* warpred/op_tuple.cuh - several values, each with its own operation, in one pass.      MIT licensed.

   A sum, a minimum, a maximum and a count are four reductions; done as one, each warp step
   issues the members' shuffles together (their latencies overlap) and a block pays its barriers
   once. Reduce a tuple with any warpred layer as you would a number:

     warpred_tuple2<A, B>, warpred_tuple3<A, B, C>, warpred_tuple4<A, B, C, D>
                                       { A v0; B v1; ... }   members of any warpred value type
     warpred_make_tuple(a, b[, c[, d]])          builds one
     warpred_op_tuple2<O0, O1>, _tuple3, _tuple4 member i is combined with operation Oi
     warpred_make_op_tuple(op0, op1[, op2[, op3]]) builds one from operation instances

   USAGE
       #include <warpred/op_tuple.cuh>
       #include <warpred/block_reduce.cuh>

       __global__ void summary(const float *x, int n, float *out)   // one block
       {
           const auto op = warpred_make_op_tuple(warpred_op_sum(), warpred_op_min(), warpred_op_max(),
                                                 warpred_op_sum());
           const float inf = __int_as_float(0x7f800000);
           warpred_tuple4<float, float, float, int> acc = warpred_make_tuple(0.0f, inf, -inf, 0);
           for (int i = threadIdx.x; i < n; i += blockDim.x) acc = op(acc, warpred_make_tuple(x[i], x[i], x[i], 1));
           acc = warpred_block_reduce(acc, op);
           if (threadIdx.x == 0) { out[0] = acc.v0; out[1] = acc.v1; out[2] = acc.v2; out[3] = (float)acc.v3; }
       }
       // x = {4, -1, 2.5}: out = {5.5, -1, 4, 3}

   (This snippet is compiled and checked in tests/test_tuple.cu.)

   SEMANTICS  Member i of the result follows Oi's rules (NaN, -0, wrapping) exactly, and each
   member keeps its operation's fast paths (float/double min/max members their one-instruction
   step and the vote at the end). At warp level member i has the very bits that reducing member
   i alone with Oi gives at the same shape. Integer, min/max and bitwise members equal separate
   calls at every level (their results do not depend on the order). A float sum member may
   differ from a separate call in the last bits at block level and above, where a tuple (a
   compound value) folds by warp results and a lone scalar rakes: block_reduce.cuh, ORDER,
   states both orders, and tests/test_tuple.cu checks them to the bit. Every result is
   deterministic. Identity: the tuple of the members' identities; the device-wide reduce
   starts each member as it starts that member's operation alone (float sums from -0).

   COST  A tuple saves latency (the members' shuffles overlap) and, at block level, barriers;
   it does not save instructions: in a throughput-bound loop at warp level it runs about as
   fast as separate calls. Figures: docs/BENCHMARKS.md (bench_compound).

   It plugs into the layers through operation.cuh's protocol alone (each_member).
   This header needs ops.cuh and its base beside it (plus the layer you reduce with).
*/
#ifndef WARPRED_OP_TUPLE_CUH
#define WARPRED_OP_TUPLE_CUH

#include "ops.cuh"

template <typename A, typename B> struct warpred_tuple2 {
    A v0;
    B v1;
};
template <typename A, typename B, typename C> struct warpred_tuple3 {
    A v0;
    B v1;
    C v2;
};
template <typename A, typename B, typename C, typename D> struct warpred_tuple4 {
    A v0;
    B v1;
    C v2;
    D v3;
};

template <typename A, typename B> struct warpred_value<warpred_tuple2<A, B> > {
    template <typename F> static __device__ __forceinline__ void members(warpred_tuple2<A, B> &x, F &f)
    {
        f(x.v0);
        f(x.v1);
    }
};
template <typename A, typename B, typename C> struct warpred_value<warpred_tuple3<A, B, C> > {
    template <typename F> static __device__ __forceinline__ void members(warpred_tuple3<A, B, C> &x, F &f)
    {
        f(x.v0);
        f(x.v1);
        f(x.v2);
    }
};
template <typename A, typename B, typename C, typename D> struct warpred_value<warpred_tuple4<A, B, C, D> > {
    template <typename F> static __device__ __forceinline__ void members(warpred_tuple4<A, B, C, D> &x, F &f)
    {
        f(x.v0);
        f(x.v1);
        f(x.v2);
        f(x.v3);
    }
};

template <typename A, typename B> __host__ __device__ __forceinline__ warpred_tuple2<A, B> warpred_make_tuple(A a, B b)
{
    warpred_tuple2<A, B> t = {a, b};
    return t;
}
template <typename A, typename B, typename C>
__host__ __device__ __forceinline__ warpred_tuple3<A, B, C> warpred_make_tuple(A a, B b, C c)
{
    warpred_tuple3<A, B, C> t = {a, b, c};
    return t;
}
template <typename A, typename B, typename C, typename D>
__host__ __device__ __forceinline__ warpred_tuple4<A, B, C, D> warpred_make_tuple(A a, B b, C c, D d)
{
    warpred_tuple4<A, B, C, D> t = {a, b, c, d};
    return t;
}

/* Member i with operation i (operation.cuh: each_member); combining, the identity and the
   warp trees' fast paths all follow from it. */
template <typename O0, typename O1> struct warpred_op_tuple2 {
    O0 op0;
    O1 op1;
    template <typename T, typename F>
    __device__ __forceinline__ void each_member(T &r, const T &a, const T &b, F &f) const
    {
        f(op0, r.v0, a.v0, b.v0);
        f(op1, r.v1, a.v1, b.v1);
    }
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const
    {
        return warpred__combine_members(*this, a, b);
    }
    template <typename T> static __device__ __forceinline__ T identity(void)
    {
        return warpred__identity_members<T>(warpred_op_tuple2());
    }
};
template <typename O0, typename O1, typename O2> struct warpred_op_tuple3 {
    O0 op0;
    O1 op1;
    O2 op2;
    template <typename T, typename F>
    __device__ __forceinline__ void each_member(T &r, const T &a, const T &b, F &f) const
    {
        f(op0, r.v0, a.v0, b.v0);
        f(op1, r.v1, a.v1, b.v1);
        f(op2, r.v2, a.v2, b.v2);
    }
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const
    {
        return warpred__combine_members(*this, a, b);
    }
    template <typename T> static __device__ __forceinline__ T identity(void)
    {
        return warpred__identity_members<T>(warpred_op_tuple3());
    }
};
template <typename O0, typename O1, typename O2, typename O3> struct warpred_op_tuple4 {
    O0 op0;
    O1 op1;
    O2 op2;
    O3 op3;
    template <typename T, typename F>
    __device__ __forceinline__ void each_member(T &r, const T &a, const T &b, F &f) const
    {
        f(op0, r.v0, a.v0, b.v0);
        f(op1, r.v1, a.v1, b.v1);
        f(op2, r.v2, a.v2, b.v2);
        f(op3, r.v3, a.v3, b.v3);
    }
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const
    {
        return warpred__combine_members(*this, a, b);
    }
    template <typename T> static __device__ __forceinline__ T identity(void)
    {
        return warpred__identity_members<T>(warpred_op_tuple4());
    }
};

template <typename O0, typename O1>
__host__ __device__ __forceinline__ warpred_op_tuple2<O0, O1> warpred_make_op_tuple(O0 a, O1 b)
{
    warpred_op_tuple2<O0, O1> op = {a, b};
    return op;
}
template <typename O0, typename O1, typename O2>
__host__ __device__ __forceinline__ warpred_op_tuple3<O0, O1, O2> warpred_make_op_tuple(O0 a, O1 b, O2 c)
{
    warpred_op_tuple3<O0, O1, O2> op = {a, b, c};
    return op;
}
template <typename O0, typename O1, typename O2, typename O3>
__host__ __device__ __forceinline__ warpred_op_tuple4<O0, O1, O2, O3> warpred_make_op_tuple(O0 a, O1 b, O2 c, O3 d)
{
    warpred_op_tuple4<O0, O1, O2, O3> op = {a, b, c, d};
    return op;
}

#endif /* WARPRED_OP_TUPLE_CUH */
