/* tests/wt_ulp.h - how many floats apart two results are. Plain host C++ with no test-harness
   dependency, so that the benchmarks share it (build them with -Itests). */
#ifndef WT_ULP_H
#define WT_ULP_H

#include <stdint.h>
#include <string.h>

/* The number of steps from a to b along the finite floats in increasing order, with -0 and +0
   one point (so 1 and the next float up are 1 apart, and the smallest subnormals either side
   of zero are 2 apart). a and b must be finite. The position of a float on that line is its
   bit pattern read as a sign-magnitude integer. */
static inline long long wt_ulp_distance(float a, float b)
{
    int32_t ia, ib;
    memcpy(&ia, &a, sizeof ia);
    memcpy(&ib, &b, sizeof ib);
    const long long ka = ia < 0 ? -(long long)(ia & 0x7fffffff) : ia;
    const long long kb = ib < 0 ? -(long long)(ib & 0x7fffffff) : ib;
    return ka > kb ? ka - kb : kb - ka;
}

#endif /* WT_ULP_H */
