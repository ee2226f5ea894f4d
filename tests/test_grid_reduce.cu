/* Grid-level reduction and the device-wide sum built on it: grids of 1 to thousands of
   blocks in 1D/2D/3D, many launches without reset, bitwise determinism, the sample's edge
   cases (n = 0, 1, 31, 33, 2^20 + 7, misaligned starts, n above 2^31), and the accurate
   variant's error in ulps, against exact host references. */
#include <warpred/grid_reduce.cuh>
#include "../samples/device_sum/device_sum.cuh"
#include "wt_types.h"
#include "wt_ulp.h"

/* A grid scratch (and below, a device_sum plan) owned by the running test, like the buffers
   of wt.h: released by wt_teardown if the test fails before freeing it. */
static void wt_release_scratch(void *p)
{
    warpred_grid_scratch_destroy((warpred_grid_scratch *)p);
    free(p);
}

static warpred_grid_scratch *wt_scratch_new(unsigned capacity, size_t elem_size)
{
    warpred_grid_scratch *s = (warpred_grid_scratch *)malloc(sizeof *s);
    if (s == NULL) fail_msg("out of host memory");
    const char *why;
    if (warpred_grid_scratch_create(s, capacity, elem_size, &why) != cudaSuccess) {
        free(s);
        fail_msg("grid scratch: %s", why);
        return NULL; /* not reached */
    }
    return (warpred_grid_scratch *)wt_own(s, wt_release_scratch);
}

static void wt_scratch_free(warpred_grid_scratch *s)
{
    wt_disown(s);
    const cudaError_t err = warpred_grid_scratch_destroy(s);
    free(s);
    WT_CUDA(err);
}

/* Each thread of the grid contributes in[global linear thread index]. */
template <typename T, typename Op>
__global__ void k_grid(const T *in, warpred_grid_scratch scratch, T *out, int *winners)
{
    const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;
    const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    if (warpred_grid_reduce(in[(size_t)block * nthreads + tid], Op(), scratch, out)) atomicAdd(winners, 1);
}

/* Launches k_grid `launches` times in a row on one scratch (no reset), each with new inputs,
   and checks every result; returns the last result's bits for determinism checks. */
template <typename T, typename Op>
static uint64_t run_grid(dim3 grid, dim3 block, int launches, const T *fixed_input)
{
    const int op = wt_op_of<Op>::code;
    const size_t nblocks = (size_t)grid.x * grid.y * grid.z, nthreads = (size_t)block.x * block.y * block.z;
    const size_t count = nblocks * nthreads;
    warpred_grid_scratch *scratch = wt_scratch_new((unsigned)nblocks, sizeof(T));
    T *in = (T *)wt_host_alloc(count * sizeof(T)), *d_in = (T *)wt_dev_alloc(count * sizeof(T)), *d_out = (T *)wt_dev_alloc(sizeof(T)), got;
    int *d_winners = (int *)wt_dev_alloc(sizeof(int)), winners;
    uint64_t bits = 0;
    for (int l = 0; l < launches; l++) {
        for (size_t i = 0; i < count; i++) in[i] = fixed_input ? fixed_input[i] : wt_type<T>::random(op != WT_SUM);
        wt_to_dev(d_in, in, count * sizeof(T));
        wt_poison(d_out, sizeof(T));
        WT_CUDA(cudaMemset(d_winners, 0, sizeof(int)));
        k_grid<T, Op><<<grid, block>>>(d_in, *scratch, d_out, d_winners);
        WT_LAUNCHED();
        wt_to_host(&got, d_out, sizeof(T));
        wt_to_host(&winners, d_winners, sizeof(int));
        wt_ref<T> ref;
        ref.fold(op, in, (int)count);
        char msg[300];
        if (!ref.matches(op, got, (int)count, msg, sizeof msg))
            fail_msg("%s %s grid (%u,%u,%u) x block (%u,%u,%u), launch %d: %s", wt_type<T>::name(), wt_op_name[op], grid.x,
                     grid.y, grid.z, block.x, block.y, block.z, l, msg);
        if (winners != 1) fail_msg("grid reduce returned true in %d threads, expected exactly 1", winners);
        bits = wt_type<T>::bits(got);
    }
    unsigned counter;
    wt_to_host(&counter, scratch->counter, sizeof counter);
    if (counter != 0) fail_msg("the counter was left at %u, not reset to 0", counter);
    wt_scratch_free(scratch);
    wt_dev_free(d_in);
    wt_dev_free(d_out);
    wt_dev_free(d_winners);
    wt_host_free(in);
    return bits;
}

