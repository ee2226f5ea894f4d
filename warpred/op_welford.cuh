/* warpred/op_welford.cuh - mean and variance in one numerically stable pass.      MIT licensed.

   The naive variance E[x^2] - E[x]^2 subtracts two large, nearly equal numbers: with data
   around 1e4 in float it loses every digit. Welford's running (mean, M2 = sum of squared
   deviations) keeps them, and Chan's merge of two such summaries makes it a reduction that
   every warpred layer can run:

     warpred_welford<F>          { F mean; F m2; long long count; }   F: float or double
     warpred_make_welford(x)     the summary of one value: {x, 0, 1}
     warpred_op_welford::identity<warpred_welford<F> >()   the summary of nothing: {0, 0, 0}
     warpred_op_welford          merges two summaries (Chan et al.)
     warpred_welford_mean(w)     mean (NaN when count == 0)
     warpred_welford_var_pop(w)  population variance m2 / count (NaN when count == 0)
     warpred_welford_var_sample(w)  sample variance m2 / (count - 1) (NaN when count < 2)
     warpred_xf_welford          transform for warpred_device_transform_reduce: x -> warpred_make_welford(x)

   USAGE
       #include <warpred/op_welford.cuh>
       #include <warpred/block_reduce.cuh>

       __global__ void row_stats(const float *x, int cols, float *mean, float *var)  // a block per row
       {
           warpred_welford<float> w = warpred_op_welford::identity<warpred_welford<float> >();
           for (int c = threadIdx.x; c < cols; c += blockDim.x)
               w = warpred_op_welford()(w, warpred_make_welford(x[blockIdx.x * cols + c]));
           w = warpred_block_reduce(w, warpred_op_welford());
           if (threadIdx.x == 0) {
               mean[blockIdx.x] = warpred_welford_mean(w);
               var[blockIdx.x] = warpred_welford_var_pop(w);
           }
       }
       // row {10000.25, 10000.5, 10000.75}: mean 10000.5, var 0.0416667 (the naive float
       // formula gives 0 or garbage here)

   (This snippet is compiled and checked in tests/test_welford.cu.)

   MERGE  a op b with n = a.count + b.count, delta = b.mean - a.mean:
     mean = a.mean + delta * (b.count / n),  m2 = a.m2 + b.m2 + delta^2 * (a.count * b.count / n).
   A summary with count 0 is returned unchanged by the merge (either side). So that a op b and
   b op a give the same bits (a butterfly needs it), the side with the larger count (then the
   larger mean, then m2, by bits) plays `a`. Counts are exact 64-bit integers; the weights are
   formed in F.

   ACCURACY  Each merge errs by a few units in the last place of mean and m2; what limits
   float is the data itself: a mean of 1e4 is held to 1e-3 (its ulp), so variances much
   smaller than that ulp squared are out of reach of any float method. Use double for data
   with a large offset and a tiny spread (tests/test_welford.cu measures both).

   This header needs ops.cuh and its base beside it (plus the layer you reduce with).
*/
#ifndef WARPRED_OP_WELFORD_CUH
#define WARPRED_OP_WELFORD_CUH

#include "ops.cuh"

template <typename F> struct warpred_welford {
    F mean;
    F m2;
    long long count;
};

template <typename F> struct warpred_value<warpred_welford<F> > {
    template <typename Fn> static __device__ __forceinline__ void members(warpred_welford<F> &x, Fn &f)
    {
        f(x.mean);
        f(x.m2);
        f(x.count);
    }
};

template <typename F> __host__ __device__ __forceinline__ warpred_welford<F> warpred_make_welford(F x)
{
    static_assert(warpred__same<F, float>::value || warpred__same<F, double>::value,
                  "warpred_welford: float or double");
    warpred_welford<F> w;
    w.mean = x;
    w.m2 = 0;
    w.count = 1;
    return w;
}

/* Which summary plays `a` in the merge: a fixed choice, so that the merge is commutative. */
template <typename F>
__device__ __forceinline__ bool warpred__welford_first(const warpred_welford<F> &a, const warpred_welford<F> &b)
{
    typedef warpred__float_bits<F> B;
    if (a.count != b.count) return a.count > b.count;
    if (B::bits(a.mean) != B::bits(b.mean)) return B::bits(a.mean) > B::bits(b.mean);
    return B::bits(a.m2) >= B::bits(b.m2);
}

struct warpred_op_welford {
    template <typename F>
    __device__ __forceinline__ warpred_welford<F> operator()(warpred_welford<F> x, warpred_welford<F> y) const
    {
        if (y.count == 0) return x;
        if (x.count == 0) return y;
        const bool keep = warpred__welford_first(x, y);
        const warpred_welford<F> a = keep ? x : y, b = keep ? y : x;
        warpred_welford<F> r;
        r.count = a.count + b.count;
        const F n = (F)r.count, delta = b.mean - a.mean;
        r.mean = a.mean + delta * ((F)b.count / n);
        r.m2 = a.m2 + b.m2 + delta * delta * ((F)a.count * ((F)b.count / n));
        return r;
    }
    /* {0, 0, 0}: W is a warpred_welford<F> */
    template <typename W> static __host__ __device__ __forceinline__ W identity(void)
    {
        W w;
        w.mean = 0;
        w.m2 = 0;
        w.count = 0;
        return w;
    }
};

template <typename F> __host__ __device__ __forceinline__ F warpred__welford_nan(void) { return (F)0 / (F)0; }

template <typename F> __host__ __device__ __forceinline__ F warpred_welford_mean(warpred_welford<F> w)
{
    return w.count > 0 ? w.mean : warpred__welford_nan<F>();
}
template <typename F> __host__ __device__ __forceinline__ F warpred_welford_var_pop(warpred_welford<F> w)
{
    return w.count > 0 ? w.m2 / (F)w.count : warpred__welford_nan<F>();
}
template <typename F> __host__ __device__ __forceinline__ F warpred_welford_var_sample(warpred_welford<F> w)
{
    return w.count > 1 ? w.m2 / (F)(w.count - 1) : warpred__welford_nan<F>();
}

/* For warpred_device_transform_reduce: element x becomes the summary of one value (in F: float input
   with F = double accumulates in double). */
/* The result type is spelled out (not auto) so that host code can name it with decltype, as
   the calls of device_rows.cuh do. */
template <typename F = void> struct warpred_xf_welford {
    template <typename T>
    __device__ __forceinline__ warpred_welford<typename warpred__conditional<warpred__same<F, void>::value, T, F>::type>
    operator()(T x, size_t) const
    {
        if constexpr (warpred__same<F, void>::value) return warpred_make_welford(x);
        else
            return warpred_make_welford((F)x);
    }
};

#endif /* WARPRED_OP_WELFORD_CUH */
