/* warpred under NVRTC, the run-time compiler (what CuPy's RawModule and other JITs use).

   Without a GPU (runs in CI):
   - every header in warpred/ (found by listing the folder, so a new header is covered the day it
     lands) compiles alone to PTX for compute_75, compute_80, compute_90 and compute_100, with only
     the repository on NVRTC's include path;
   - kernels that instantiate each header's functions over their types compile for those archs,
     and once more with the toolkit's cuda_fp16.h / cuda_bf16.h included first (__half, __nv_bfloat16);
   - the kernels of the GPU tests below, and the kernel of the README's CuPy recipe (read from
     README.md, compiled with CuPy's options), compile for those archs;
   - a source that breaks a header's static_assert fails to compile (else the checks prove nothing).
   On a GPU: kernels using warp_reduce, block_reduce, grid_reduce, atomic_aggregate and atomic_minmax
   (float, __half, __nv_bfloat16) are compiled by NVRTC for the device's arch, loaded with the driver
   API (cuModuleLoadData, cuModuleGetFunction, cuLaunchKernel) and run; their results are checked
   against host references. The driver API is reached through cudaGetDriverEntryPointByVersion, so the
   program needs no libcuda to start on a machine without a driver. */
#include "wt.h"
#include <nvrtc.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dirent.h>
#include <warpred/grid_scratch.h>

#ifndef WT_REPO_DIR
#    error "build with -DWT_REPO_DIR=\"<repository root>\""
#endif
#ifndef WT_CUDA_INCLUDE
#    error "build with -DWT_CUDA_INCLUDE=\"<toolkit include directory>\""
#endif

static const int wt_ptx_archs[] = {75, 80, 90, 100};
enum { WT_NUM_ARCHS = sizeof wt_ptx_archs / sizeof wt_ptx_archs[0] };

/* ---- compiling ---- */

/* Compiles src for `arch` (virtual compute_XX: PTX; real sm_XX: CUBIN) and returns the image
   (malloc'd, owned by the running test) or fails the test with NVRTC's log. with_toolkit adds the
   toolkit's include directory (for cuda_fp16.h / cuda_bf16.h). */
static char *wt_nvrtc_build(const char *name, const char *src, int arch, int real, int with_toolkit, size_t *size)
{
    nvrtcProgram prog;
    nvrtcResult r = nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) fail_msg("%s: nvrtcCreateProgram: %s", name, nvrtcGetErrorString(r));
    char arch_opt[64];
    snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s_%d", real ? "sm" : "compute", arch);
    const char *opts[] = {arch_opt, "-std=c++17", "--include-path=" WT_REPO_DIR, "--include-path=" WT_CUDA_INCLUDE};
    r = nvrtcCompileProgram(prog, with_toolkit ? 4 : 3, opts);
    size_t log_size = 0, image_size = 0;
    nvrtcGetProgramLogSize(prog, &log_size);
    char *log = (char *)wt_host_alloc(log_size + 1);
    nvrtcGetProgramLog(prog, log);
    log[log_size] = '\0';
    if (r == NVRTC_SUCCESS) r = real ? nvrtcGetCUBINSize(prog, &image_size) : nvrtcGetPTXSize(prog, &image_size);
    char *image = NULL;
    if (r == NVRTC_SUCCESS && image_size > 0) {
        image = (char *)wt_host_alloc(image_size);
        r = real ? nvrtcGetCUBIN(prog, image) : nvrtcGetPTX(prog, image);
    }
    nvrtcDestroyProgram(&prog);
    if (r != NVRTC_SUCCESS || image == NULL) {
        printf("%s\n", log);
        fail_msg("%s (%s): NVRTC failed: %s", name, arch_opt, nvrtcGetErrorString(r));
    }
    wt_host_free(log);
    if (size) *size = image_size;
    return image;
}

/* PTX for every arch in wt_ptx_archs; each names its target. */
static void wt_nvrtc_ptx_all_archs(const char *name, const char *src, int with_toolkit)
{
    for (int a = 0; a < WT_NUM_ARCHS; a++) {
        char *ptx = wt_nvrtc_build(name, src, wt_ptx_archs[a], 0, with_toolkit, NULL);
        char target[32];
        snprintf(target, sizeof target, ".target sm_%d", wt_ptx_archs[a]);
        if (!strstr(ptx, target)) fail_msg("%s: the PTX for compute_%d has no '%s'", name, wt_ptx_archs[a], target);
        wt_host_free(ptx);
    }
}

/* ---- sources ---- */

static const char *const wt_warp_src =
    "#include <warpred/warp_reduce.cuh>\n"
    "template <typename T> __device__ void all_ops(T *p) {\n"
    "    T v = p[threadIdx.x];\n"
    "    p[0] = warpred_warp_reduce(v, warpred_op_sum()) + warpred_warp_allreduce<4>(v, warpred_op_min());\n"
    "    p[1] = warpred_warp_reduce_partial<8>(v, warpred_op_max(), 20) + warpred_warp_allreduce_partial(v, "
    "warpred_op_max_num(), 7);\n"
    "    p[2] = warpred_warp_allreduce<16>(v, warpred_op_min_num());\n"
    "}\n"
    "template <typename T> __device__ void bit_ops(T *p) {\n"
    "    T v = p[threadIdx.x];\n"
    "    p[3] = warpred_warp_reduce(v, warpred_op_and()) | warpred_warp_allreduce(v, warpred_op_or())\n"
    "         | warpred_warp_reduce_partial<2>(v, warpred_op_xor(), 9);\n"
    "}\n"
    "__global__ void k(int *a, unsigned *b, long long *c, unsigned long long *d, float *e, double *f) {\n"
    "    all_ops(a); all_ops(b); all_ops(c); all_ops(d); all_ops(e); all_ops(f);\n"
    "    bit_ops(a); bit_ops(b); bit_ops(c); bit_ops(d);\n"
    "}\n";

