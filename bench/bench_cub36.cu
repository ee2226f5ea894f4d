/* bench/bench_cub36.cu - warpred's device-wide sum against CUB 3.6's DeviceReduce::Sum, default
   (run_to_run) and reproducible (cuda::execution::determinism::gpu_to_gpu), float and double,
   N = 2^10 .. 2^30, in the format of bench_reduce's device-wide table.

   CUB 3.6 and the toolkit's CUB (3.0.1 in CUDA 13.0) cannot share a translation unit, so these
   rows live in their own program. Build it against the CCCL 3.6 headers: make bench CCCL_DIR=DIR,
   DIR holding CCCL 3.6's cub/, libcudacxx/include and thrust/ (e.g. a release unpacked in
   .deps/cccl). Built against an older CUB, it prints one line saying so and exits 0.

   CUB 3.6's determinism requirements go through its environment API, which allocates temporary
   storage per call through a memory resource (the default one frees with a synchronous cudaFree,
   about 60 us). The environment here carries a resource that hands out one buffer allocated
   before the timing, so the rows time the algorithm, not the allocator.

   Method as in bench_reduce: each call timed alone with CUDA events, the variants taking turns
   call by call, median of many calls after warm-up; three whole runs, the median of the three
   medians and the median (and range) of the three ratios t_CUB / t_warpred. Below 256 MiB of
   input the calls rotate through an 8 GiB buffer (nothing left in L2).

   Usage: bench_cub36 [csv path] */
#include <cub/version.cuh>

#if CUB_VERSION < 300600
#    include <stdio.h>
int main(void)
{
    printf("bench_cub36: built against CUB %d.%d.%d, not 3.6: no CUB 3.6 rows. Give the CCCL 3.6 headers: "
           "make bench CCCL_DIR=DIR (DIR holding CCCL 3.6's cub/, libcudacxx/include and thrust/)\n",
           CUB_VERSION / 100000, CUB_VERSION / 100 % 1000, CUB_VERSION % 100);
    return 0;
}
#else

#    include <math.h>
#    include <cub/device/device_reduce.cuh>
#    include <cuda/execution>
#    include <cuda/memory_resource>
#    include <cuda/stream_ref>
#    include <cuda/std/execution>
#    include "bench_device.h"
#    include "warpred/op_rsum.cuh"

/* A memory resource that hands out one preallocated buffer (CUB takes one allocation per call
   and gives it back before the next). */
struct preallocated_resource {
    void *base;
    size_t capacity;

    void *take(size_t bytes) const
    {
        if (bytes > capacity) {
            fprintf(stderr, "bench_cub36: CUB asked for %zu bytes of temporary storage, %zu preallocated\n", bytes,
                    capacity);
            exit(1);
        }
        return base;
    }
    void *allocate(cuda::stream_ref, size_t bytes, size_t) { return take(bytes); }
    void deallocate(cuda::stream_ref, void *, size_t, size_t) noexcept {}
    void *allocate_sync(size_t bytes, size_t) { return take(bytes); }
    void deallocate_sync(void *, size_t, size_t) noexcept {}
    bool operator==(const preallocated_resource &o) const { return base == o.base; }
    bool operator!=(const preallocated_resource &o) const { return base != o.base; }
};

static preallocated_resource g_resource;

enum { CASE_FLOAT_SUM, CASE_DOUBLE_SUM, CASES };
static const char *const case_name[] = {"float sum", "double sum"};
static const size_t case_elem[] = {4, 8};
enum { V_WARPRED, V_RUN_TO_RUN, V_GPU_TO_GPU, V_CEILING, V_RSUM, VARIANTS };
static const char *const variant_name[] = {"warpred", "CUB 3.6 DeviceReduce::Sum run_to_run",
                                           "CUB 3.6 DeviceReduce::Sum gpu_to_gpu", "read ceiling",
                                           "warpred_op_rsum (reproducible)"};

typedef struct {
    int kase, variant;
    size_t n;
    char *buf;
    void *out; /* 8 bytes of device memory */
    const warpred_device_plan *plan;
} sum_ctx;

template <typename T> static cudaError_t cub36_sum(const T *x, T *out, size_t n, bool gpu_to_gpu)
{
    const auto mr = cuda::std::execution::prop{cuda::mr::get_memory_resource, g_resource};
    const auto stream = cuda::stream_ref{cudaStream_t{0}};
    if (gpu_to_gpu)
        return cub::DeviceReduce::Sum(
            x, out, n,
            cuda::std::execution::env{cuda::execution::require(cuda::execution::determinism::gpu_to_gpu), mr, stream});
    return cub::DeviceReduce::Sum(
        x, out, n,
        cuda::std::execution::env{cuda::execution::require(cuda::execution::determinism::run_to_run), mr, stream});
}

