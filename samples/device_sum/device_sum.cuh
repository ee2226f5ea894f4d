/* samples/device_sum/device_sum.cuh - a device-wide sum in one launch, built on
   warpred_grid_reduce. Sample code: copy it and adapt it.

   Each thread runs a grid-stride loop of 16-byte vector loads (several in flight per thread),
   with scalar loads for the elements before the first 16-byte boundary and after the last
   full vector; counts are size_t (2^31 and above work). Then one warpred_grid_reduce call
   leaves the sum in *out. No memset between calls: the scratch resets itself.

     device_sum_plan plan;
     device_sum_plan_create(&plan);                    // once: scratch + grid size
     device_sum(&plan, x, n, out, stream);             // float in, float out
     device_sum_accurate(&plan, x, n, out, stream);    // float in, accumulated in double
     device_sum_int(&plan, xi, n, out_ll, stream);     // int in, exact long long out
     device_sum_plan_destroy(&plan);

   Accuracy: device_sum adds in float (each thread sequentially over about n / (threads in
   the grid) values, then a tree), so its relative error grows with that count.
   device_sum_accurate accumulates in double and rounds once at the end: within about one
   ulp of the correctly rounded sum unless the data cancel catastrophically. Doubles are
   cheap on an H100 (FP64 at half the FP32 rate); on GPUs with slow FP64 measure it first.

   Results are deterministic for a fixed n and device: the grid size depends only on n and
   the device. */
#ifndef DEVICE_SUM_CUH
#define DEVICE_SUM_CUH

#include <stdint.h>
#include <cuda_runtime.h>
#include <warpred/grid_reduce.cuh>

enum {
    DEVICE_SUM_THREADS = 256,      /* block size */
    DEVICE_SUM_UNROLL = 4,         /* 16-byte loads in flight per thread */
};

/* 16-byte vectors: their type, element count, and how a thread adds one to its total. */
template <typename T> struct ds_vec;
template <> struct ds_vec<float> {
    typedef float4 V;
    enum { K = 4 };
};
template <> struct ds_vec<int> {
    typedef int4 V;
    enum { K = 4 };
};
template <typename Acc> __device__ __forceinline__ Acc ds_add(Acc acc, float4 v)
{
    return acc + (((Acc)v.x + (Acc)v.y) + ((Acc)v.z + (Acc)v.w));
}
template <typename Acc> __device__ __forceinline__ Acc ds_add(Acc acc, int4 v)
{
    return acc + (((Acc)v.x + (Acc)v.y) + ((Acc)v.z + (Acc)v.w));
}

/* This thread's share of x[0..n): scalar head up to the 16-byte boundary, vectors, tail. */
template <typename T, typename Acc>
__device__ __forceinline__ Acc ds_thread_sum(const T *__restrict__ x, size_t n)
{
    typedef typename ds_vec<T>::V V;
    const int K = ds_vec<T>::K;
    const size_t g = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t G = (size_t)gridDim.x * blockDim.x;
    const size_t misalign = ((uintptr_t)x % 16) / sizeof(T);
    size_t head = misalign ? K - misalign : 0;
    if (head > n) head = n;
    Acc acc = 0;
    if (g < head) acc += (Acc)x[g];

    const V *__restrict__ xv = (const V *)(x + head);
    const size_t nv = (n - head) / K;
    size_t i = g;
    for (; i + (DEVICE_SUM_UNROLL - 1) * G < nv; i += DEVICE_SUM_UNROLL * G) {
        V v[DEVICE_SUM_UNROLL];
#pragma unroll
        for (int u = 0; u < DEVICE_SUM_UNROLL; u++) v[u] = __ldg(&xv[i + u * G]); /* all loads first */
#pragma unroll
        for (int u = 0; u < DEVICE_SUM_UNROLL; u++) acc = ds_add(acc, v[u]);
    }
    for (; i < nv; i += G) acc = ds_add(acc, __ldg(&xv[i]));

    const size_t tail = head + nv * K;
    if (g < n - tail) acc += (Acc)x[tail + g];
    return acc;
}

/* Sums x[0..n) in Acc; the last block converts the total to Out. `total` is one Acc of
   device memory that holds the unconverted result. */
template <typename T, typename Acc, typename Out>
__global__ void __launch_bounds__(DEVICE_SUM_THREADS)
device_sum_kernel(const T *__restrict__ x, size_t n, warpred_grid_scratch scratch, Acc *total, Out *out)
{
    const Acc acc = ds_thread_sum<T, Acc>(x, n);
    if (warpred_grid_reduce<DEVICE_SUM_THREADS>(acc, warpred_op_sum(), scratch, total)) *out = (Out)*total;
}

typedef struct {
    warpred_grid_scratch scratch; /* partials sized for double, the widest accumulator */
    double *total;                /* one accumulator's worth of device memory */
    unsigned max_blocks;          /* blocks that fit on the device at once */
    unsigned vectors_per_thread;  /* below one wave, the grid gives each thread this many */
} device_sum_plan;

/* Grid size: enough blocks that each thread loads plan->vectors_per_thread vectors, at most
   one wave (then the grid-stride loop takes over). */
static inline unsigned device_sum_blocks(const device_sum_plan *plan, size_t n, int per_vector)
{
    const size_t per_block = (size_t)DEVICE_SUM_THREADS * plan->vectors_per_thread * per_vector;
    size_t blocks = (n + per_block - 1) / per_block;
    if (blocks < 1) blocks = 1;
    return blocks < plan->max_blocks ? (unsigned)blocks : plan->max_blocks;
}

static inline cudaError_t device_sum_plan_create(device_sum_plan *plan)
{
    int device, sms, per_sm = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (err == cudaSuccess)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, device_sum_kernel<float, double, float>,
                                                            DEVICE_SUM_THREADS, 0);
    if (err != cudaSuccess) return err;
    plan->max_blocks = (unsigned)(sms * (per_sm > 0 ? per_sm : 1));
    plan->vectors_per_thread = DEVICE_SUM_UNROLL;
    err = warpred_grid_scratch_create(&plan->scratch, plan->max_blocks, sizeof(double), NULL);
    if (err == cudaSuccess) err = cudaMalloc((void **)&plan->total, sizeof(double));
    return err;
}

static inline void device_sum_plan_destroy(device_sum_plan *plan)
{
    warpred_grid_scratch_destroy(&plan->scratch);
    cudaFree(plan->total);
}

static inline cudaError_t device_sum(const device_sum_plan *plan, const float *x, size_t n, float *out, cudaStream_t stream)
{
    device_sum_kernel<float, float, float><<<device_sum_blocks(plan, n, 4), DEVICE_SUM_THREADS, 0, stream>>>(
        x, n, plan->scratch, (float *)plan->total, out);
    return cudaGetLastError();
}

static inline cudaError_t device_sum_accurate(const device_sum_plan *plan, const float *x, size_t n, float *out,
                                              cudaStream_t stream)
{
    device_sum_kernel<float, double, float><<<device_sum_blocks(plan, n, 4), DEVICE_SUM_THREADS, 0, stream>>>(
        x, n, plan->scratch, plan->total, out);
    return cudaGetLastError();
}

static inline cudaError_t device_sum_int(const device_sum_plan *plan, const int *x, size_t n, long long *out,
                                         cudaStream_t stream)
{
    device_sum_kernel<int, long long, long long><<<device_sum_blocks(plan, n, 4), DEVICE_SUM_THREADS, 0, stream>>>(
        x, n, plan->scratch, (long long *)plan->total, out);
    return cudaGetLastError();
}

#endif /* DEVICE_SUM_CUH */
