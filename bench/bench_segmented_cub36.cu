/* bench/bench_segmented_cub36.cu - warpred's row reductions against CUB 3.6's fixed-size
   DeviceSegmentedReduce (Sum, Max, ArgMax: num_segments segments of segment_size elements, no
   offsets; CUB >= 3.1, ArgMax >= 3.2), on bench_segmented's rows: 2^26 floats (doubles for the
   double sum) in rows of L = 1 .. 2^24.

   CUB 3.6 and the toolkit's CUB (3.0.1 in CUDA 13.0) cannot share a translation unit, so these
   rows live in their own program: this is bench_segmented.cu built with BENCH_SEGMENTED_CUB36
   against the CCCL 3.6 headers (make bench CCCL_DIR=DIR, DIR holding CCCL 3.6's cub/,
   libcudacxx/include and thrust/, e.g. a release unpacked in .deps/cccl). It times warpred
   (AUTO), CUB 3.6 and the read ceiling, measured again in this process, taking turns as there,
   and prints the same tables and CSV rows (bench segmented_rows, the same case names; CUB's
   variant named "CUB 3.6 DeviceSegmentedReduce::...(fixed size)"), so that its ratios are within
   one run and its rows sit beside bench_segmented's. Every result is checked against the host
   reference first, as there. CUB's temporary storage is allocated once, before the timing (the
   classic two-call overloads; the environment overloads would allocate per call).
   Built against an older CUB, it prints one line saying so and exits 0.

   Usage: bench_segmented_cub36 [csv path] */
#include <cub/version.cuh>

#if CUB_VERSION < 300600
#    include <stdio.h>
int main(void)
{
    printf("bench_segmented_cub36: built against CUB %d.%d.%d, not 3.6: no CUB 3.6 segmented rows. Give the CCCL 3.6 "
           "headers: make bench CCCL_DIR=DIR (DIR holding CCCL 3.6's cub/, libcudacxx/include and thrust/)\n",
           CUB_VERSION / 100000, CUB_VERSION / 100 % 1000, CUB_VERSION % 100);
    return 0;
}
#else
#    define BENCH_SEGMENTED_CUB36 1
#    include "bench_segmented.cu"
#endif /* CUB_VERSION */
