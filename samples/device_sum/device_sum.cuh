/* samples/device_sum/device_sum.cuh - the sample's former API, now a thin wrapper over the
   library's device-wide reduction (warpred/device_reduce.cuh). New code calls the library
   directly, as main.cu does:

     device_sum(&p, x, n, out, s)           == warpred_device_sum(&p.plan, x, n, out, s)
     device_sum_int(&p, xi, n, out_ll, s)   == warpred_device_reduce(&p.plan, xi, n, out_ll,
                                                 warpred_op_sum(), warpred_xf_to<long long>(), s)
     device_sum_accurate(&p, x, n, out, s)  sums in double (warpred_xf_to<double>) into
                                            p.total, then a one-thread kernel rounds it to float
                                            into *out: two launches

   It stays only while code written against it (the device-sum cases of
   tests/test_grid_reduce.cu) moves to tests/test_device_reduce.cu; then it goes away. */
#ifndef DEVICE_SUM_CUH
#define DEVICE_SUM_CUH

#include <cuda_runtime.h>
#include <warpred/device_reduce.cuh>

typedef struct {
    warpred_device_plan plan; /* scratch and grid size of the library's reduction */
    double *total;            /* device memory: the double sum of device_sum_accurate */
} device_sum_plan;

static inline cudaError_t device_sum_plan_create(device_sum_plan *p)
{
    cudaError_t err = warpred_device_plan_create(&p->plan, 0, NULL);
    p->total = NULL;
    if (err == cudaSuccess) err = cudaMalloc((void **)&p->total, sizeof(double));
    return err;
}

static inline void device_sum_plan_destroy(device_sum_plan *p)
{
    warpred_device_plan_destroy(&p->plan);
    cudaFree(p->total);
    p->total = NULL;
}

static inline cudaError_t device_sum(const device_sum_plan *p, const float *x, size_t n, float *out, cudaStream_t stream)
{
    return warpred_device_sum(&p->plan, x, n, out, stream);
}

__global__ void device_sum_round(const double *total, float *out) { *out = (float)*total; }

static inline cudaError_t device_sum_accurate(const device_sum_plan *p, const float *x, size_t n, float *out, cudaStream_t stream)
{
    cudaError_t err = warpred_device_reduce(&p->plan, x, n, p->total, warpred_op_sum(), warpred_xf_to<double>(), stream);
    if (err != cudaSuccess) return err;
    device_sum_round<<<1, 1, 0, stream>>>(p->total, out);
    return cudaGetLastError();
}

static inline cudaError_t device_sum_int(const device_sum_plan *p, const int *x, size_t n, long long *out, cudaStream_t stream)
{
    return warpred_device_reduce(&p->plan, x, n, out, warpred_op_sum(), warpred_xf_to<long long>(), stream);
}

#endif /* DEVICE_SUM_CUH */