static const char *const wt_block_src = "#include <warpred/block_reduce.cuh>\n"
                                        "__global__ void k(int *a, double *b, unsigned long long *c) {\n"
                                        "    a[0] = warpred_block_reduce(a[threadIdx.x], warpred_op_sum());\n"
                                        "    b[0] = warpred_block_allreduce(b[threadIdx.x], warpred_op_max());\n"
                                        "    c[0] = warpred_block_reduce(c[threadIdx.x], warpred_op_xor());\n"
                                        "    a[1] = warpred_block_allreduce<128>(a[threadIdx.x], warpred_op_min());\n"
                                        "}\n";

static const char *const wt_aggregate_src =
    "#include <warpred/atomic_aggregate.cuh>\n"
    "__global__ void k(int *a, unsigned *b, long long *c, unsigned long long *d, float *e, double *f) {\n"
    "    a[1] = warpred_atomic_inc_agg(a) + warpred_atomic_add_agg(a, 3);\n"
    "    b[1] = warpred_atomic_inc_agg(b) + warpred_atomic_add_agg(b, 3u);\n"
    "    c[1] = warpred_atomic_add_agg(c, 3ll);\n"
    "    d[1] = warpred_atomic_inc_agg(d) + warpred_atomic_add_agg(d, 3ull);\n"
    "    e[1] = warpred_atomic_add_agg(e, 1.5f);\n"
    "    f[1] = warpred_atomic_add_agg(f, 1.5);\n"
    "}\n";

static const char *const wt_minmax_src =
    "#include <warpred/atomic_minmax.cuh>\n"
    "__global__ void k(float *a, double *b) {\n"
    "    a[1] = warpred_atomic_fmaximum(a, 1.0f) + warpred_atomic_fminimum(a, 1.0f)\n"
    "         + warpred_atomic_fmaximum_num(a, 1.0f) + warpred_atomic_fminimum_num(a, 1.0f);\n"
    "    b[1] = warpred_atomic_fmaximum(b, 1.0) + warpred_atomic_fminimum(b, 1.0)\n"
    "         + warpred_atomic_fmaximum_num(b, 1.0) + warpred_atomic_fminimum_num(b, 1.0);\n"
    "}\n";

static const char *const wt_grid_src =
    "#include <warpred/grid_reduce.cuh>\n"
    "__global__ void k(const float *x, warpred_grid_scratch s, float *out, double *d, int *i) {\n"
    "    warpred_grid_reduce(x[threadIdx.x], warpred_op_sum(), s, out);\n"
    "    warpred_grid_reduce((double)x[threadIdx.x], warpred_op_max(), s, d);\n"
    "    if (warpred_grid_reduce((int)x[threadIdx.x], warpred_op_xor(), s, i)) i[1] = 1;\n"
    "    d[1] = warpred_block_reduce_valid((double)x[0], warpred_op_min(), 3)\n"
    "         + warpred_block_allreduce_valid((double)x[1], warpred_op_sum(), 5);\n"
    "}\n";

/* The value and operation protocols: vector types, a user struct, 64-bit integers, compound
   operations, and the device-wide reduce's kernel (its host part is left out under NVRTC). */
static const char *const wt_values_src =
    "#include <warpred/warpred.cuh>\n"
    "struct pt { float x, y, z; template <typename F> __device__ void warpred_members(F &f) { f(x); f(y); f(z); } };\n"
    "__global__ void k(float2 *a, pt *b, long *c, unsigned long *d, warpred_extrema<float> *e, warpred_grid_scratch s) "
    "{\n"
    "    a[0] = warpred_block_reduce(a[threadIdx.x], warpred_op_max());\n"
    "    b[0] = warpred_warp_allreduce(b[threadIdx.x], warpred_op_sum());\n"
    "    c[0] = warpred_block_allreduce<64>(c[threadIdx.x], warpred_op_sum());\n"
    "    d[0] = warpred_warp_reduce(d[threadIdx.x], warpred_op_xor());\n"
    "    warpred_grid_reduce(warpred_make_extrema(a[threadIdx.x].x), warpred_op_extrema(), s, e);\n"
    "}\n"
    "template __global__ void warpred__device_reduce_kernel<pt, pt, warpred_op_sum, warpred_xf_identity>(\n"
    "    const pt *, size_t, warpred_grid_scratch, pt *, warpred_op_sum, warpred_xf_identity);\n"
    "template __global__ void warpred__device_reduce_kernel<float, float, warpred_op_rsum, warpred_xf_identity>(\n"
    "    const float *, size_t, warpred_grid_scratch, float *, warpred_op_rsum, warpred_xf_identity);\n";

/* The cluster calls (their code exists for compute_90 and newer only, as in a user's multi-arch
   build): both cluster reductions, the once form over a scalar and a compound value, and a
   cluster reducer in a loop (one per kernel) over a scalar and over a compound value. */
