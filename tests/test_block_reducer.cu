/* warpred_block_reducer (warpred/block_reducer.cuh): every call must give the bits of the
   stateless warpred_block_reduce / _allreduce / _valid for the same values, block shape and
   operation (which tests/test_block_reduce.cu checks against host references), through long runs
   of back-to-back calls with mixed operations, reduce and allreduce mixed, two reducers of one
   type and reducers of several types alive at once, compile-time and run-time block sizes, partial
   warps; and int sums against an exact host sum. Racecheck (make sanitize) watches the same runs. */
#include <type_traits>
#include <warpred/block_reducer.cuh>
#include <warpred/op_argminmax.cuh>
#include <warpred/op_welford.cuh>
#include "wt.h"

/* ---- the manual's snippet: row_sums ---- */

#include "snippets/block_reducer.inc"

enum { CALLS = 1000, KINDS = 4 };
/* Calls per kernel: fewer under the sanitizers (racecheck runs every call of every block). */
static int wt_calls(void) { return wt_quick() ? 120 : CALLS; }

/* Bitwise inequality of two values (no memcmp in device code). */
template <typename T> __device__ __forceinline__ bool bits_differ(const T &a, const T &b)
{
    const unsigned char *p = (const unsigned char *)&a, *q = (const unsigned char *)&b;
    bool differ = false;
    for (int i = 0; i < (int)sizeof(T); i++) differ |= p[i] != q[i];
    return differ;
}

/* Call i: operation i % KINDS on value x + i; reduce, allreduce or _valid by (i / KINDS) % 3.
   Thread 0 counts the calls whose bits differ from the stateless call's (allreduce: the last
   thread too). bad[block] ends as that count. */
/* One call in the given form, and its stateless counterpart. Not inlined: every run-time-size
   call holds the code of every block size, and one kernel holding all of them took ptxas minutes. */
template <int BS, typename R, typename T, typename Op>
__device__ __noinline__ int checked_call(R &r, int form, T v, int valid, Op op)
{
    T a, b;
    if (form == 0) a = r.reduce(v, op), b = warpred_block_reduce<BS>(v, op);
    else if (form == 1)
        a = r.allreduce(v, op), b = warpred_block_allreduce<BS>(v, op);
    else
        a = r.reduce_valid(v, op, valid), b = warpred_block_reduce_valid<BS>(v, op, valid);
    const int tid = warpred__block_thread_rank();
    const bool holds = tid == 0 || (form == 1 && tid == (int)(blockDim.x * blockDim.y * blockDim.z) - 1);
    return holds && bits_differ(a, b);
}

template <int BS, typename R, typename T> __device__ __forceinline__ int one_call(R &r, int i, T x, int valid)
{
    const int form = (i / KINDS) % 3;
    const T v = x + (T)(i % 7);
    switch (i % KINDS) {
    case 1: return checked_call<BS>(r, form, v, valid, warpred_op_max());
    case 2: return checked_call<BS>(r, form, v, valid, warpred_op_min_num());
    default: return checked_call<BS>(r, form, v, valid, warpred_op_sum());
    }
}

/* Two reducers of one type and one of another, alive at once, called in an uneven pattern. */
template <int BS>
__global__ void __launch_bounds__(1024) k_mixed(const float *xf, const double *xd, int *bad, int valid, int calls)
{
    WARPRED_BLOCK_REDUCER(first, float, BS);
    WARPRED_BLOCK_REDUCER(second, float, BS);
    WARPRED_BLOCK_REDUCER(wide, double, BS);
    const int g = blockIdx.x * (blockDim.x * blockDim.y * blockDim.z) + warpred__block_thread_rank();
    int n = 0;
    for (int i = 0; i < calls; i++) {
        n += one_call<BS>(first, i, xf[g], valid);
        if (i % 3 == 0) n += one_call<BS>(second, i + 1, xf[g] * 0.5f, valid);
        if (i % 5 != 0) n += one_call<BS>(wide, i, xd[g], valid);
    }
    if (n) atomicAdd(&bad[blockIdx.x], n);
}

/* The reducer with_size hands a block of Threads threads: compiled for that size when it is a
   power of two from 64 up, else for its size class (column bound 1, 3, 7, 15 or 31); a warp or
   less keeps the run-time form (size 0, column bound -1). */
