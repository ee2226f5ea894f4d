// expect: warpred: this type is not a reducible value
#include <warpred/device_reduce.cuh>
struct point {
    float x, y;
};
cudaError_t f(const warpred_device_plan *plan, const point *in, size_t n, point *out)
{
    return warpred_device_reduce(plan, in, n, out, warpred_op_sum());
}