static void sum_once(void *p)
{
    sum_ctx *c = (sum_ctx *)p;
    const size_t n = c->n, bytes = n * case_elem[c->kase];
    const void *x = bench_rotated_input(c->buf, bytes);
    switch (c->variant) {
    case V_WARPRED:
        if (c->kase == CASE_FLOAT_SUM) BCHECK(warpred_device_sum(c->plan, (const float *)x, n, (float *)c->out));
        else
            BCHECK(warpred_device_sum(c->plan, (const double *)x, n, (double *)c->out));
        break;
    case V_RSUM:
        if (c->kase == CASE_FLOAT_SUM)
            BCHECK(warpred_device_reduce(c->plan, (const float *)x, n, (float *)c->out, warpred_op_rsum()));
        else
            BCHECK(warpred_device_reduce(c->plan, (const double *)x, n, (double *)c->out, warpred_op_rsum()));
        break;
    case V_CEILING:
        /* inside this #if branch clang-format splits a launch's >>> into > > > */
        // clang-format off
        k_read<<<warpred_device_blocks(c->plan, n, case_elem[c->kase]), WARPRED_DEVICE_THREADS>>>(
            (const float4 *)x, bytes / 16, (float *)c->out);
        // clang-format on
        break;
    default:
        if (c->kase == CASE_FLOAT_SUM)
            BCHECK(cub36_sum((const float *)x, (float *)c->out, n, c->variant == V_GPU_TO_GPU));
        else
            BCHECK(cub36_sum((const double *)x, (double *)c->out, n, c->variant == V_GPU_TO_GPU));
    }
}

/* The result of variant v on x[0..n) (the start of the buffer), as a double. */
static double result_of(const sum_ctx *c, int v, size_t n)
{
    unsigned char bytes[8];
    bench_result_of(c, v, n, sum_once, bytes);
    if (c->kase == CASE_FLOAT_SUM) {
        float f;
        memcpy(&f, bytes, 4);
        return f;
    }
    double d;
    memcpy(&d, bytes, 8);
    return d;
}

