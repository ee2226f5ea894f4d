// expect: with elements of more than 48 bytes the accumulator may be at most 48 bytes
#include <warpred/device_rows.cuh>
#include <warpred/op_tuple.cuh>
typedef warpred_tuple4<double2, double2, double2, double2> wide; /* 64 bytes, reduced as they are */
cudaError_t f(const warpred_rows_plan *plan, const wide *in, const size_t *b, const size_t *e, size_t n, wide *out)
{
    const auto op = warpred_make_op_tuple(warpred_op_max(), warpred_op_max(), warpred_op_max(), warpred_op_max());
    return warpred_device_reduce_ranges(plan, in, b, e, n, out, op, 0, 0);
}