static const char *const wt_cluster_src =
    "#include <warpred/cluster_allreduce_once.cuh>\n"
    "#include <warpred/cluster_reducer.cuh>\n"
    "#include <warpred/op_argminmax.cuh>\n"
    "__global__ void k(float *x, warpred_arg<float, int> *a) {\n"
    "#if WARPRED_HAS_CLUSTERS\n"
    "    warpred_cluster_allreduce_once_begin();\n"
    "    x[0] = warpred_cluster_reduce(x[threadIdx.x], warpred_op_max());\n"
    "    x[1] = warpred_cluster_allreduce<256>(x[threadIdx.x], warpred_op_sum());\n"
    "    a[threadIdx.x] = warpred_cluster_allreduce_once(a[threadIdx.x], warpred_op_argmax());\n"
    "#endif\n"
    "}\n"
    "__global__ void k2(float *x) {\n"
    "#if WARPRED_HAS_CLUSTERS\n"
    "    warpred_cluster_allreduce_once_begin();\n"
    "    x[threadIdx.x] = warpred_cluster_allreduce_once<128>(x[threadIdx.x], warpred_op_sum());\n"
    "#endif\n"
    "}\n"
    "__global__ void k3(const float *x, float *y, int rows) {\n"
    "#if WARPRED_HAS_CLUSTERS\n"
    "    WARPRED_CLUSTER_REDUCER(sum, float, 256);\n"
    "    for (int r = 0; r < rows; r++) {\n"
    "        const float s = sum.allreduce(x[r * 256 + threadIdx.x], warpred_op_sum());\n"
    "        y[r] = sum.allreduce(s, warpred_op_max());\n"
    "    }\n"
    "#endif\n"
    "}\n"
    "typedef warpred_arg<float, int> pair;\n" /* a macro argument cannot hold the comma */
    "__global__ void k4(pair *a, int rows) {\n"
    "#if WARPRED_HAS_CLUSTERS\n"
    "    WARPRED_CLUSTER_REDUCER(best, pair, 0);\n"
    "    for (int r = 0; r < rows; r++) a[r] = best.allreduce(a[r * blockDim.x + threadIdx.x], warpred_op_argmax());\n"
    "#endif\n"
    "}\n";

static const char *const wt_umbrella_src =
    "#include <warpred/warpred.cuh>\n"
    "__global__ void k(float *a) { a[0] = warpred_block_reduce(a[threadIdx.x], warpred_op_min()); }\n";

static const char *const wt_half_src = "#include <cuda_fp16.h>\n"
                                       "#include <cuda_bf16.h>\n"
                                       "#include <warpred/warpred.cuh>\n"
                                       "__global__ void k(__half *h, __nv_bfloat16 *b) {\n"
                                       "    h[0] = warpred_block_reduce(h[threadIdx.x], warpred_op_sum());\n"
                                       "    h[1] = warpred_warp_allreduce<8>(h[threadIdx.x], warpred_op_max());\n"
                                       "    b[0] = warpred_block_allreduce(b[threadIdx.x], warpred_op_min_num());\n"
                                       "    b[1] = warpred_warp_reduce_partial(b[threadIdx.x], warpred_op_sum(), 5);\n"
                                       "    h[2] = warpred_atomic_fmaximum(h + 3, h[threadIdx.x]);\n"
                                       "    b[2] = warpred_atomic_fminimum_num(b + 3, b[threadIdx.x]);\n"
                                       "}\n";

/* The reproducible vector sum: its per-element functions in a kernel of one's own, and the three
   kernels behind its host calls, for float (without the toolkit) and __nv_bfloat16 / __half (with it). */
static const char *const wt_vector_rsum_src =
    "#include <warpred/vector_rsum.cuh>\n"
    "__global__ void k(const float *x, unsigned char *e, long long *s, float *out) {\n"
    "    e[threadIdx.x] = (unsigned char)warpred_vector_rsum_exponent(x[threadIdx.x]);\n"
    "    s[threadIdx.x] = warpred_vector_rsum_to_fixed(x[threadIdx.x], e[0]);\n"
    "    out[threadIdx.x] = warpred_vector_rsum_value(s[threadIdx.x], e[0]);\n"
    "}\n"
    "template __global__ void warpred__vrsum_exponents_kernel<float, true>(warpred__vrsum_batch<float>, size_t,\n"
    "    unsigned char *, int);\n"
    "template __global__ void warpred__vrsum_fixed_kernel<float, false>(warpred__vrsum_batch<float>, size_t,\n"
    "    const unsigned char *, long long *, int);\n"
    "template __global__ void warpred__vrsum_finish_kernel<true>(const long long *, const unsigned char *, size_t,\n"
    "    float *);\n";

static const char *const wt_vector_rsum_half_src =
    "#include <cuda_fp16.h>\n"
    "#include <cuda_bf16.h>\n"
    "#include <warpred/vector_rsum.cuh>\n"
    "template __global__ void warpred__vrsum_exponents_kernel<__nv_bfloat16, true>(\n"
    "    warpred__vrsum_batch<__nv_bfloat16>, size_t, unsigned char *, int);\n"
    "template __global__ void warpred__vrsum_fixed_kernel<__half, true>(warpred__vrsum_batch<__half>, size_t,\n"
    "    const unsigned char *, long long *, int);\n";

/* The kernels the GPU tests run (extern "C": the driver finds them by these names). */
static const char *const wt_run_warp_src =
    "#include <warpred/warp_reduce.cuh>\n"
    "extern \"C\" __global__ void wt_warp(const int *xi, const float *xf, int *sums, float *maxes, int *mins) {\n"
    "    const int t = threadIdx.x, lane = t % 32, warp = t / 32;\n"
    "    const int s = warpred_warp_reduce(xi[t], warpred_op_sum());\n"
    "    if (lane == 0) sums[warp] = s;\n"
    "    maxes[t] = warpred_warp_allreduce<8>(xf[t], warpred_op_max());\n"
    "    if (lane < 20) {\n"
    "        const int m = warpred_warp_reduce_partial(xi[t], warpred_op_min(), 20);\n"
    "        if (lane == 0) mins[warp] = m;\n"
    "    }\n"
    "}\n";

