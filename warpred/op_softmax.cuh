/* warpred/op_softmax.cuh - the (max, sum of exp) pair of an online softmax.      MIT licensed.

   softmax(x)_i = exp(x_i - m) / s with m = max x and s = sum exp(x_j - m). The pair (m, s) can
   be formed in one pass: each part of the data keeps its own (m, s), and two parts merge by
   rescaling the sum of the one with the smaller maximum. warpred makes that merge an
   operation that every layer can run:

     warpred_softmax<F>        { F max; F sum; }   F: float or double
     warpred_make_softmax(x)   the pair of one value: {x, 1}; -inf gives {-inf, 0}
     warpred_op_softmax        merges two pairs
     warpred_xf_softmax        transform for warpred_device_transform_reduce: x -> warpred_make_softmax(x)

   USAGE
       #include <warpred/op_softmax.cuh>
       #include <warpred/block_reduce.cuh>

       __global__ void softmax_rows(const float *x, int cols, float *y)   // one block per row
       {
           const float *row = x + (size_t)blockIdx.x * cols;
           warpred_softmax<float> p = warpred_op_softmax::identity<warpred_softmax<float> >();
           for (int c = threadIdx.x; c < cols; c += blockDim.x)
               p = warpred_op_softmax()(p, warpred_make_softmax(row[c]));
           p = warpred_block_allreduce(p, warpred_op_softmax());
           for (int c = threadIdx.x; c < cols; c += blockDim.x)
               y[(size_t)blockIdx.x * cols + c] = expf(row[c] - p.max) / p.sum;
       }
       // row {1, 2, 3}: y = {0.0900306, 0.244728, 0.665241}

   (This snippet is compiled and checked in tests/test_softmax.cu.)

   MERGE  m = max(m1, m2); s = s1 * exp(m1 - m) + s2 * exp(m2 - m), where a factor whose
   mi == m is taken as exactly 1 (never exp(-inf - -inf) = exp(NaN)). Commutative bit for bit.
   Identity: {-inf, 0}.

   SPECIAL VALUES
     -inf inputs     contribute 0 to the sum; a row of only -inf gives (-inf, 0), never NaN
                     (softmax itself is then 0/0: decide what your kernel wants there).
     +inf inputs     max = +inf and sum = the number of +inf inputs (finite inputs add
                     exp(-inf) = 0); exp(x - m) is then NaN at the +inf positions, as in
                     torch.softmax.
     NaN inputs      the pair becomes (NaN, NaN), canonical NaNs: the max is warpred_op_max's.
   exp is expf / exp: --use_fast_math turns expf into the faster, less exact __expf.

   This header needs ops.cuh and its base beside it (plus the layer you reduce with).
*/
#ifndef WARPRED_OP_SOFTMAX_CUH
#define WARPRED_OP_SOFTMAX_CUH

#include "ops.cuh"

template <typename F> struct warpred_softmax {
    F max;
    F sum;
};

template <typename F> struct warpred_value<warpred_softmax<F> > {
    template <typename Fn> static __device__ __forceinline__ void members(warpred_softmax<F> &x, Fn &f)
    {
        f(x.max);
        f(x.sum);
    }
};

template <typename F> __device__ __forceinline__ warpred_softmax<F> warpred_make_softmax(F x)
{
    static_assert(warpred__same<F, float>::value || warpred__same<F, double>::value,
                  "warpred_softmax: float or double");
    warpred_softmax<F> p;
    p.max = x;
    p.sum = x == warpred__lowest<F>() ? (F)0 : (F)1;
    return p;
}

__device__ __forceinline__ float warpred__exp(float x) { return expf(x); }
__device__ __forceinline__ double warpred__exp(double x) { return exp(x); }

struct warpred_op_softmax {
    template <typename F>
    __device__ __forceinline__ warpred_softmax<F> operator()(warpred_softmax<F> a, warpred_softmax<F> b) const
    {
        warpred_softmax<F> r;
        r.max = warpred_op_max()(a.max, b.max);
        if (warpred__isnan(r.max)) {
            r.sum = r.max;
            return r;
        }
        const F sa = a.max == r.max ? a.sum : a.sum * warpred__exp(a.max - r.max);
        const F sb = b.max == r.max ? b.sum : b.sum * warpred__exp(b.max - r.max);
        r.sum = sa + sb;
        return r;
    }
    template <typename P> static __device__ __forceinline__ P identity(void)
    {
        typedef decltype(P().max) F;
        P p;
        p.max = warpred__lowest<F>();
        p.sum = 0;
        return p;
    }
};

/* For warpred_device_transform_reduce: element x becomes the pair of one value. */
struct warpred_xf_softmax {
    template <typename F> __device__ __forceinline__ warpred_softmax<F> operator()(F x, size_t) const
    {
        return warpred_make_softmax(x);
    }
};

#endif /* WARPRED_OP_SOFTMAX_CUH */