int main(int argc, char **argv)
{
    FILE *csv = bench_csv_open(argc > 1 ? argv[1] : "bench_cub36.csv");
    cudaDeviceProp prop;
    BCHECK(cudaGetDeviceProperties(&prop, 0));
    printf("warpred vs CUB %d.%d.%d (CCCL headers given to the build) on %s\n\n", CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
           CUB_SUBMINOR_VERSION, prop.name);

    warpred_device_plan plan;
    const char *why;
    if (warpred_device_plan_create(&plan, 0, &why) != cudaSuccess) {
        fprintf(stderr, "warpred_device_plan_create: %s\n", why);
        return 1;
    }
    sum_ctx c;
    memset(&c, 0, sizeof c);
    c.plan = &plan;
    BCHECK(cudaMalloc(&c.buf, BUF_BYTES));
    BCHECK(cudaMalloc(&c.out, 8));
    // clang-format off
    k_fill<<<4096, 256>>>((float *)c.buf, BUF_BYTES / 4);
    // clang-format on
    BCHECK(cudaGetLastError());
    g_resource.capacity = (size_t)64 << 20; /* far above what a sum asks for; checked on every call */
    BCHECK(cudaMalloc(&g_resource.base, g_resource.capacity));

    static float us[CASES][31][RUNS][VARIANTS];
    for (int run = 0; run < RUNS; run++)
        for (int kase = 0; kase < CASES; kase++)
            for (int e = 10; e <= 30; e += 2) {
                const size_t n = (size_t)1 << e;
                bench_time_sum_variants(&c, kase, e, VARIANTS, sum_once, us[kase][e][run]);
                for (int v = 0; v < VARIANTS; v++) {
                    fprintf(csv, "device_sum,\"%s\",\"%s\",%zu,%.3f,%.2f,GB/s\n", case_name[kase], variant_name[v], n,
                            us[kase][e][run][v], (double)n * case_elem[kase] / (us[kase][e][run][v] * 1e3));
                }
            }

    printf(
        "device-wide sum, warpred_device_sum vs CUB %d.%d.%d DeviceReduce::Sum through its environment API (temporary\n"
        "storage from a preallocated buffer): median us per call (median of %d runs); ratio = t_CUB / t_warpred, the "
        "median\n"
        "of the %d runs' ratios (their range in brackets); %% ceil = t_ceiling / t_warpred; results relative to "
        "warpred's\n\n",
        CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, RUNS, RUNS);
    printf("| case       | N     | warpred us | run_to_run us | ratio | (range)     | gpu_to_gpu us | ratio | (range)  "
           "   | ceiling us | %% ceil | r2r vs warpred | g2g vs warpred |\n");
    printf("|------------|-------|-----------:|--------------:|------:|-------------|--------------:|------:|----------"
           "---|-----------:|-------:|---------------:|---------------:|\n");
    for (int kase = 0; kase < CASES; kase++)
        for (int e = 10; e <= 30; e += 2) {
            const size_t n = (size_t)1 << e;
            float(*u)[VARIANTS] = us[kase][e];
            double m[VARIANTS], ratio[2], lo[2], hi[2];
            for (int v = 0; v < VARIANTS; v++) m[v] = median3(u[0][v], u[1][v], u[2][v]);
            for (int k = 0; k < 2; k++) {
                const int v = k ? V_GPU_TO_GPU : V_RUN_TO_RUN;
                double r[RUNS];
                for (int run = 0; run < RUNS; run++) r[run] = u[run][v] / u[run][V_WARPRED];
                ratio[k] = median3(r[0], r[1], r[2]);
                qsort(r, RUNS, sizeof r[0], cmp_double);
                lo[k] = r[0];
                hi[k] = r[RUNS - 1];
                fprintf(csv, "device_sum_ratio,\"%s\",\"%s / warpred median of %d\",%zu,,%.4f,ratio\n", case_name[kase],
                        variant_name[v], RUNS, n, ratio[k]);
            }
            sum_ctx k = c;
            k.kase = kase;
            const double w = result_of(&k, V_WARPRED, n), r2r = result_of(&k, V_RUN_TO_RUN, n),
                         g2g = result_of(&k, V_GPU_TO_GPU, n);
            printf("| %-10s | 2^%-3d | %10.2f | %13.2f | %5.2f | %4.2f..%4.2f  | %13.2f | %5.2f | %4.2f..%4.2f  | "
                   "%10.2f | %5.1f%% | %14.1e | %14.1e |\n",
                   case_name[kase], e, m[V_WARPRED], m[V_RUN_TO_RUN], ratio[0], lo[0], hi[0], m[V_GPU_TO_GPU], ratio[1],
                   lo[1], hi[1], m[V_CEILING], 100.0 * m[V_CEILING] / m[V_WARPRED], (r2r - w) / w, (g2g - w) / w);
        }
    printf("\n");

    printf("reproducible sum: warpred_device_reduce(..., warpred_op_rsum()) (the same bits for any grid, block size or "
           "GPU)\n"
           "vs CUB %d.%d.%d's gpu_to_gpu sum and vs warpred's plain sum: median us (median of %d runs); g2g ratio = "
           "t_gpu_to_gpu /\n"
           "t_rsum and %% plain = t_plain / t_rsum (medians of the runs' ratios); the last columns: (other - rsum) / "
           "rsum, the\n"
           "reproducible sum being the accurate one (its error bound: warpred/op_rsum.cuh)\n\n",
           CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, RUNS);
    printf("| case       | N     | rsum us | gpu_to_gpu us | g2g ratio | plain us | %% plain | g2g vs rsum | plain vs "
           "rsum |\n");
    printf("|------------|-------|--------:|--------------:|----------:|---------:|--------:|------------:|------------"
           "--:|\n");
    for (int kase = 0; kase < CASES; kase++)
        for (int e = 10; e <= 30; e += 2) {
            const size_t n = (size_t)1 << e;
            float(*u)[VARIANTS] = us[kase][e];
            double g2g[RUNS], plain[RUNS];
            for (int run = 0; run < RUNS; run++) {
                g2g[run] = u[run][V_GPU_TO_GPU] / u[run][V_RSUM];
                plain[run] = u[run][V_WARPRED] / u[run][V_RSUM];
                fprintf(csv, "rsum_ratio,\"%s\",\"gpu_to_gpu / rsum, run %d\",%zu,,%.4f,ratio\n", case_name[kase], run,
                        n, g2g[run]);
                fprintf(csv, "rsum_ratio,\"%s\",\"plain / rsum, run %d\",%zu,,%.4f,ratio\n", case_name[kase], run, n,
                        plain[run]);
            }
            sum_ctx k = c;
            k.kase = kase;
            const double r = result_of(&k, V_RSUM, n), g = result_of(&k, V_GPU_TO_GPU, n),
                         w = result_of(&k, V_WARPRED, n);
            printf("| %-10s | 2^%-3d | %7.2f | %13.2f | %9.2f | %8.2f | %6.1f%% | %11.1e | %13.1e |\n", case_name[kase],
                   e, median3(u[0][V_RSUM], u[1][V_RSUM], u[2][V_RSUM]),
                   median3(u[0][V_GPU_TO_GPU], u[1][V_GPU_TO_GPU], u[2][V_GPU_TO_GPU]), median3(g2g[0], g2g[1], g2g[2]),
                   median3(u[0][V_WARPRED], u[1][V_WARPRED], u[2][V_WARPRED]),
                   100.0 * median3(plain[0], plain[1], plain[2]), (g - r) / r, (w - r) / r);
        }
    printf("\n");
    BCHECK(cudaFree(c.buf));
    BCHECK(cudaFree(c.out));
    BCHECK(cudaFree(g_resource.base));
    BCHECK(warpred_device_plan_destroy(&plan));
    fclose(csv);
    return 0;
}
#endif /* CUB_VERSION */