static const char *const wt_run_block_src =
    "#include <warpred/block_reduce.cuh>\n"
    "extern \"C\" __global__ void wt_block(const int *xi, const double *xd, int *sum, double *maxes, int *valid_sum) "
    "{\n"
    "    const int t = threadIdx.x;\n"
    "    const int s = warpred_block_reduce(xi[t], warpred_op_sum());\n"
    "    if (t == 0) sum[0] = s;\n"
    "    maxes[t] = warpred_block_allreduce(xd[t], warpred_op_max());\n"
    "    const int v = warpred_block_reduce_valid(xi[t], warpred_op_sum(), 150);\n"
    "    if (t == 0) valid_sum[0] = v;\n"
    "}\n";

static const char *const wt_run_grid_src =
    "#include <warpred/grid_reduce.cuh>\n"
    "extern \"C\" __global__ void wt_grid(const float *x, unsigned n, warpred_grid_scratch s, double *out) {\n"
    "    double acc = 0;\n"
    "    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += x[i];\n"
    "    warpred_grid_reduce(acc, warpred_op_sum(), s, out);\n"
    "}\n";

static const char *const wt_run_aggregate_src =
    "#include <warpred/atomic_aggregate.cuh>\n"
    "extern \"C\" __global__ void wt_aggregate(const int *x, unsigned *counter, unsigned *slots, int *acc) {\n"
    "    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (x[t] % 3 != 0) slots[t] = warpred_atomic_inc_agg(counter);\n"
    "    warpred_atomic_add_agg(acc, x[t]);\n"
    "}\n";

static const char *const wt_run_minmax_src =
    "#include <cuda_fp16.h>\n"
    "#include <cuda_bf16.h>\n"
    "#include <warpred/atomic_minmax.cuh>\n"
    "extern \"C\" __global__ void wt_minmax(const float *x, unsigned n, float *fmax, float *fmin_num,\n"
    "                                      __half *hmax, __nv_bfloat16 *bmin) {\n"
    "    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (t >= n) return;\n"
    "    warpred_atomic_fmaximum(fmax, x[t]);\n"
    "    warpred_atomic_fminimum_num(fmin_num, x[t]);\n"
    "    warpred_atomic_fmaximum(hmax, __float2half(x[t]));\n"
    "    warpred_atomic_fminimum(bmin, __float2bfloat16(x[t]));\n"
    "}\n";


/* The kernel source of the README's CuPy recipe (between `src = r"""` and `"""`), malloc'd and owned
   by the running test: the test compiles exactly what the README shows, with CuPy's options. */
static char *wt_readme_cupy_source(void)
{
    char *text = wt_read_file(WT_REPO_DIR "/README.md");
    const char *open_mark = "src = r\"\"\"\n";
    char *start = strstr(text, open_mark);
    char *end = start ? strstr(start + strlen(open_mark), "\"\"\"") : NULL;
    if (!start || !end) fail_msg("README.md has no CuPy recipe (src = r\"\"\" ... \"\"\")");
    start += strlen(open_mark);
    *end = '\0';
    memmove(text, start, (size_t)(end - start) + 1);
    return text;
}

/* ---- no GPU needed ---- */

static int wt_compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int wt_is_header(const char *name)
{
    size_t n = strlen(name);
    return (n > 4 && strcmp(name + n - 4, ".cuh") == 0) || (n > 2 && strcmp(name + n - 2, ".h") == 0);
}

static void test_nvrtc_supports_the_archs(void **state)
{
    (void)state;
    int n = 0, archs[128];
    assert_int_equal(nvrtcGetNumSupportedArchs(&n), NVRTC_SUCCESS);
    assert_true(n > 0 && n <= 128);
    assert_int_equal(nvrtcGetSupportedArchs(archs), NVRTC_SUCCESS);
    for (int a = 0; a < WT_NUM_ARCHS; a++) {
        int found = 0;
        for (int i = 0; i < n; i++) found |= archs[i] == wt_ptx_archs[a];
        if (!found) fail_msg("this NVRTC cannot compile for sm_%d", wt_ptx_archs[a]);
    }
}

/* Every header in warpred/, alone, with only the repository on the include path, every arch. */
static void test_nvrtc_every_header_alone(void **state)
{
    (void)state;
    DIR *dir = opendir(WT_REPO_DIR "/warpred");
    if (!dir) fail_msg("cannot list %s/warpred", WT_REPO_DIR);
    char *names[256];
    int count = 0, has_ops = 0;
    for (struct dirent *e = readdir(dir); e; e = readdir(dir)) {
        if (!wt_is_header(e->d_name)) continue;
        if (count == 256) break;
        names[count] = (char *)wt_host_alloc(strlen(e->d_name) + 1);
        strcpy(names[count++], e->d_name);
        has_ops |= strcmp(e->d_name, "ops.cuh") == 0;
    }
    closedir(dir);
    if (count == 256) fail_msg("more than 256 headers in warpred/");
    if (!has_ops) fail_msg("warpred/ops.cuh not found: is WT_REPO_DIR (%s) the repository?", WT_REPO_DIR);
    qsort(names, count, sizeof names[0], wt_compare_names);
    for (int h = 0; h < count; h++) {
        char src[512];
        snprintf(src, sizeof src,
                 "#include <warpred/%s>\n"
                 "__global__ void wt_version(int *p) { *p = WARPRED_VERSION; }\n",
                 names[h]);
        wt_nvrtc_ptx_all_archs(names[h], src, 0);
        printf("[ INFO     ] %-24s compiles alone under NVRTC for compute_75, _80, _90, _100\n", names[h]);
        wt_host_free(names[h]);
    }
}

