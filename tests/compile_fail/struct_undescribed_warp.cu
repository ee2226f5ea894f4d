// expect: warpred: this type is not a reducible value
#include <warpred/warp_reduce.cuh>
struct point {
    float x, y;
};
struct add_points {
    __device__ point operator()(point a, point b) const { return point{a.x + b.x, a.y + b.y}; }
};
__global__ void k(const point *in, point *out) { *out = warpred_warp_allreduce(in[threadIdx.x], add_points()); }