static void test_grid_shapes(void **state)
{
    WT_NEED_GPU(state);
    const dim3 grids[] = {dim3(1), dim3(2), dim3(7), dim3(132), dim3(1000), dim3(4099), dim3(3, 5, 2), dim3(64, 33)};
    const dim3 blocks[] = {dim3(256), dim3(1), dim3(33), dim3(1024), dim3(8, 4, 3), dim3(128)};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        const dim3 b = blocks[g % (sizeof blocks / sizeof blocks[0])];
        if (wt_quick() && (size_t)grids[g].x * grids[g].y * b.x > 300000) continue;
        run_grid<long long, warpred_op_sum>(grids[g], b, 2, NULL);
        run_grid<float, warpred_op_sum>(grids[g], b, 1, NULL);
        run_grid<float, warpred_op_max>(grids[g], b, 1, NULL);
        run_grid<int, warpred_op_min>(grids[g], b, 1, NULL);
    }
    /* more blocks than threads per block in the last block, and more partials than threads */
    run_grid<double, warpred_op_min_num>(dim3(3000), dim3(64), 1, NULL);
    run_grid<unsigned, warpred_op_xor>(dim3(2500), dim3(32), 1, NULL);
}

static void test_grid_many_launches_no_reset(void **state)
{
    WT_NEED_GPU(state);
    run_grid<long long, warpred_op_sum>(dim3(517), dim3(96), wt_quick() ? 5 : 50, NULL);
}

static void test_grid_deterministic(void **state)
{
    WT_NEED_GPU(state);
    const dim3 grid(777), block(160);
    const size_t count = 777 * 160;
    float *in = (float *)wt_host_alloc(count * sizeof(float));
    for (size_t i = 0; i < count; i++) in[i] = wt_type<float>::random(0) * (float)(1 + i % 1000); /* wide range: order matters */
    const uint64_t first = run_grid<float, warpred_op_sum>(grid, block, 1, in);
    for (int r = 1; r < 10; r++) {
        const uint64_t again = run_grid<float, warpred_op_sum>(grid, block, 1, in);
        if (again != first) fail_msg("run %d: bits %llx, first run %llx", r, (unsigned long long)again, (unsigned long long)first);
    }
    wt_host_free(in);
}

/* ------------------------------------------------------------------------------------------
   the device-wide sum of samples/device_sum
   ------------------------------------------------------------------------------------------ */

/* Values k * 2^-20 with integer k: exact in float, and their sum is exact in int64, so the
   correctly rounded float sum is known. mixed: k in [-2^20, 2^20), else [0, 2^20). */
static void fill_exact(float *x, size_t n, int mixed, long long *exact_k)
{
    long long s = 0;
    for (size_t i = 0; i < n; i++) {
        long long k = (long long)(wt_rand32() >> 12) - (mixed ? (1 << 19) : 0);
        x[i] = (float)ldexp((double)k, -20);
        s += k;
    }
    *exact_k = s;
}

static float correctly_rounded(long long k) { return (float)ldexp((double)k, -20); } /* |k| < 2^53: exact double */

static void wt_release_plan(void *p)
{
    device_sum_plan_destroy((device_sum_plan *)p);
    free(p);
}

static device_sum_plan *wt_plan_new(void)
{
    device_sum_plan *plan = (device_sum_plan *)malloc(sizeof *plan);
    if (plan == NULL) fail_msg("out of host memory");
    const cudaError_t err = device_sum_plan_create(plan);
    if (err != cudaSuccess) {
        free(plan);
        fail_msg("device_sum_plan_create: %s", cudaGetErrorString(err));
        return NULL; /* not reached */
    }
    return (device_sum_plan *)wt_own(plan, wt_release_plan);
}

static void wt_plan_free(device_sum_plan *plan)
{
    wt_disown(plan);
    wt_release_plan(plan);
}