/* One test per source: compiled alone for every arch (Toolkit: with the toolkit's include path). */
#define WT_NVRTC_TEST(NAME, SRC, TOOLKIT) \
    static void test_nvrtc_##NAME(void **state) { (void)state, wt_nvrtc_ptx_all_archs(#NAME, SRC, TOOLKIT); }
WT_NVRTC_TEST(warp_reduce, wt_warp_src, 0)
WT_NVRTC_TEST(block_reduce, wt_block_src, 0)
WT_NVRTC_TEST(atomic_aggregate, wt_aggregate_src, 0)
WT_NVRTC_TEST(atomic_minmax, wt_minmax_src, 0)
WT_NVRTC_TEST(grid_reduce, wt_grid_src, 0)
WT_NVRTC_TEST(umbrella, wt_umbrella_src, 0)
WT_NVRTC_TEST(cluster, wt_cluster_src, 0)
WT_NVRTC_TEST(values, wt_values_src, 0)
WT_NVRTC_TEST(half_types, wt_half_src, 1)
WT_NVRTC_TEST(vector_rsum, wt_vector_rsum_src, 0)
WT_NVRTC_TEST(vector_rsum_16bit, wt_vector_rsum_half_src, 1)

static void test_nvrtc_run_kernels_compile(void **state)
{
    (void)state;
    wt_nvrtc_ptx_all_archs("run_warp", wt_run_warp_src, 0);
    wt_nvrtc_ptx_all_archs("run_block", wt_run_block_src, 0);
    wt_nvrtc_ptx_all_archs("run_grid", wt_run_grid_src, 0);
    wt_nvrtc_ptx_all_archs("run_aggregate", wt_run_aggregate_src, 0);
    wt_nvrtc_ptx_all_archs("run_minmax", wt_run_minmax_src, 1);
}

static void test_nvrtc_readme_cupy_recipe(void **state)
{
    (void)state;
    char *src = wt_readme_cupy_source();
    if (!strstr(src, "block_sums")) fail_msg("the README's CuPy kernel is no longer block_sums: update this test");
    wt_nvrtc_ptx_all_archs("README CuPy recipe", src, 0);
    wt_host_free(src);
}

/* A header that does not compile must make these checks fail, or they prove nothing. */
static void test_nvrtc_rejects_bad_source(void **state)
{
    (void)state;
    nvrtcProgram prog;
    const char *src = "#include <warpred/warp_reduce.cuh>\n"
                      "__global__ void k(float *p) { p[0] = warpred_warp_reduce<3>(p[0], warpred_op_sum()); }\n";
    assert_int_equal(nvrtcCreateProgram(&prog, src, "bad", 0, NULL, NULL), NVRTC_SUCCESS);
    const char *opts[] = {"--gpu-architecture=compute_90", "--include-path=" WT_REPO_DIR};
    assert_int_not_equal(nvrtcCompileProgram(prog, 2, opts), NVRTC_SUCCESS); /* Width 3: static_assert */
    nvrtcDestroyProgram(&prog);
}

/* ---- on a GPU: compile for this device, load with the driver API, run, check ---- */

static struct {
    PFN_cuModuleLoadData_v2000 load;
    PFN_cuModuleGetFunction_v2000 get_function;
    PFN_cuLaunchKernel_v4000 launch;
    PFN_cuModuleUnload_v2000 unload;
    PFN_cuGetErrorString_v6000 error_string;
    int ready;
} wt_cu;