template <typename R> struct reducer_shape;
template <typename T, int N, int Cells, int Column> struct reducer_shape<warpred_block_reducer<T, N, Cells, Column>> {
    enum { size = N, column = Column };
};
__host__ __device__ constexpr int class_column(int threads)
{
    return threads <= 32 ? -1 : threads <= 64 ? 1 : threads <= 128 ? 3 : threads <= 256 ? 7 : threads <= 512 ? 15 : 31;
}
__host__ __device__ constexpr bool sized_exactly(int threads)
{
    return threads >= 64 && (threads & (threads - 1)) == 0;
}
template <typename R, int Threads> __host__ __device__ constexpr bool handed_for(void)
{
    return sized_exactly(Threads) ? reducer_shape<R>::size == Threads && reducer_shape<R>::column == -1
                                  : reducer_shape<R>::size == 0 && reducer_shape<R>::column == class_column(Threads);
}

/* with_size in the middle of a run-time-size reducer's life: calls before it, a loop of calls
   through the reducer it hands out for the block's size (beside a second reducer called in
   its own run-time form), and calls after it, which must continue the alternation where that
   reducer left it. Every call is checked against the bits of the stateless call; the handed
   reducer's against warpred_block_reduce<Threads>, the size the kernel is launched with (a
   warp's, which is the run-time reducer itself, against the run-time form). Only the reducer
   meant for that size runs the checks; a call of f with any other counts as CALLS failures
   (the other copies stay empty: each checking against the stateless call would make ptxas
   take minutes). */
template <int Threads>
__global__ void __launch_bounds__(1024) k_with_size(const float *xf, const double *xd, int *bad, int valid, int calls)
{
    constexpr int reference = class_column(Threads) < 0 ? 0 : Threads;
    WARPRED_BLOCK_REDUCER(first, float, 0);
    WARPRED_BLOCK_REDUCER(wide, double, 0);
    const int g = blockIdx.x * (blockDim.x * blockDim.y * blockDim.z) + warpred__block_thread_rank();
    int n = 0;
    for (int i = 0; i < 7; i++) n += one_call<0>(first, i, xf[g], valid); /* an odd count: the second set is next */
    n += first.with_size([&](auto &r) {
        int m = 0;
        if constexpr (handed_for<typename std::remove_reference<decltype(r)>::type, Threads>()) {
            for (int i = 7; i < calls / 2; i++) {
                m += one_call<reference>(r, i, xf[g], valid);
                if (i % 3 == 0) m += one_call<0>(wide, i, xd[g], valid);
            }
        } else {
            m = warpred__block_thread_rank() == 0 ? CALLS : 0; /* the wrong class */
        }
        return m;
    });
    for (int i = calls / 2; i < calls / 2 + 9; i++) n += one_call<0>(first, i, xf[g], valid);
    if (n) atomicAdd(&bad[blockIdx.x], n);
}

/* Compound values (warp partials) and exact int sums, back to back; the argmax through the
   reducer with_size hands out (the reducer itself for a compile-time size). */
template <int BS>
__global__ void __launch_bounds__(1024) k_compound(const float *xf, const int *xi, int *bad, long long *sums)
{
    WARPRED_BLOCK_REDUCER(arg_any, warpred_arg<float>, BS);
    WARPRED_BLOCK_REDUCER(stats, warpred_welford<float>, BS);
    WARPRED_BLOCK_REDUCER(count, int, BS);
    const int tid = warpred__block_thread_rank();
    const int g = blockIdx.x * (blockDim.x * blockDim.y * blockDim.z) + tid;
    int n = 0;
    long long total = 0;
    arg_any.with_size([&](auto &arg) {
        for (int i = 0; i < 200; i++) {
            const warpred_arg<float> p = warpred_make_arg(xf[g] + (float)(i % 3), tid);
            const warpred_arg<float> a =
                i % 2 ? arg.allreduce(p, warpred_op_argmax()) : arg.reduce(p, warpred_op_argmax());
            const warpred_arg<float> b = warpred_block_reduce<BS>(p, warpred_op_argmax());
            const warpred_welford<float> w = warpred_make_welford(xf[g] * (float)(i + 1));
            const warpred_welford<float> c = stats.reduce(w, warpred_op_welford());
            const warpred_welford<float> d = warpred_block_reduce<BS>(w, warpred_op_welford());
            const int s = count.reduce(xi[g] + i, warpred_op_sum());
            if (tid == 0) {
                n += a.index != b.index || bits_differ(a.value, b.value);
                n += c.count != d.count || bits_differ(c.mean, d.mean) || bits_differ(c.m2, d.m2);
                total += s;
            }
        }
    });
    if (tid == 0) bad[blockIdx.x] = n, sums[blockIdx.x] = total;
}

