/* Every warpred header compiles under NVRTC for sm_90 (no GPU needed): on its own with only the
   repository on the include path (no host or toolkit headers), with kernels that instantiate
   its functions; and once more with the toolkit's cuda_fp16.h / cuda_bf16.h included first, so
   that the __half and __nv_bfloat16 paths compile too. Host-only test: it runs in CI. */
#include "wt.h"
#include <nvrtc.h>

#ifndef WT_REPO_DIR
#  error "build with -DWT_REPO_DIR=\"<repository root>\""
#endif
#ifndef WT_CUDA_INCLUDE
#  error "build with -DWT_CUDA_INCLUDE=\"<toolkit include directory>\""
#endif

/* Compiles src; on failure fails the test with NVRTC's log. */
static void wt_nvrtc_compile(const char *name, const char *src, int with_toolkit)
{
    nvrtcProgram prog;
    nvrtcResult r = nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) fail_msg("%s: nvrtcCreateProgram: %s", name, nvrtcGetErrorString(r));
    const char *opts[] = {"--gpu-architecture=sm_90", "--include-path=" WT_REPO_DIR, "-default-device",
                          "--include-path=" WT_CUDA_INCLUDE};
    r = nvrtcCompileProgram(prog, with_toolkit ? 4 : 3, opts);
    size_t log_size = 0;
    nvrtcGetProgramLogSize(prog, &log_size);
    char *log = (char *)malloc(log_size + 1);
    nvrtcGetProgramLog(prog, log);
    log[log_size] = '\0';
    size_t cubin = 0;
    if (r == NVRTC_SUCCESS) nvrtcGetCUBINSize(prog, &cubin);
    nvrtcDestroyProgram(&prog);
    if (r != NVRTC_SUCCESS || cubin == 0) {
        printf("%s\n", log);
        free(log);
        fail_msg("%s: NVRTC failed (%s)", name, nvrtcGetErrorString(r));
    }
    free(log);
}

static const char *const wt_warp_src =
    "#include <warpred/warp_reduce.cuh>\n"
    "template <typename T> __device__ void all_ops(T *p) {\n"
    "    T v = p[threadIdx.x];\n"
    "    p[0] = warpred_warp_reduce(v, warpred_op_sum()) + warpred_warp_allreduce<4>(v, warpred_op_min());\n"
    "    p[1] = warpred_warp_reduce_partial<8>(v, warpred_op_max(), 20) + warpred_warp_allreduce_partial(v, warpred_op_max_num(), 7);\n"
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

static const char *const wt_block_src =
    "#include <warpred/block_reduce.cuh>\n"
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

static const char *const wt_umbrella_src =
    "#include <warpred/warpred.cuh>\n"
    "__global__ void k(float *a) { a[0] = warpred_block_reduce(a[threadIdx.x], warpred_op_min()); }\n";

static const char *const wt_half_src =
    "#include <cuda_fp16.h>\n"
    "#include <cuda_bf16.h>\n"
    "#include <warpred/warpred.cuh>\n"
    "__global__ void k(__half *h, __nv_bfloat16 *b) {\n"
    "    h[0] = warpred_block_reduce(h[threadIdx.x], warpred_op_sum());\n"
    "    h[1] = warpred_warp_allreduce<8>(h[threadIdx.x], warpred_op_max());\n"
    "    b[0] = warpred_block_allreduce(b[threadIdx.x], warpred_op_min_num());\n"
    "    b[1] = warpred_warp_reduce_partial(b[threadIdx.x], warpred_op_sum(), 5);\n"
    "}\n";

static void test_nvrtc_warp_reduce(void **state) { (void)state; wt_nvrtc_compile("warp_reduce", wt_warp_src, 0); }
static void test_nvrtc_block_reduce(void **state) { (void)state; wt_nvrtc_compile("block_reduce", wt_block_src, 0); }
static void test_nvrtc_atomic_aggregate(void **state) { (void)state; wt_nvrtc_compile("atomic_aggregate", wt_aggregate_src, 0); }
static void test_nvrtc_atomic_minmax(void **state) { (void)state; wt_nvrtc_compile("atomic_minmax", wt_minmax_src, 0); }
static void test_nvrtc_grid_reduce(void **state) { (void)state; wt_nvrtc_compile("grid_reduce", wt_grid_src, 0); }
static void test_nvrtc_umbrella(void **state) { (void)state; wt_nvrtc_compile("warpred", wt_umbrella_src, 0); }
static void test_nvrtc_half_types(void **state) { (void)state; wt_nvrtc_compile("half_types", wt_half_src, 1); }

/* A header that does not compile must make this test fail, or the test proves nothing. */
static void test_nvrtc_rejects_bad_source(void **state)
{
    (void)state;
    nvrtcProgram prog;
    const char *src = "#include <warpred/warp_reduce.cuh>\n"
                      "__global__ void k(float *p) { p[0] = warpred_warp_reduce<3>(p[0], warpred_op_sum()); }\n";
    assert_int_equal(nvrtcCreateProgram(&prog, src, "bad", 0, NULL, NULL), NVRTC_SUCCESS);
    const char *opts[] = {"--gpu-architecture=sm_90", "--include-path=" WT_REPO_DIR};
    assert_int_not_equal(nvrtcCompileProgram(prog, 2, opts), NVRTC_SUCCESS); /* Width 3: static_assert */
    nvrtcDestroyProgram(&prog);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvrtc_warp_reduce),
        cmocka_unit_test(test_nvrtc_block_reduce),
        cmocka_unit_test(test_nvrtc_atomic_aggregate),
        cmocka_unit_test(test_nvrtc_atomic_minmax),
        cmocka_unit_test(test_nvrtc_grid_reduce),
        cmocka_unit_test(test_nvrtc_umbrella),
        cmocka_unit_test(test_nvrtc_half_types),
        cmocka_unit_test(test_nvrtc_rejects_bad_source),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