#define WT_CU(call)                                                                         \
    do {                                                                                    \
        CUresult wt_r_ = (call);                                                            \
        if (wt_r_ != CUDA_SUCCESS) {                                                        \
            const char *wt_s_ = "unknown error";                                            \
            wt_cu.error_string(wt_r_, &wt_s_);                                              \
            fail_msg("%s:%d: %s -> %d (%s)", __FILE__, __LINE__, #call, (int)wt_r_, wt_s_); \
        }                                                                                   \
    } while (0)

static int wt_entry(const char *symbol, void **fn)
{
    cudaDriverEntryPointQueryResult q;
    cudaError_t err = cudaGetDriverEntryPointByVersion(symbol, fn, CUDA_VERSION, cudaEnableDefault, &q);
    if (err != cudaSuccess || q != cudaDriverEntryPointSuccess || !*fn) {
        printf("[ ERROR    ] driver entry point %s: %s\n", symbol, cudaGetErrorString(err));
        return 0;
    }
    return 1;
}

static int wt_nvrtc_group_setup(void **state)
{
    wt_group_setup(state);
    if (!wt_has_gpu) return 0;
    wt_cu.ready = wt_entry("cuModuleLoadData", (void **)&wt_cu.load) &&
                  wt_entry("cuModuleGetFunction", (void **)&wt_cu.get_function) &&
                  wt_entry("cuLaunchKernel", (void **)&wt_cu.launch) &&
                  wt_entry("cuModuleUnload", (void **)&wt_cu.unload) &&
                  wt_entry("cuGetErrorString", (void **)&wt_cu.error_string);
    return 0;
}

static void wt_release_module(void *m) { wt_cu.unload((CUmodule)m); }

/* The arch NVRTC compiles for on this device: its own (CUBIN), or, if this NVRTC does not know it,
   PTX for the newest arch it knows (the driver finishes the compile). */
static void wt_device_arch(int *arch, int *real)
{
    int dev = 0, major = 0, minor = 0, n = 0, archs[128];
    WT_CUDA(cudaGetDevice(&dev));
    WT_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    WT_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    *arch = major * 10 + minor;
    *real = 0;
    nvrtcGetNumSupportedArchs(&n);
    if (n > 128) n = 128;
    nvrtcGetSupportedArchs(archs);
    int best = 0;
    for (int i = 0; i < n; i++) {
        if (archs[i] == *arch) *real = 1;
        if (archs[i] <= *arch && archs[i] > best) best = archs[i];
    }
    if (!*real) *arch = best;
}

/* Compiles src with NVRTC for this device, loads it (the module is owned by the test), returns `kernel`. */
static CUfunction wt_load_kernel(const char *src, const char *kernel, int with_toolkit)
{
    if (!wt_cu.ready) fail_msg("the CUDA driver's module entry points could not be loaded");
    WT_CUDA(cudaFree(0)); /* the runtime makes the device's primary context current: the driver calls use it */
    int arch, real;
    wt_device_arch(&arch, &real);
    char *image = wt_nvrtc_build(kernel, src, arch, real, with_toolkit, NULL);
    CUmodule module;
    WT_CU(wt_cu.load(&module, image));
    wt_host_free(image);
    wt_own((void *)module, wt_release_module);
    CUfunction f;
    WT_CU(wt_cu.get_function(&f, module, kernel));
    return f;
}

static void wt_launch(CUfunction f, unsigned blocks, unsigned threads, void **args)
{
    WT_CU(wt_cu.launch(f, blocks, 1, 1, threads, 1, 1, 0, NULL, args, NULL));
    WT_LAUNCHED();
}

static uint32_t wt_fbits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static void test_nvrtc_run_warp_reduce(void **state)
{
    WT_NEED_GPU(state);
    enum { T = 128, W = T / 32 };
    CUfunction f = wt_load_kernel(wt_run_warp_src, "wt_warp", 0);
    int xi[T];
    float xf[T];
    for (int t = 0; t < T; t++) {
        xi[t] = wt_rand_below(2001) - 1000;
        xf[t] = (float)(wt_rand_below(2001) - 1000) / 4.0f;
    }
    xf[5] = NAN; /* segment 0 (lanes 0..7): max is the canonical NaN */
    for (int t = 8; t < 16; t++) xf[t] = -1.0f - (float)t;
    xf[9] = -0.0f; /* segment 1: -0 < +0, so the max is +0 */
    xf[10] = 0.0f;
    int *d_xi = (int *)wt_dev_alloc(sizeof xi), *d_sums = (int *)wt_dev_alloc(W * sizeof(int));
    int *d_mins = (int *)wt_dev_alloc(W * sizeof(int));
    float *d_xf = (float *)wt_dev_alloc(sizeof xf), *d_maxes = (float *)wt_dev_alloc(sizeof xf);
    wt_to_dev(d_xi, xi, sizeof xi);
    wt_to_dev(d_xf, xf, sizeof xf);
    void *args[] = {&d_xi, &d_xf, &d_sums, &d_maxes, &d_mins};
    wt_launch(f, 1, T, args);
    int sums[W], mins[W];
    float maxes[T];
    wt_to_host(sums, d_sums, sizeof sums);
    wt_to_host(mins, d_mins, sizeof mins);
    wt_to_host(maxes, d_maxes, sizeof maxes);
    for (int w = 0; w < W; w++) {
        int sum = 0, min = INT32_MAX;
        for (int l = 0; l < 32; l++) sum += xi[w * 32 + l];
        for (int l = 0; l < 20; l++) min = xi[w * 32 + l] < min ? xi[w * 32 + l] : min;
        if (sums[w] != sum) fail_msg("warp %d: sum %d, expected %d", w, sums[w], sum);
        if (mins[w] != min) fail_msg("warp %d: min of lanes 0..19 %d, expected %d", w, mins[w], min);
    }
    for (int t = 0; t < T; t++) {
        const int seg = t / 8 * 8;
        float max = -INFINITY;
        int nan = 0;
        for (int l = seg; l < seg + 8; l++) {
            nan |= isnan(xf[l]);
            if (xf[l] > max || (xf[l] == 0.0f && max == 0.0f && !signbit(xf[l]))) max = xf[l];
        }
        const uint32_t want = nan ? 0x7fffffffu : wt_fbits(max);
        if (wt_fbits(maxes[t]) != want)
            fail_msg("thread %d: 8-lane max bits %08x, expected %08x", t, wt_fbits(maxes[t]), want);
    }
}

static void test_nvrtc_run_block_reduce(void **state)
{
    WT_NEED_GPU(state);
    enum { T = 200 }; /* the last warp has 8 threads */
    CUfunction f = wt_load_kernel(wt_run_block_src, "wt_block", 0);
    int xi[T];
    double xd[T];
    for (int t = 0; t < T; t++) {
        xi[t] = wt_rand_below(2001) - 1000;
        xd[t] = wt_rand_unit() * 2e6 - 1e6;
    }
    int *d_xi = (int *)wt_dev_alloc(sizeof xi), *d_sum = (int *)wt_dev_alloc(sizeof(int));
    int *d_valid = (int *)wt_dev_alloc(sizeof(int));
    double *d_xd = (double *)wt_dev_alloc(sizeof xd), *d_maxes = (double *)wt_dev_alloc(sizeof xd);
    wt_to_dev(d_xi, xi, sizeof xi);
    wt_to_dev(d_xd, xd, sizeof xd);
    void *args[] = {&d_xi, &d_xd, &d_sum, &d_maxes, &d_valid};
    wt_launch(f, 1, T, args);
    int sum, valid;
    double maxes[T];
    wt_to_host(&sum, d_sum, sizeof sum);
    wt_to_host(&valid, d_valid, sizeof valid);
    wt_to_host(maxes, d_maxes, sizeof maxes);
    int want_sum = 0, want_valid = 0;
    double want_max = -INFINITY;
    for (int t = 0; t < T; t++) {
        want_sum += xi[t];
        if (t < 150) want_valid += xi[t];
        if (xd[t] > want_max) want_max = xd[t];
    }
    assert_int_equal(sum, want_sum);
    assert_int_equal(valid, want_valid);
    for (int t = 0; t < T; t++)
        if (maxes[t] != want_max) fail_msg("thread %d: block max %.17g, expected %.17g", t, maxes[t], want_max);
}

static void test_nvrtc_run_grid_reduce(void **state)
{
    WT_NEED_GPU(state);
    const unsigned blocks = 37, threads = 128, n = wt_quick() ? 10007 : 100003;
    CUfunction f = wt_load_kernel(wt_run_grid_src, "wt_grid", 0);
    float *x = (float *)wt_host_alloc(n * sizeof(float));
    double want = 0; /* integers: the double sum is exact */
    for (unsigned i = 0; i < n; i++) {
        x[i] = (float)(wt_rand_below(2001) - 1000);
        want += x[i];
    }
    warpred_grid_scratch s;
    const char *why;
    if (warpred_grid_scratch_create(&s, blocks, sizeof(double), &why) != cudaSuccess) fail_msg("scratch: %s", why);
    wt_own(s.partials, wt_release_dev);
    wt_own(s.counter, wt_release_dev);
    float *d_x = (float *)wt_dev_alloc(n * sizeof(float));
    double *d_out = (double *)wt_dev_alloc(2 * sizeof(double));
    wt_to_dev(d_x, x, n * sizeof(float));
    double *out0 = d_out, *out1 = d_out + 1;
    void *args0[] = {&d_x, (void *)&n, &s, &out0};
    void *args1[] = {&d_x, (void *)&n, &s, &out1};
    wt_launch(f, blocks, threads, args0);
    wt_launch(f, blocks, threads, args1); /* no reset between launches */
    double out[2];
    wt_to_host(out, d_out, sizeof out);
    if (warpred_grid_scratch_status(&s, &why) != cudaSuccess) fail_msg("scratch status: %s", why);
    for (int k = 0; k < 2; k++)
        if (out[k] != want) fail_msg("launch %d: grid sum %.17g, expected %.17g", k, out[k], want);
}

static void test_nvrtc_run_atomic_aggregate(void **state)
{
    WT_NEED_GPU(state);
    enum { BLOCKS = 8, THREADS = 256, N = BLOCKS * THREADS };
    CUfunction f = wt_load_kernel(wt_run_aggregate_src, "wt_aggregate", 0);
    int x[N];
    unsigned calls = 0;
    int want_acc = 0;
    for (int t = 0; t < N; t++) {
        x[t] = wt_rand_below(1000);
        calls += x[t] % 3 != 0;
        want_acc += x[t];
    }
    int *d_x = (int *)wt_dev_alloc(sizeof x), *d_acc = (int *)wt_dev_alloc(sizeof(int));
    unsigned *d_counter = (unsigned *)wt_dev_alloc(sizeof(unsigned)),
             *d_slots = (unsigned *)wt_dev_alloc(N * sizeof(unsigned));
    WT_CUDA(cudaMemset(d_counter, 0, sizeof(unsigned)));
    WT_CUDA(cudaMemset(d_acc, 0, sizeof(int)));
    wt_to_dev(d_x, x, sizeof x);
    void *args[] = {&d_x, &d_counter, &d_slots, &d_acc};
    wt_launch(f, BLOCKS, THREADS, args);
    unsigned counter, slots[N];
    int acc;
    wt_to_host(&counter, d_counter, sizeof counter);
    wt_to_host(slots, d_slots, sizeof slots);
    wt_to_host(&acc, d_acc, sizeof acc);
    assert_int_equal(counter, calls);
    assert_int_equal(acc, want_acc);
    unsigned char *seen = (unsigned char *)wt_host_alloc_zeroed(calls);
    for (int t = 0; t < N; t++) {
        if (x[t] % 3 == 0) continue;
        if (slots[t] >= calls || seen[slots[t]])
            fail_msg("thread %d: slot %u repeated or out of 0..%u", t, slots[t], calls - 1);
        seen[slots[t]] = 1;
    }
}

static uint16_t wt_half_bits(__half h)
{
    uint16_t b;
    memcpy(&b, &h, 2);
    return b;
}
static uint16_t wt_bf16_bits(__nv_bfloat16 h)
{
    uint16_t b;
    memcpy(&b, &h, 2);
    return b;
}

static void test_nvrtc_run_atomic_minmax(void **state)
{
    WT_NEED_GPU(state);
    enum { N = 3000 };
    CUfunction f = wt_load_kernel(wt_run_minmax_src, "wt_minmax", 1);
    float x[N];
    for (int i = 0; i < N; i++) x[i] = (float)(wt_rand_below(401) - 200) * 0.5f; /* exact in half and bfloat16 */
    x[wt_rand_below(N - 1)] = -0.0f;
    x[N - 1] = NAN; /* only the second launch sees it */
    float *d_x = (float *)wt_dev_alloc(sizeof x);
    wt_to_dev(d_x, x, sizeof x);
    for (int with_nan = 0; with_nan < 2; with_nan++) {
        const unsigned n = with_nan ? N : N - 1;
        float init[2] = {-INFINITY, INFINITY};
        const __half h_init = __float2half(-INFINITY);
        const __nv_bfloat16 b_init = __float2bfloat16(INFINITY);
        float *d_f = (float *)wt_dev_alloc(sizeof init);
        __half *d_h = (__half *)wt_dev_alloc(sizeof(__half));
        __nv_bfloat16 *d_b = (__nv_bfloat16 *)wt_dev_alloc(sizeof(__nv_bfloat16));
        wt_to_dev(d_f, init, sizeof init);
        wt_to_dev(d_h, &h_init, sizeof h_init);
        wt_to_dev(d_b, &b_init, sizeof b_init);
        float *d_fmax = d_f, *d_fmin = d_f + 1;
        void *args[] = {&d_x, (void *)&n, &d_fmax, &d_fmin, &d_h, &d_b};
        wt_launch(f, (n + 255) / 256, 256, args);
        float got[2];
        __half h;
        __nv_bfloat16 b;
        wt_to_host(got, d_f, sizeof got);
        wt_to_host(&h, d_h, sizeof h);
        wt_to_host(&b, d_b, sizeof b);
        float max = -INFINITY, min = INFINITY;
        for (unsigned i = 0; i < N - 1; i++) {
            if (x[i] > max) max = x[i];
            if (x[i] < min || (x[i] == 0.0f && min == 0.0f && signbit(x[i]))) min = x[i];
        }
        const uint32_t want_fmax = with_nan ? 0x7fffffffu : wt_fbits(max);
        const uint16_t want_h = with_nan ? 0x7fffu : wt_half_bits(__float2half(max));
        const uint16_t want_b = with_nan ? 0xffffu : wt_bf16_bits(__float2bfloat16(min));
        if (wt_fbits(got[0]) != want_fmax)
            fail_msg("nan=%d: float fmaximum bits %08x, expected %08x", with_nan, wt_fbits(got[0]), want_fmax);
        if (wt_fbits(got[1]) != wt_fbits(min))
            fail_msg("nan=%d: float fminimum_num bits %08x, expected %08x", with_nan, wt_fbits(got[1]), wt_fbits(min));
        if (wt_half_bits(h) != want_h)
            fail_msg("nan=%d: __half fmaximum bits %04x, expected %04x", with_nan, wt_half_bits(h), want_h);
        if (wt_bf16_bits(b) != want_b)
            fail_msg("nan=%d: bfloat16 fminimum bits %04x, expected %04x", with_nan, wt_bf16_bits(b), want_b);
        wt_dev_free(d_f);
        wt_dev_free(d_h);
        wt_dev_free(d_b);
    }
}

/* The README's CuPy kernel, as CuPy would run it: block sums of integers (exact in float). */
static void test_nvrtc_run_readme_cupy_recipe(void **state)
{
    WT_NEED_GPU(state);
    enum { BLOCKS = 6, THREADS = 256, N = BLOCKS * THREADS };
    char *src = wt_readme_cupy_source();
    CUfunction f = wt_load_kernel(src, "block_sums", 0);
    wt_host_free(src);
    float x[N], sums[BLOCKS];
    for (int i = 0; i < N; i++) x[i] = (float)(wt_rand_below(2001) - 1000);
    float *d_x = (float *)wt_dev_alloc(sizeof x), *d_out = (float *)wt_dev_alloc(sizeof sums);
    wt_to_dev(d_x, x, sizeof x);
    void *args[] = {&d_x, &d_out};
    wt_launch(f, BLOCKS, THREADS, args);
    wt_to_host(sums, d_out, sizeof sums);
    for (int b = 0; b < BLOCKS; b++) {
        double want = 0;
        for (int t = 0; t < THREADS; t++) want += x[b * THREADS + t];
        if (sums[b] != want) fail_msg("block %d: sum %.9g, expected %.9g", b, sums[b], want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(test_nvrtc_supports_the_archs),
        WT_TEST(test_nvrtc_every_header_alone),
        WT_TEST(test_nvrtc_warp_reduce),
        WT_TEST(test_nvrtc_block_reduce),
        WT_TEST(test_nvrtc_atomic_aggregate),
        WT_TEST(test_nvrtc_atomic_minmax),
        WT_TEST(test_nvrtc_grid_reduce),
        WT_TEST(test_nvrtc_umbrella),
        WT_TEST(test_nvrtc_cluster),
        WT_TEST(test_nvrtc_values),
        WT_TEST(test_nvrtc_half_types),
        WT_TEST(test_nvrtc_vector_rsum),
        WT_TEST(test_nvrtc_vector_rsum_16bit),
        WT_TEST(test_nvrtc_run_kernels_compile),
        WT_TEST(test_nvrtc_readme_cupy_recipe),
        WT_TEST(test_nvrtc_rejects_bad_source),
        WT_TEST(test_nvrtc_run_warp_reduce),
        WT_TEST(test_nvrtc_run_block_reduce),
        WT_TEST(test_nvrtc_run_grid_reduce),
        WT_TEST(test_nvrtc_run_atomic_aggregate),
        WT_TEST(test_nvrtc_run_atomic_minmax),
        WT_TEST(test_nvrtc_run_readme_cupy_recipe),
    };
    return cmocka_run_group_tests(tests, wt_nvrtc_group_setup, NULL);
}