static void run_mixed(const char *shape, dim3 block, void (*kernel)(const float *, const double *, int *, int, int),
                      int threads, int valid)
{
    enum { BLOCKS = 6 };
    const int n = BLOCKS * threads;
    float *hf = (float *)wt_host_alloc(n * sizeof(float));
    double *hd = (double *)wt_host_alloc(n * sizeof(double));
    for (int i = 0; i < n; i++) {
        hf[i] = (float)((wt_rand_unit() - 0.5) * pow(2.0, wt_rand_below(30) - 15));
        hd[i] = (wt_rand_unit() - 0.5) * pow(2.0, wt_rand_below(60) - 30);
        if (wt_rand_below(500) == 0) hf[i] = wt_rand_below(2) ? -0.0f : nanf("");
    }
    float *df = (float *)wt_dev_alloc(n * sizeof(float));
    double *dd = (double *)wt_dev_alloc(n * sizeof(double));
    int *bad = (int *)wt_dev_alloc(BLOCKS * sizeof(int));
    wt_to_dev(df, hf, n * sizeof(float));
    wt_to_dev(dd, hd, n * sizeof(double));
    WT_CUDA(cudaMemset(bad, 0, BLOCKS * sizeof(int)));
    kernel<<<BLOCKS, block>>>(df, dd, bad, valid, wt_calls());
    WT_LAUNCHED();
    int got[BLOCKS];
    wt_to_host(got, bad, sizeof got);
    for (int b = 0; b < BLOCKS; b++)
        if (got[b])
            fail_msg("%s: %d of the reducer calls in block %d differ from the stateless call's bits", shape, got[b], b);
}

static void test_mixed_calls_compile_time_sizes(void **state)
{
    WT_NEED_GPU(state);
    run_mixed("<96>", dim3(96), k_mixed<96>, 96, 40);
    run_mixed("<256>", dim3(256), k_mixed<256>, 256, 255);
    run_mixed("<1000>", dim3(1000), k_mixed<1000>, 1000, 17);
    run_mixed("<777>", dim3(777), k_mixed<777>, 777, 400); /* lanes 0..8 fold one cell more */
    run_mixed("<32>", dim3(32), k_mixed<32>, 32, 5);
}

static void test_mixed_calls_run_time_sizes(void **state)
{
    WT_NEED_GPU(state);
    run_mixed("run time, 64", dim3(64), k_mixed<0>, 64, 64);
    run_mixed("run time, 160", dim3(160), k_mixed<0>, 160, 100);
    run_mixed("run time, 257", dim3(257), k_mixed<0>, 257, 31);
    run_mixed("run time, 512", dim3(512), k_mixed<0>, 512, 300);
    run_mixed("run time, 7x5x3", dim3(7, 5, 3), k_mixed<0>, 105, 50);
    run_mixed("run time, 20", dim3(20), k_mixed<0>, 20, 3);
}

/* with_size: a size in each class (33..64, 65..128, 129..256, 257..512, 513..1024), at a
   class's lower end and inside, a power of two (compiled for its size, 1D and 3D), and a warp,
   which keeps the run-time form. */
static void test_with_size(void **state)
{
    WT_NEED_GPU(state);
    run_mixed("with_size, 33", dim3(33), k_with_size<33>, 33, 32);
    run_mixed("with_size, 96", dim3(96), k_with_size<96>, 96, 90);
    run_mixed("with_size, 256", dim3(256), k_with_size<256>, 256, 100);
    run_mixed("with_size, 16x16", dim3(16, 16), k_with_size<256>, 256, 255);
    run_mixed("with_size, 257", dim3(257), k_with_size<257>, 257, 257);
    run_mixed("with_size, 1000", dim3(1000), k_with_size<1000>, 1000, 999);
    run_mixed("with_size, 20", dim3(20), k_with_size<20>, 20, 7);
}