static void test_device_sum_edges(void **state)
{
    WT_NEED_GPU(state);
    device_sum_plan *plan = wt_plan_new();
    const size_t sizes[] = {0, 1, 2, 3, 4, 5, 31, 33, 1000, 4096, 65537, ((size_t)1 << 20) + 7};
    const size_t max_n = ((size_t)1 << 20) + 7 + 8;
    float *x = (float *)wt_host_alloc(max_n * sizeof(float)), *d_x = (float *)wt_dev_alloc(max_n * sizeof(float));
    float *d_out = (float *)wt_dev_alloc(sizeof(float));
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (int offset = 0; offset < 4; offset++) { /* misaligned starts: 0, 4, 8, 12 bytes past 16 */
            const size_t n = sizes[s];
            long long k;
            double abs_sum = 0;
            fill_exact(x, n + offset, 1, &k);
            k = 0;
            for (size_t i = 0; i < n; i++) {
                k += (long long)ldexp((double)x[offset + i], 20);
                abs_sum += fabs((double)x[offset + i]);
            }
            wt_to_dev(d_x, x, (n + offset) * sizeof(float));
            for (int accurate = 0; accurate < 2; accurate++) {
                float got;
                wt_poison(d_out, sizeof(float));
                WT_CUDA(accurate ? device_sum_accurate(plan, d_x + offset, n, d_out, 0) : device_sum(plan, d_x + offset, n, d_out, 0));
                WT_LAUNCHED();
                wt_to_host(&got, d_out, sizeof got);
                const float want = correctly_rounded(k);
                /* plain float: no value passes through more than ~64 roundings here (a few
                   per thread, the vector, block and partial trees), each off by u at most */
                const double tol = 64 * 0x1p-24 * abs_sum;
                if (accurate ? wt_ulp_distance(got, want) > 1 : fabs((double)got - (double)want) > tol)
                    fail_msg("%s n=%zu offset=%d: got %.9g, expected %.9g", accurate ? "accurate" : "plain", n, offset,
                             (double)got, (double)want);
            }
        }
    }
    wt_dev_free(d_x);
    wt_dev_free(d_out);
    wt_host_free(x);
    wt_plan_free(plan);
}

/* Accurate variant within 2 ulp of the correctly rounded sum; both variants bitwise repeatable;
   the plain variant's error reported. */
static void test_device_sum_accuracy_and_determinism(void **state)
{
    WT_NEED_GPU(state);
    device_sum_plan *plan = wt_plan_new();
    const size_t n = wt_quick() ? (size_t)1 << 18 : (size_t)1 << 25;
    float *x = (float *)wt_host_alloc(n * sizeof(float)), *d_x = (float *)wt_dev_alloc(n * sizeof(float));
    float *d_out = (float *)wt_dev_alloc(sizeof(float));
    for (int mixed = 0; mixed < 2; mixed++) {
        long long k;
        fill_exact(x, n, mixed, &k);
        wt_to_dev(d_x, x, n * sizeof(float));
        const float want = correctly_rounded(k);
        for (int accurate = 0; accurate < 2; accurate++) {
            float first = 0, got;
            for (int r = 0; r < 10; r++) {
                WT_CUDA(accurate ? device_sum_accurate(plan, d_x, n, d_out, 0) : device_sum(plan, d_x, n, d_out, 0));
                WT_LAUNCHED();
                wt_to_host(&got, d_out, sizeof got);
                if (r == 0) first = got;
                else if (memcmp(&got, &first, 4) != 0) fail_msg("run %d gave %.9g, run 0 gave %.9g: not deterministic", r, got, first);
            }
            const long long ulps = wt_ulp_distance(got, want);
            printf("[ INFO     ] n=%zu %s data, %s sum: %lld ulp from the correctly rounded sum (rel. error %.2e)\n", n,
                   mixed ? "mixed-sign" : "positive", accurate ? "accurate" : "plain", ulps,
                   fabs((double)got - (double)want) / fabs((double)want));
            if (accurate && ulps > 2) fail_msg("accurate sum is %lld ulp off (limit 2)", ulps);
        }
    }
    wt_dev_free(d_x);
    wt_dev_free(d_out);
    wt_host_free(x);
    wt_plan_free(plan);
}

__global__ void k_fill_pattern(int *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (int)(i % 2001) - 1000 + (int)((i >> 20) & 7);
}

