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

   SEMANTICS  Member i of the result follows Oi's rules (NaN, -0, wrapping) exactly. At warp
   level it has the very bits that reducing member i alone with Oi gives at the same shape:
   the warp trees run each member on its own path (float/double min/max members keep the
   one-instruction step and the vote at the end). At block and grid level integer, min/max and
   bitwise members still equal separate calls (their results do not depend on the order),
   while a float sum member may differ from a separate call in the last bits: a block folds a
   tuple by warp partials and a lone scalar by raking (block_reduce.cuh, ORDER OF FLOAT SUMS;
   raking a tuple would take a shared-memory cell of the whole tuple per thread), and the grid
   layer loads fewer partials of a large value at once. Every result is still deterministic. Identity: the tuple of the members' identities (a float sum member's is +0,
   so warpred_device_reduce over only -0 gives +0 there, where warpred_device_sum gives -0).

   COST  A tuple saves latency (the members' shuffles overlap) and, at block level, barriers;
   it does not save instructions: in a throughput-bound loop at warp level it runs about as
   fast as separate calls. Measured on an H100 (`make bench`, bench_compound): see the README.

   This header needs ops.cuh beside it; copy both (plus the layer you reduce with).
*/
#ifndef WARPRED_OP_TUPLE_CUH
#define WARPRED_OP_TUPLE_CUH

#include "ops.cuh"

template <typename A, typename B> struct warpred_tuple2 { A v0; B v1; };
template <typename A, typename B, typename C> struct warpred_tuple3 { A v0; B v1; C v2; };
template <typename A, typename B, typename C, typename D> struct warpred_tuple4 { A v0; B v1; C v2; D v3; };

template <typename A, typename B> __host__ __device__ __forceinline__ warpred_tuple2<A, B> warpred_make_tuple(A a, B b)
{
    warpred_tuple2<A, B> t;
    t.v0 = a; t.v1 = b;
    return t;
}
template <typename A, typename B, typename C>
__host__ __device__ __forceinline__ warpred_tuple3<A, B, C> warpred_make_tuple(A a, B b, C c)
{
    warpred_tuple3<A, B, C> t;
    t.v0 = a; t.v1 = b; t.v2 = c;
    return t;
}
template <typename A, typename B, typename C, typename D>
__host__ __device__ __forceinline__ warpred_tuple4<A, B, C, D> warpred_make_tuple(A a, B b, C c, D d)
{
    warpred_tuple4<A, B, C, D> t;
    t.v0 = a; t.v1 = b; t.v2 = c; t.v3 = d;
    return t;
}

/* Shuffled and copied member by member by the layers. */
template <typename A, typename B, typename F> __device__ __forceinline__ void warpred__visit(warpred_tuple2<A, B> &x, F f)
{
    f(x.v0); f(x.v1);
}
template <typename A, typename B, typename C, typename F>
__device__ __forceinline__ void warpred__visit(warpred_tuple3<A, B, C> &x, F f)
{
    f(x.v0); f(x.v1); f(x.v2);
}
template <typename A, typename B, typename C, typename D, typename F>
__device__ __forceinline__ void warpred__visit(warpred_tuple4<A, B, C, D> &x, F f)
{
    f(x.v0); f(x.v1); f(x.v2); f(x.v3);
}

template <typename O0, typename O1> struct warpred_op_tuple2 {
    O0 op0;
    O1 op1;
    template <typename A, typename B>
    __device__ __forceinline__ warpred_tuple2<A, B> operator()(warpred_tuple2<A, B> a, warpred_tuple2<A, B> b) const
    {
        return warpred_make_tuple(op0(a.v0, b.v0), op1(a.v1, b.v1));
    }
    template <typename Tuple> static __device__ __forceinline__ Tuple identity(void)
    {
        Tuple t;
        t.v0 = O0::template identity<decltype(t.v0)>();
        t.v1 = O1::template identity<decltype(t.v1)>();
        return t;
    }
};
template <typename O0, typename O1, typename O2> struct warpred_op_tuple3 {
    O0 op0;
    O1 op1;
    O2 op2;
    template <typename A, typename B, typename C>
    __device__ __forceinline__ warpred_tuple3<A, B, C> operator()(warpred_tuple3<A, B, C> a, warpred_tuple3<A, B, C> b) const
    {
        return warpred_make_tuple(op0(a.v0, b.v0), op1(a.v1, b.v1), op2(a.v2, b.v2));
    }
    template <typename Tuple> static __device__ __forceinline__ Tuple identity(void)
    {
        Tuple t;
        t.v0 = O0::template identity<decltype(t.v0)>();
        t.v1 = O1::template identity<decltype(t.v1)>();
        t.v2 = O2::template identity<decltype(t.v2)>();
        return t;
    }
};
template <typename O0, typename O1, typename O2, typename O3> struct warpred_op_tuple4 {
    O0 op0;
    O1 op1;
    O2 op2;
    O3 op3;
    template <typename A, typename B, typename C, typename D>
    __device__ __forceinline__ warpred_tuple4<A, B, C, D> operator()(warpred_tuple4<A, B, C, D> a,
                                                                     warpred_tuple4<A, B, C, D> b) const
    {
        return warpred_make_tuple(op0(a.v0, b.v0), op1(a.v1, b.v1), op2(a.v2, b.v2), op3(a.v3, b.v3));
    }
    template <typename Tuple> static __device__ __forceinline__ Tuple identity(void)
    {
        Tuple t;
        t.v0 = O0::template identity<decltype(t.v0)>();
        t.v1 = O1::template identity<decltype(t.v1)>();
        t.v2 = O2::template identity<decltype(t.v2)>();
        t.v3 = O3::template identity<decltype(t.v3)>();
        return t;
    }
};

template <typename O0, typename O1> __host__ __device__ __forceinline__ warpred_op_tuple2<O0, O1> warpred_make_op_tuple(O0 a, O1 b)
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
