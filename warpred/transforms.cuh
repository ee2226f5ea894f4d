/* warpred/transforms.cuh - per-element transforms for the reductions called from the host.
   MIT licensed, see LICENSE.

   warpred_device_transform_reduce (device_reduce.cuh) combines f(in[i], i) over an array: f is
   a transform, a function object with

       __device__ R operator()(T x, size_t i) const        i: the element's index

   which may hold state (pointers to other arrays, thresholds). Here are the two plain ones:
     warpred_xf_identity     x
     warpred_xf_to<R>()      (R)x; __half and __nv_bfloat16 go through float
   and beside their operations, in the op_*.cuh headers: warpred_xf_arg (x, i -> {x, i}),
   warpred_xf_welford<>, warpred_xf_softmax, warpred_xf_extrema.

   This header needs config.cuh and version.h beside it.
*/
#ifndef WARPRED_TRANSFORMS_CUH
#define WARPRED_TRANSFORMS_CUH

#include "config.cuh"

/* 16-bit floats convert through float (exact); everything else directly. */
template <typename R, typename T> __device__ __forceinline__ R warpred__convert(T x) { return (R)x; }
#if defined(__CUDA_FP16_TYPES_EXIST__)
template <typename R> __device__ __forceinline__ R warpred__convert(__half x) { return (R)__half2float(x); }
#endif
#if defined(__CUDA_BF16_TYPES_EXIST__)
template <typename R> __device__ __forceinline__ R warpred__convert(__nv_bfloat16 x) { return (R)__bfloat162float(x); }
#endif

struct warpred_xf_identity {
    template <typename T> __device__ __forceinline__ T operator()(T x, size_t) const { return x; }
};

template <typename R> struct warpred_xf_to {
    template <typename T> __device__ __forceinline__ R operator()(T x, size_t) const { return warpred__convert<R>(x); }
};

#endif /* WARPRED_TRANSFORMS_CUH */
