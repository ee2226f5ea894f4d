/* Grid-level reduction: grids of 1 to thousands of blocks in 1D/2D/3D, many launches without
   reset, bitwise determinism, a launch with more blocks than the scratch holds, against exact
   host references. (The device-wide reduction built on it: tests/test_device_reduce.cu.) */
#include <warpred/grid_reduce.cuh>
#include "wt_types.h"
#include "wt_plans.h" /* grid scratches owned by the running test: wt_grid_scratch, wt_grid_scratch_free */

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
template <typename T, typename Op> static uint64_t run_grid(dim3 grid, dim3 block, int launches, const T *fixed_input)
{
    const int op = wt_op_of<Op>::code;
    const size_t nblocks = (size_t)grid.x * grid.y * grid.z, nthreads = (size_t)block.x * block.y * block.z;
    const size_t count = nblocks * nthreads;
    warpred_grid_scratch *scratch = wt_grid_scratch((unsigned)nblocks, sizeof(T));
    T *in = (T *)wt_host_alloc(count * sizeof(T)), *d_in = (T *)wt_dev_alloc(count * sizeof(T)),
      *d_out = (T *)wt_dev_alloc(sizeof(T)), got;
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
            fail_msg("%s %s grid (%u,%u,%u) x block (%u,%u,%u), launch %d: %s", wt_type<T>::name(), wt_op_name[op],
                     grid.x, grid.y, grid.z, block.x, block.y, block.z, l, msg);
        if (winners != 1) fail_msg("grid reduce returned true in %d threads, expected exactly 1", winners);
        bits = wt_type<T>::bits(got);
    }
    unsigned counter;
    wt_to_host(&counter, scratch->counter, sizeof counter);
    if (counter != 0) fail_msg("the counter was left at %u, not reset to 0", counter);
    wt_grid_scratch_free(scratch);
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
    for (size_t i = 0; i < count; i++)
        in[i] = wt_type<float>::random(0) * (float)(1 + i % 1000); /* wide range: order matters */
    const uint64_t first = run_grid<float, warpred_op_sum>(grid, block, 1, in);
    for (int r = 1; r < 10; r++) {
        const uint64_t again = run_grid<float, warpred_op_sum>(grid, block, 1, in);
        if (again != first)
            fail_msg("run %d: bits %llx, first run %llx", r, (unsigned long long)again, (unsigned long long)first);
    }
    wt_host_free(in);
}

/* More blocks than scratch.capacity: no partial is written (the canary past the partials keeps
   its bits), *out keeps its poison, no thread returns true, and the host is told through
   warpred_grid_scratch_status, once; the scratch then works again. Built without NDEBUG here,
   and the path has no assert, so a release build takes the same path. */
static void test_grid_overflow_is_reported_not_written(void **state)
{
    WT_NEED_GPU(state);
    const unsigned capacity = 8, blocks = 40, threads = 64;
    /* partials: capacity floats, then a canary region as large as the overflow would write */
    warpred_grid_scratch *scratch = wt_grid_scratch(capacity, sizeof(float));
    float *region = (float *)wt_dev_alloc((size_t)blocks * sizeof(float));
    warpred_grid_scratch small = *scratch;
    small.partials = region; /* partials[0..capacity) are the scratch's; the rest is canary */
    float *in = (float *)wt_host_alloc((size_t)blocks * threads * sizeof(float));
    for (size_t i = 0; i < (size_t)blocks * threads; i++) in[i] = 1.0f;
    float *d_in = (float *)wt_dev_alloc((size_t)blocks * threads * sizeof(float)),
          *d_out = (float *)wt_dev_alloc(sizeof(float));
    int *d_winners = (int *)wt_dev_alloc(sizeof(int)), winners;
    wt_to_dev(d_in, in, (size_t)blocks * threads * sizeof(float));
    WT_CUDA(cudaMemset(d_winners, 0, sizeof(int)));
    const char *why = NULL;
    assert_int_equal(warpred_grid_scratch_status(&small, &why), cudaSuccess);
    k_grid<float, warpred_op_sum><<<blocks, threads>>>(d_in, small, d_out, d_winners);
    WT_LAUNCHED();
    unsigned char *seen = (unsigned char *)wt_host_alloc((size_t)blocks * sizeof(float));
    wt_to_host(seen, region, (size_t)blocks * sizeof(float));
    for (size_t i = 0; i < (size_t)blocks * sizeof(float); i++)
        if (seen[i] != WT_POISON) fail_msg("byte %zu of the partials region was written by an overflowing launch", i);
    float out;
    wt_to_host(&out, d_out, sizeof out);
    assert_true(wt_is_poison(out));
    wt_to_host(&winners, d_winners, sizeof winners);
    assert_int_equal(winners, 0);
    assert_int_equal(warpred_grid_scratch_status(&small, &why), cudaErrorInvalidValue);
    assert_non_null(strstr(why, "capacity"));
    assert_int_equal(warpred_grid_scratch_status(&small, &why), cudaSuccess); /* reported once */
    /* a launch that fits still works on the same counter */
    k_grid<float, warpred_op_sum><<<capacity, threads>>>(d_in, small, d_out, d_winners);
    WT_LAUNCHED();
    wt_to_host(&out, d_out, sizeof out);
    assert_true(out == (float)(capacity * threads));
    wt_grid_scratch_free(scratch);
    wt_dev_free(region);
    wt_dev_free(d_in);
    wt_dev_free(d_out);
    wt_dev_free(d_winners);
    wt_host_free(in);
    wt_host_free(seen);
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

/* The usage snippet of grid_reduce.cuh (the kernel squared_error and the host function
   squared_errors), as the build copies it from the manual. */
#include "snippets/grid_reduce.inc"

static void test_doc_snippet(void **state)
{
    WT_NEED_GPU(state);
    const float y[3] = {1, 2, 3}, t[3] = {0, 0, 0};
    float *d = (float *)wt_dev_alloc(7 * sizeof(float)), got;
    wt_to_dev(d, y, sizeof y);
    wt_to_dev(d + 3, t, sizeof t);
    for (int launches = 1; launches <= 3; launches++) {
        wt_poison(d + 6, sizeof(float));
        WT_CUDA(squared_errors(d, d + 3, 3, d + 6, launches));
        WT_LAUNCHED();
        wt_to_host(&got, d + 6, sizeof got);
        if (got != 14.0f) fail_msg("snippet after %d launches: %g, expected 14", launches, got);
    }
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
        WT_TEST(test_grid_overflow_is_reported_not_written),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
