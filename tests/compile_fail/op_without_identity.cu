// expect: warpred: this operation has no identity
// names: Op=my_max
#include <warpred/device_reduce.cuh>
struct my_max {
    template <typename T> __device__ T operator()(T a, T b) const { return a < b ? b : a; }
};
cudaError_t f(const warpred_device_plan *plan, const float *in, size_t n, float *out)
{
    return warpred_device_reduce(plan, in, n, out, my_max());
}
