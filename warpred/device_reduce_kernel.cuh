/* warpred/device_reduce_kernel.cuh - the kernel behind warpred_device_reduce.      MIT licensed.

   device_reduce.cuh's host functions launch warpred__device_reduce_kernel; this header holds
   it apart from them, so that NVRTC (which compiles no host code) and other launchers can use
   it. Each thread reads its share of the array with 16-byte loads (WARPRED_DEVICE_LOADS in
   flight), takes each transformed element into the operation's accumulator (operation.cuh,
   warpred_op_accumulator: the value itself for every plain operation), and the blocks' states
   meet in grid_reduce.cuh's fold; the thread that ends with the total converts it (finish) and
   stores it. Element types whose size does not divide 16 (a 12-byte struct, say) are read one
   element at a time, WARPRED_DEVICE_LOADS in flight.

   This header needs grid_reduce.cuh, transforms.cuh and what they need beside it.
*/
#ifndef WARPRED_DEVICE_REDUCE_KERNEL_CUH
#define WARPRED_DEVICE_REDUCE_KERNEL_CUH

#include "grid_reduce.cuh"
#include "transforms.cuh"
#ifndef __CUDACC_RTC__
#    include <string.h> /* memcpy, which NVRTC has built in */
#endif

enum {
    WARPRED_DEVICE_THREADS = 256, /* block size of warpred_device_reduce's kernel */
    WARPRED_DEVICE_LOADS = 4      /* loads in flight per thread */
};

/* Elements of T in one 16-byte load, or 0 when T does not fit a 16-byte load evenly. */
template <typename T> struct warpred__per_vector {
    enum { value = 16 % sizeof(T) == 0 ? 16 / sizeof(T) : 0 };
};

/* N elements e[0 .. N), the first at index `first`, into the state as one batch. */
template <int N, typename T, typename Acc, typename Op, typename F>
__device__ __forceinline__ void warpred__device_take_span(typename Acc::type &acc, const T *e, size_t first, Op op, F f)
{
    typedef decltype(f(e[0], first)) V;
    V t[N];
#pragma unroll
    for (int j = 0; j < N; j++) t[j] = f(e[j], first + j);
    Acc::template absorb_batch<N>(op, acc, t);
}

/* The K elements of one 16-byte load, the first at index `first`, into the state. */
template <typename T, typename Acc, typename Op, typename F>
__device__ __forceinline__ void warpred__device_take_vector(typename Acc::type &acc, uint4 raw, size_t first, Op op,
                                                            F f)
{
    enum { K = warpred__per_vector<T>::value };
    T e[K];
    memcpy(e, &raw, 16); /* registers only: the compiler turns this into moves */
    warpred__device_take_span<K, T, Acc>(acc, e, first, op, f);
}

/* This thread's share of f(in[i], i), i < n, for T of 1, 2, 4, 8 or 16 bytes: scalar loads up
   to the first 16-byte boundary (the head), a grid-stride loop of 16-byte loads with
   WARPRED_DEVICE_LOADS in flight, scalar loads for the rest (the tail). */
template <typename T, typename Acc, typename Op, typename F>
__device__ __forceinline__ void warpred__device_thread_vectors(typename Acc::type &acc, const T *__restrict__ in,
                                                               size_t n, Op op, F f)
{
    enum { K = warpred__per_vector<T>::value, U = WARPRED_DEVICE_LOADS };
    const size_t g = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t G = (size_t)gridDim.x * blockDim.x;
    const size_t misalign = ((size_t)in % 16) / sizeof(T);
    size_t head = misalign ? K - misalign : 0;
    if (head > n) head = n;
    if (g < head) Acc::absorb(op, acc, f(in[g], g));

    const uint4 *__restrict__ vec = (const uint4 *)(in + head);
    const size_t nv = (n - head) / K;
    size_t i = g;
    for (; i + (U - 1) * G < nv; i += U * G) {
        uint4 raw[U];
#pragma unroll
        for (int u = 0; u < U; u++) raw[u] = __ldg(&vec[i + u * G]); /* all loads first */
#pragma unroll
        for (int u = 0; u < U; u++) warpred__device_take_vector<T, Acc>(acc, raw[u], head + (i + u * G) * K, op, f);
    }
    for (; i < nv; i += G) warpred__device_take_vector<T, Acc>(acc, __ldg(&vec[i]), head + i * K, op, f);

    const size_t tail = head + nv * K;
    if (g < n - tail) Acc::absorb(op, acc, f(in[tail + g], tail + g));
}

/* The same for any other T: one element per load, WARPRED_DEVICE_LOADS in flight. */
template <typename T, typename Acc, typename Op, typename F>
__device__ __forceinline__ void warpred__device_thread_elements(typename Acc::type &acc, const T *__restrict__ in,
                                                                size_t n, Op op, F f)
{
    enum { U = WARPRED_DEVICE_LOADS };
    const size_t g = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t G = (size_t)gridDim.x * blockDim.x;
    size_t i = g;
    for (; i + (U - 1) * G < n; i += U * G) {
        T e[U];
#pragma unroll
        for (int u = 0; u < U; u++) e[u] = in[i + u * G]; /* all loads first */
#pragma unroll
        for (int u = 0; u < U; u++) Acc::absorb(op, acc, f(e[u], i + u * G));
    }
    for (; i < n; i += G) Acc::absorb(op, acc, f(in[i], i));
}

/* *out = v with every byte of the object written, its padding too (a compound result such as
   warpred_arg<float, long long> has four bytes of it), so that copying the result back reads no
   uninitialized memory (compute-sanitizer's initcheck flags that). A field-wise copy leaves the
   padding unwritten; words passed through a register move are stored whatever they hold. */
template <typename R> __device__ __forceinline__ void warpred__store_whole(R *out, const R &v)
{
    if constexpr (sizeof(R) % 4 == 0 && alignof(R) >= 4) {
        unsigned w[sizeof(R) / 4];
        memcpy(w, &v, sizeof(R));
#pragma unroll
        for (unsigned i = 0; i < sizeof(R) / 4; i++) {
            unsigned x;
            asm("mov.b32 %0, %1;" : "=r"(x) : "r"(w[i]));
            ((unsigned *)out)[i] = x;
        }
    } else
        *out = v;
}

template <typename T, typename R, typename Op, typename F>
__global__ void __launch_bounds__(WARPRED_DEVICE_THREADS)
    warpred__device_reduce_kernel(const T *__restrict__ in, size_t n, warpred_grid_scratch scratch, R *out, Op op, F f)
{
    typedef warpred_op_accumulator<Op, R> Acc;
    typename Acc::type acc = Acc::start();
    if constexpr (warpred__per_vector<T>::value != 0) warpred__device_thread_vectors<T, Acc>(acc, in, n, op, f);
    else
        warpred__device_thread_elements<T, Acc>(acc, in, n, op, f);
    typename Acc::type total;
    if (warpred__grid_fold<WARPRED_DEVICE_THREADS>(acc, op, scratch, total))
        warpred__store_whole(out, Acc::finish(total));
}

/* n == 0: the operation's identity, finished. */
template <typename R, typename Op> __global__ void warpred__device_identity_kernel(R *out, Op)
{
    typedef warpred_op_accumulator<Op, R> Acc;
    warpred__store_whole(out, Acc::finish(warpred__identity<Op, typename Acc::type>()));
}

#endif /* WARPRED_DEVICE_REDUCE_KERNEL_CUH */