/* n above 2^31: int data, exact long long sum (8.6 GB of input; skipped under `make sanitize`). */
static void test_device_sum_above_2_31(void **state)
{
    WT_NEED_GPU(state);
    if (wt_quick()) {
        printf("[ INFO     ] n > 2^31 case skipped under the sanitizer (8.6 GB; it runs in make test)\n");
        skip();
    }
    const size_t n = ((size_t)1 << 31) + 12345;
    size_t free_b, total_b;
    WT_CUDA(cudaMemGetInfo(&free_b, &total_b));
    if (free_b < n * sizeof(int) + ((size_t)1 << 28)) fail_msg("needs %zu bytes of GPU memory, %zu free", n * sizeof(int), free_b);
    device_sum_plan *plan = wt_plan_new();
    int *d_x = (int *)wt_dev_alloc((n + 1) * sizeof(int));
    long long *d_out = (long long *)wt_dev_alloc(sizeof(long long)), got;
    k_fill_pattern<<<4096, 256>>>(d_x, n + 1);
    WT_LAUNCHED();
    for (int offset = 0; offset < 2; offset++) {
        long long want = 0;
        for (size_t i = offset; i < n + offset; i++) want += (long long)(i % 2001) - 1000 + (long long)((i >> 20) & 7);
        WT_CUDA(device_sum_int(plan, d_x + offset, n, d_out, 0));
        WT_LAUNCHED();
        wt_to_host(&got, d_out, sizeof got);
        if (got != want) fail_msg("n=%zu offset %d: got %lld, expected %lld", n, offset, got, want);
    }
    wt_dev_free(d_x);
    wt_dev_free(d_out);
    wt_plan_free(plan);
}

/* Host-side argument checks: run without a GPU too. */
static void test_scratch_create_rejects_bad_arguments(void **state)
{
    (void)state;
    warpred_grid_scratch s;
    const char *why = NULL;
    assert_int_equal(warpred_grid_scratch_create(&s, 0, 4, &why), cudaErrorInvalidValue);
    assert_non_null(why);
    assert_non_null(strstr(why, "capacity"));
    assert_null(s.partials);
    assert_int_equal(warpred_grid_scratch_create(&s, 16, 0, &why), cudaErrorInvalidValue);
    assert_int_equal(warpred_grid_scratch_create(NULL, 16, 4, &why), cudaErrorInvalidValue);
    assert_int_equal(warpred_grid_scratch_create(&s, 0, 4, NULL), cudaErrorInvalidValue);
    assert_true(warpred_grid_scratch_bytes(1000, 8) == 8000);
}

/* The usage snippet of grid_reduce.cuh. */
// squared error, in one launch: out = sum (y - t)^2
__global__ void squared_error(const float *y, const float *t, size_t n,
                              warpred_grid_scratch scratch, float *out)
{
    float acc = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float d = y[i] - t[i];
        acc += d * d;
    }
    warpred_grid_reduce(acc, warpred_op_sum(), scratch, out);
}

static void test_doc_snippet(void **state)
{
    WT_NEED_GPU(state);
    const float y[3] = {1, 2, 3}, t[3] = {0, 0, 0};
    float *d = (float *)wt_dev_alloc(7 * sizeof(float)), got;
    wt_to_dev(d, y, sizeof y);
    wt_to_dev(d + 3, t, sizeof t);
    warpred_grid_scratch *scratch = wt_scratch_new(1024, sizeof(float));
    for (int launch = 0; launch < 3; launch++) {
        wt_poison(d + 6, sizeof(float));
        squared_error<<<1024, 256>>>(d, d + 3, 3, *scratch, d + 6);
        WT_LAUNCHED();
        wt_to_host(&got, d + 6, sizeof got);
        assert_true(got == 14.0f);
    }
    wt_scratch_free(scratch);
    wt_dev_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(test_scratch_create_rejects_bad_arguments),
        WT_TEST(test_doc_snippet),
        WT_TEST(test_grid_shapes),
        WT_TEST(test_grid_many_launches_no_reset),
        WT_TEST(test_grid_deterministic),
        WT_TEST(test_device_sum_edges),
        WT_TEST(test_device_sum_accuracy_and_determinism),
        WT_TEST(test_device_sum_above_2_31),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