static void run_compound(const char *shape, void (*kernel)(const float *, const int *, int *, long long *), int threads)
{
    enum { BLOCKS = 4 };
    const int n = BLOCKS * threads;
    float *hf = (float *)wt_host_alloc(n * sizeof(float));
    int *hi = (int *)wt_host_alloc(n * sizeof(int));
    for (int i = 0; i < n; i++) hf[i] = (float)wt_rand_below(1000) * 0.125f, hi[i] = (int)wt_rand32();
    float *df = (float *)wt_dev_alloc(n * sizeof(float));
    int *di = (int *)wt_dev_alloc(n * sizeof(int)), *bad = (int *)wt_dev_alloc(BLOCKS * sizeof(int));
    long long *sums = (long long *)wt_dev_alloc(BLOCKS * sizeof(long long));
    wt_to_dev(df, hf, n * sizeof(float));
    wt_to_dev(di, hi, n * sizeof(int));
    kernel<<<BLOCKS, threads>>>(df, di, bad, sums);
    WT_LAUNCHED();
    int got[BLOCKS];
    long long s[BLOCKS];
    wt_to_host(got, bad, sizeof got);
    wt_to_host(s, sums, sizeof s);
    for (int b = 0; b < BLOCKS; b++) {
        if (got[b])
            fail_msg("%s: %d compound reducer calls in block %d differ from the stateless call's bits", shape, got[b],
                     b);
        long long want = 0;
        for (int i = 0; i < 200; i++) {
            unsigned sum = 0; /* the int sum wraps, as warpred_op_sum does */
            for (int t = 0; t < threads; t++) sum += (unsigned)hi[b * threads + t] + (unsigned)i;
            want += (int)sum;
        }
        if (s[b] != want) fail_msg("%s: block %d's int sums add to %lld, expected %lld", shape, b, s[b], want);
    }
}

static void test_compound_values_and_int_sums(void **state)
{
    WT_NEED_GPU(state);
    run_compound("<544>", k_compound<544>, 544);
    run_compound("run time, 1000", k_compound<0>, 1000);
    run_compound("run time, 96", k_compound<0>, 96);
    run_compound("run time, 256", k_compound<0>, 256);
}

static void test_doc_snippet(void **state)
{
    WT_NEED_GPU(state);
    enum { ROWS = 37, COLS = 1001 };
    float *h = (float *)wt_host_alloc(ROWS * COLS * sizeof(float));
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) h[r * COLS + c] = (float)(c + 1);
    float *x = (float *)wt_dev_alloc(ROWS * COLS * sizeof(float)), *out = (float *)wt_dev_alloc(ROWS * sizeof(float));
    wt_to_dev(x, h, ROWS * COLS * sizeof(float));
    row_sums<<<5, 256>>>(x, ROWS, COLS, out);
    WT_LAUNCHED();
    float got[ROWS];
    wt_to_host(got, out, sizeof got);
    for (int r = 0; r < ROWS; r++)
        if (got[r] != (float)(COLS * (COLS + 1) / 2))
            fail_msg("snippet row %d: %g, expected %d", r, got[r], COLS * (COLS + 1) / 2);
    const int sizes[4] = {256, 96, 1024, 40};
    for (int k = 0; k < 4; k++) {
        WT_CUDA(cudaMemset(out, 0xff, ROWS * sizeof(float)));
        row_maxes<<<5, sizes[k]>>>(x, ROWS, COLS, out);
        WT_LAUNCHED();
        wt_to_host(got, out, sizeof got);
        for (int r = 0; r < ROWS; r++)
            if (got[r] != (float)COLS)
                fail_msg("snippet row_maxes, blocks of %d, row %d: %g, expected %d", sizes[k], r, got[r], COLS);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(test_doc_snippet),
        WT_TEST(test_mixed_calls_compile_time_sizes),
        WT_TEST(test_mixed_calls_run_time_sizes),
        WT_TEST(test_with_size),
        WT_TEST(test_compound_values_and_int_sums),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
