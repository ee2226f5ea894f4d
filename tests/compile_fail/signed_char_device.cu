// expect: warpred: this type is not a reducible value
#include <warpred/device_reduce.cuh>
cudaError_t f(const warpred_device_plan *plan, const signed char *in, size_t n, signed char *out)
{
    return warpred_device_reduce(plan, in, n, out, warpred_op_max());
}
