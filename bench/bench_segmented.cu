/* bench/bench_segmented.cu - many reductions in one launch (warpred/device_rows.cuh) against
   CUB's segmented reduce and the memory read ceiling, in one run.

   1. Rows: 2^26 floats (2^26 doubles for the double sum) as rows of L = 1, 2, 4, ..., 4096,
      16384, 65536, 2^20, 2^24 elements (2^26 / L rows, ld = L), one result per row:
        float sum     warpred_device_reduce_rows (AUTO) against cub::DeviceSegmentedReduce::Sum
                      with offsets (begin = o, end = o + 1); beside them each forced strategy
                      (LANES, BLOCK, SPLIT, CLUSTER where it applies: rows_strategy_applies) and
                      warpred_device_reduce_ranges on the same rows given as offsets, so that the
                      AUTO choice and the offsets form can be checked
        float max     warpred_op_max against DeviceSegmentedReduce::Max
        float argmax  warpred_op_argmax (value and int column, 8 bytes as CUB's) against
                      DeviceSegmentedReduce::ArgMax (cub::KeyValuePair<int, float>)
        float rsum    the reproducible sum warpred_op_rsum against warpred's plain sum
        double sum    against DeviceSegmentedReduce::Sum on doubles
   2. Columns: 2^26 floats as rows x cols, cols = 32, 128, 1024, 2^16: warpred_device_reduce_columns
      (sum); CUB has no column reduction: the read ceiling only.
   3. Ranges of varying length over the 2^26 floats (CSR offsets, fixed seeds): lengths uniform
      in 1..64; a power law P(length >= x) = 1/x truncated at 10^6; one range of 2^25 among 2^20
      empty ones; one of 2^25 among ranges of 1..64. warpred_device_reduce_ranges (sum) against
      DeviceSegmentedReduce::Sum with the same offsets.

   CUB is the toolkit's (3.0.1 in CUDA 13.0), given 32-bit offsets (what a caller with fewer than
   2^31 elements passes it); warpred's ranges take size_t offsets. CUB 3.6's fixed-size segmented
   reduce (no offsets) is in bench_segmented_cub36.cu, which is this file built against the CCCL
   3.6 headers with BENCH_SEGMENTED_CUB36: CUB 3.6 and the toolkit's CUB cannot share a
   translation unit. That program prints the same tables and CSV rows for its variants, and
   measures its own read ceiling, so that its ratios are within one run too.

   THE CEILING  The bytes a perfect kernel moves for a variant: the input read once, the offsets
   read once ((count + 1) offsets of the variant's offset type, for the forms taking offsets),
   one result written per segment. At the start of every run three read kernels (bench_device.h's
   k_read on warpred's grid; a grid-stride float4 read over a full-occupancy grid with 4, and with
   8, loads in flight) are timed on the 2^26 floats and the fastest is that run's "read ceiling";
   every table row times it as one more variant, reading the row's input. The row's ceiling
   bandwidth is input bytes / its time; a variant's "% ceil" is (its bytes / that bandwidth) /
   its time, the median of the runs' figures; its GB/s are its bytes / its median time.

   METHOD  As bench_reduce: each call timed alone with CUDA events, the variants of a row taking
   turns call by call after warm-up, the median of many calls; three whole runs; the tables give
   the median of the three medians and the median (and range) of the three runs' ratios
   t_CUB / t_warpred (above 1: warpred is faster). The input is 256 MiB (or more) per call, five
   times the L2, so nothing rotates. The calls per row follow a probe of the row's variants (about
   60 ms of calls per row and run, 3 to 201 calls; fewer warm-ups for slow rows: CUB's block per
   segment takes some 100 ms at L = 1), the same in every run.
   Before any timing every variant's result is checked once against a host reference (exact
   integer sums of the data, which are multiples of 2^-20): max, argmax (ties: the lowest index)
   and double sums exactly; float sums within 2^-24 (2 + 4 sqrt(length)) of the exact sum
   relatively, and warpred's float-in double-out form of the same call (every row, column, range
   and forced strategy) exactly, so a lost or doubled element shows at any length; the
   reproducible sum within one ulp of the exact sum and with the same bits under every strategy.
   A wrong result stops the program (exit 1) before anything is timed.

   Usage: bench_segmented [csv path] [--no-strategies]   (run by `make bench`; plot:
          bench/plot_segmented.py bench_segmented.csv docs/bench_segmented.png) */
#include <math.h>
#include <stdarg.h>
#include <thread>
#include <vector>
#include <cub/version.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <warpred/device_rows.cuh>
#include <warpred/op_argminmax.cuh>
#include <warpred/op_rsum.cuh>
#include "bench_util.h"
#include "bench_device.h"

#ifndef BENCH_SEGMENTED_CUB36
#    define BENCH_SEGMENTED_CUB36 0
#endif
#if BENCH_SEGMENTED_CUB36
#    define SEG_PROGRAM "bench_segmented_cub36"
#else
#    define SEG_PROGRAM "bench_segmented"
#endif

static const size_t N = (size_t)1 << 26; /* elements of every input */
static const size_t ROW_LENGTHS[] = {
    1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 16384, 65536, (size_t)1 << 20, (size_t)1 << 24};
enum { LENGTHS = sizeof ROW_LENGTHS / sizeof ROW_LENGTHS[0] };
static const size_t COLUMN_COUNTS[] = {32, 128, 1024, 65536};
enum { COLUMN_CASES = sizeof COLUMN_COUNTS / sizeof COLUMN_COUNTS[0] };
static const double ROW_BUDGET_MS = 60; /* timed calls per row and run, all variants together */

enum { TABLE_ROWS, TABLE_COLUMNS, TABLE_RANGES };
enum { C_SUM, C_MAX, C_ARGMAX, C_RSUM, C_DSUM, ROW_CASES };
static const char *const row_case_name[] = {"float sum", "float max", "float argmax", "float rsum", "double sum"};
enum { K_ROWS, K_COLUMNS, K_RANGES, K_CUB, K_CEILING };
enum { OP_SUM, OP_MAX, OP_ARGMAX, OP_RSUM };
enum { S_AUTO, S_LANES, S_BLOCK, S_SPLIT, S_CLUSTER, STRATEGIES };
static const char *const strategy_name[] = {"AUTO", "LANES", "BLOCK", "SPLIT", "CLUSTER"};
static const char *const strategy_variant[] = {"warpred", "warpred LANES", "warpred BLOCK", "warpred SPLIT",
                                               "warpred CLUSTER"};

/* The forced strategies timed beside AUTO in the float sum rows, where each is a plausible
   choice: around AUTO's own choice (warpred__rows_auto; for floats on an H200: LANES up to
   L = 4096, a block per row at 16384, a cluster per row at 65536, several blocks per row at 2^20
   and 2^24) and a step or two past it, so that the table shows whether AUTO took the fastest. */
[[maybe_unused]] static bool rows_strategy_applies(int s, size_t L)
{
    switch (s) {
    case S_LANES: return L <= 16384;
    case S_BLOCK: return L >= 64 && L <= ((size_t)1 << 20);
    case S_SPLIT:
    case S_CLUSTER: return L >= 4096;
    default: return true;
    }
}

/* argmax with an int column (8 bytes a result, as CUB's KeyValuePair<int, float>) */
struct xf_arg_int {
    __device__ __forceinline__ warpred_arg<float, int> operator()(float x, size_t i) const
    {
        return warpred_make_arg(x, (int)i);
    }
};

#if BENCH_SEGMENTED_CUB36
typedef ::cuda::std::pair<int, float> cub_arg; /* CUB 3.6 fixed-size ArgMax: {index, value} */
#else
typedef cub::KeyValuePair<int, float> cub_arg; /* CUB 3.0.1 ArgMax: {key = index in the segment, value} */
#endif
static_assert(sizeof(cub_arg) == 8 && sizeof(warpred_arg<float, int>) == 8, "argmax results of 8 bytes");

/* ------------------------------------------------------------------------------------------
   the calls
   ------------------------------------------------------------------------------------------ */

/* One call of one variant: a table row's variants differ in kind, op and strategy. */
typedef struct {
    int kind, op, strategy;
    bool dbl;       /* input of doubles (the double sum), else floats */
    bool to_double; /* float in, double out: the exact check only */
    const void *in;
    size_t rows, cols;   /* rows and columns (ld = cols); CUB fixed size: rows segments of cols */
    size_t count;        /* ranges and CUB with offsets: segments */
    const size_t *begin; /* warpred ranges: begin = o, end = o + 1 */
    const int *cub_off;  /* CUB with offsets: the same offsets as int */
    size_t read_bytes;   /* the ceiling: bytes read from in */
    void *out;
} seg_call;

static warpred_rows_plan g_plans[STRATEGIES]; /* [S_AUTO] and one per forced strategy */
static warpred_device_plan g_dplan;           /* k_read's grid (warpred_device_blocks) */
static void *g_cub_temp;
static size_t g_cub_temp_bytes;

/* ---- the read kernels: the fastest of them, per run, is the ceiling ---- */
enum { READ_THREADS = 256 };
template <int U>
__global__ void __launch_bounds__(READ_THREADS) k_read_unrolled(const float4 *__restrict__ x, size_t nv, float *sink)
{
    const size_t g = blockIdx.x * (size_t)blockDim.x + threadIdx.x, G = (size_t)gridDim.x * blockDim.x;
    float acc = 0;
    size_t i = g;
    for (; i + (U - 1) * G < nv; i += U * G) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++) v[u] = __ldg(&x[i + u * G]);
#pragma unroll
        for (int u = 0; u < U; u++) acc += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    for (; i < nv; i += G) acc += __ldg(&x[i]).x;
    if (acc == -1.0f) *sink = acc; /* never true for this data; keeps the loads alive */
}

enum { READ_WARPRED_GRID, READ_FULL_4, READ_FULL_8, READ_KERNELS };
static const char *const read_name[] = {"k_read (warpred grid, 4 loads in flight)", "full grid, 4 loads in flight",
                                        "full grid, 8 loads in flight"};
static unsigned g_full_grid[READ_KERNELS]; /* resident blocks of k_read_unrolled<4>, <8> */
static int g_read_kernel;                  /* this run's fastest */

static void launch_read(int k, const void *in, size_t bytes, void *sink)
{
    const float4 *x = (const float4 *)in;
    const size_t nv = bytes / 16;
    switch (k) {
    case READ_WARPRED_GRID:
        k_read<<<warpred_device_blocks(&g_dplan, bytes / 4, 4), WARPRED_DEVICE_THREADS>>>(x, nv, (float *)sink);
        break;
    case READ_FULL_4: k_read_unrolled<4><<<g_full_grid[k], READ_THREADS>>>(x, nv, (float *)sink); break;
    default: k_read_unrolled<8><<<g_full_grid[k], READ_THREADS>>>(x, nv, (float *)sink);
    }
}

/* ---- warpred ---- */
static cudaError_t warpred_call(const seg_call *c, const char **why)
{
    warpred_rows_plan *plan = &g_plans[c->strategy];
    const size_t rows = c->rows, cols = c->cols;
    if (c->kind == K_ROWS) {
        if (c->dbl)
            return warpred_device_reduce_rows(plan, (const double *)c->in, rows, cols, cols, (double *)c->out,
                                              warpred_op_sum(), 0, why);
        const float *x = (const float *)c->in;
        switch (c->op) {
        case OP_SUM:
            if (c->to_double)
                return warpred_device_reduce_rows(plan, x, rows, cols, cols, (double *)c->out, warpred_op_sum(), 0,
                                                  why);
            return warpred_device_reduce_rows(plan, x, rows, cols, cols, (float *)c->out, warpred_op_sum(), 0, why);
        case OP_MAX:
            return warpred_device_reduce_rows(plan, x, rows, cols, cols, (float *)c->out, warpred_op_max(), 0, why);
        case OP_ARGMAX:
            return warpred_device_transform_reduce_rows(plan, x, rows, cols, cols, (warpred_arg<float, int> *)c->out,
                                                        warpred_op_argmax(), xf_arg_int(), warpred_fin_identity(), 0,
                                                        why);
        default:
            return warpred_device_reduce_rows(plan, x, rows, cols, cols, (float *)c->out, warpred_op_rsum(), 0, why);
        }
    }
#if !BENCH_SEGMENTED_CUB36
    const float *x = (const float *)c->in;
    if (c->kind == K_COLUMNS) {
        if (c->to_double)
            return warpred_device_reduce_columns(plan, x, rows, cols, cols, (double *)c->out, warpred_op_sum(), 0, why);
        return warpred_device_reduce_columns(plan, x, rows, cols, cols, (float *)c->out, warpred_op_sum(), 0, why);
    }
    if (c->kind == K_RANGES) {
        if (c->to_double)
            return warpred_device_reduce_ranges(plan, x, c->begin, c->begin + 1, c->count, (double *)c->out,
                                                warpred_op_sum(), 0, why);
        return warpred_device_reduce_ranges(plan, x, c->begin, c->begin + 1, c->count, (float *)c->out,
                                            warpred_op_sum(), 0, why);
    }
#endif
    *why = "bench: no such warpred call";
    return cudaErrorInvalidValue;
}

/* ---- CUB: temp NULL asks for the temp storage's size ---- */
static cudaError_t cub_call(const seg_call *c, void *temp, size_t &bytes)
{
#if BENCH_SEGMENTED_CUB36
    const ::cuda::std::int64_t segments = (::cuda::std::int64_t)c->rows;
    const int size = (int)c->cols;
    if (c->dbl)
        return cub::DeviceSegmentedReduce::Sum(temp, bytes, (const double *)c->in, (double *)c->out, segments, size);
    const float *x = (const float *)c->in;
    switch (c->op) {
    case OP_SUM: return cub::DeviceSegmentedReduce::Sum(temp, bytes, x, (float *)c->out, segments, size);
    case OP_MAX: return cub::DeviceSegmentedReduce::Max(temp, bytes, x, (float *)c->out, segments, size);
    default: return cub::DeviceSegmentedReduce::ArgMax(temp, bytes, x, (cub_arg *)c->out, segments, size);
    }
#else
    const ::cuda::std::int64_t segments = (::cuda::std::int64_t)c->count;
    const int *o = c->cub_off;
    if (c->dbl)
        return cub::DeviceSegmentedReduce::Sum(temp, bytes, (const double *)c->in, (double *)c->out, segments, o,
                                               o + 1);
    const float *x = (const float *)c->in;
    switch (c->op) {
    case OP_SUM: return cub::DeviceSegmentedReduce::Sum(temp, bytes, x, (float *)c->out, segments, o, o + 1);
    case OP_MAX: return cub::DeviceSegmentedReduce::Max(temp, bytes, x, (float *)c->out, segments, o, o + 1);
    default: return cub::DeviceSegmentedReduce::ArgMax(temp, bytes, x, (cub_arg *)c->out, segments, o, o + 1);
    }
#endif
}

static cudaError_t seg_run(const seg_call *c, const char **why)
{
    *why = "no error";
    if (c->kind == K_CEILING) {
        launch_read(g_read_kernel, c->in, c->read_bytes, c->out);
        return cudaSuccess;
    }
    if (c->kind == K_CUB) {
        size_t bytes = g_cub_temp_bytes;
        const cudaError_t err = cub_call(c, g_cub_temp, bytes);
        if (err != cudaSuccess) *why = cudaGetErrorString(err);
        return err;
    }
    return warpred_call(c, why);
}

static void seg_once(void *p)
{
    const char *why;
    const seg_call *c = (const seg_call *)p;
    if (seg_run(c, &why) != cudaSuccess) {
        fprintf(stderr, SEG_PROGRAM ": a timed call failed: %s\n", why);
        exit(1);
    }
}

/* ------------------------------------------------------------------------------------------
   the table rows
   ------------------------------------------------------------------------------------------ */

enum { MAX_VARIANTS = 10 };
typedef struct {
    int table, kase;
    const char *case_name;
    size_t n;        /* L, cols, or the count of ranges */
    size_t segments; /* results */
    double in_bytes; /* input elements read, in bytes */
    int variants;
    const char *name[MAX_VARIANTS];
    seg_call call[MAX_VARIANTS];
    double bytes[MAX_VARIANTS]; /* what a perfect kernel for the variant moves */
    int iw, ic, ie, ir, ip;     /* warpred, CUB, the ceiling, warpred ranges, the plain sum (rsum rows); -1: none */
    int is[STRATEGIES];         /* the forced strategies' variants (float sum rows); -1: none */
    int reps, warmup;
    float us[RUNS][MAX_VARIANTS];
    char check[96];
    size_t covered_begin, covered; /* ranges: the elements the ranges cover */
    std::vector<size_t> offsets;   /* ranges: the host offsets, count + 1 */
} seg_row;

static std::vector<seg_row *> g_rows;

static seg_row *new_row(int table, int kase, const char *case_name, size_t n, size_t segments, double in_bytes)
{
    seg_row *r = new seg_row();
    r->table = table;
    r->kase = kase;
    r->case_name = case_name;
    r->n = n;
    r->segments = segments;
    r->in_bytes = in_bytes;
    r->iw = r->ic = r->ie = r->ir = r->ip = -1;
    for (int s = 0; s < STRATEGIES; s++) r->is[s] = -1;
    g_rows.push_back(r);
    return r;
}

static int add_variant(seg_row *r, const char *name, const seg_call &call, double bytes)
{
    if (r->variants == MAX_VARIANTS) {
        fprintf(stderr, SEG_PROGRAM ": more than %d variants in a row\n", (int)MAX_VARIANTS);
        exit(1);
    }
    r->name[r->variants] = name;
    r->call[r->variants] = call;
    r->bytes[r->variants] = bytes;
    return r->variants++;
}

/* bytes a perfect kernel moves: the input, (segments + 1) offsets of offset_bytes, a result each */
static double perfect_bytes(double in_bytes, size_t segments, size_t offset_bytes, size_t out_bytes)
{
    return in_bytes + (offset_bytes ? (double)(segments + 1) * offset_bytes : 0) + (double)segments * out_bytes;
}

static void remove_variant(seg_row *r, int v)
{
    for (int i = v; i + 1 < r->variants; i++) {
        r->name[i] = r->name[i + 1];
        r->call[i] = r->call[i + 1];
        r->bytes[i] = r->bytes[i + 1];
    }
    r->variants--;
    int *idx[] = {&r->iw, &r->ic, &r->ie, &r->ir, &r->ip, &r->is[0], &r->is[1], &r->is[2], &r->is[3], &r->is[4]};
    for (int *p : idx)
        if (*p == v) *p = -1;
        else if (*p > v)
            (*p)--;
}

/* ------------------------------------------------------------------------------------------
   the host reference: x[i] = k(i) * 2^-20, exact sums in int64
   ------------------------------------------------------------------------------------------ */

static std::vector<unsigned> g_k;     /* k(i) = bench_k(i), 20 bits */
static std::vector<long long> g_pref; /* prefix sums of k: g_pref[i] = k(0) + ... + k(i - 1) */

/* f(begin, end, part) over the parts of [0, n), one part per hardware thread (at most
   MAX_PARTS), in parallel; returns the number of parts */
enum { MAX_PARTS = 64 };
template <typename F> static unsigned parallel_parts(size_t n, F f)
{
    unsigned t = std::thread::hardware_concurrency();
    t = t < 1 ? 1u : t > (unsigned)MAX_PARTS ? (unsigned)MAX_PARTS : t;
    if (n < ((size_t)1 << 16)) t = 1;
    std::vector<std::thread> pool;
    for (unsigned i = 1; i < t; i++) pool.emplace_back(f, n * i / t, n * (i + 1) / t, i);
    f((size_t)0, n / t, 0u);
    for (std::thread &th : pool) th.join();
    return t;
}

/* per-row max and argmax for rows of g_level_L, built by halving (rows of 2L from rows of L) */
static size_t g_level_L;
static std::vector<unsigned> g_level_max, g_level_max2;
static std::vector<int> g_level_arg, g_level_arg2;

static void level_to(size_t L)
{
    if (g_level_L == 0 || g_level_L > L) {
        g_level_L = 1;
        g_level_max = g_k;
        g_level_arg.assign(N, 0);
    }
    while (g_level_L < L) {
        const size_t rows = N / (2 * g_level_L);
        g_level_max2.resize(rows);
        g_level_arg2.resize(rows);
        parallel_parts(rows, [&](size_t begin, size_t end, unsigned) {
            for (size_t r = begin; r < end; r++) {
                const unsigned a = g_level_max[2 * r], b = g_level_max[2 * r + 1];
                const bool right = b > a; /* ties: the left (lower index) wins */
                g_level_max2[r] = right ? b : a;
                g_level_arg2[r] = right ? g_level_arg[2 * r + 1] + (int)g_level_L : g_level_arg[2 * r];
            }
        });
        g_level_max.swap(g_level_max2);
        g_level_arg.swap(g_level_arg2);
        g_level_max.resize(rows);
        g_level_arg.resize(rows);
        g_level_L *= 2;
    }
}

/* segment s of a row: [begin, begin + len) with stride (1 for rows and ranges, cols for columns) */
typedef struct {
    long long k; /* the exact sum of k over the segment */
    size_t len;
} seg_exact;

static seg_exact exact_of(const seg_row *r, size_t s, const std::vector<long long> &colsum)
{
    seg_exact e;
    if (r->table == TABLE_ROWS) {
        e.k = g_pref[(s + 1) * r->n] - g_pref[s * r->n];
        e.len = r->n;
    } else if (r->table == TABLE_COLUMNS) {
        e.k = colsum[s];
        e.len = N / r->n;
    } else {
        const size_t b = r->offsets[s], en = r->offsets[s + 1];
        e.k = g_pref[en] - g_pref[b];
        e.len = en - b;
    }
    return e;
}

static void wrong(const seg_row *r, const char *variant, const char *fmt, ...)
{
    static const char *const table[] = {"rows", "columns", "ranges"};
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "\n" SEG_PROGRAM ": WRONG RESULT: %s, %s, n = %zu, %s: ", table[r->table], r->case_name, r->n,
            variant);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(nothing timed; exit 1)\n");
    va_end(ap);
    exit(1);
}

/* Runs c once (out first filled with 0xff bytes) and copies `bytes` of its output to host. */
static cudaError_t run_and_fetch(const seg_row *r, const seg_call *c, std::vector<unsigned char> &host, size_t bytes,
                                 const char **why)
{
    BCHECK(cudaMemset(c->out, 0xff, bytes));
    cudaError_t err = seg_run(c, why);
    if (err != cudaSuccess) return err;
    err = cudaDeviceSynchronize();
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, SEG_PROGRAM ": %s, n = %zu: a kernel failed: %s\n", r->case_name, r->n,
                cudaGetErrorString(err));
        exit(1);
    }
    host.resize(bytes);
    BCHECK(cudaMemcpy(host.data(), c->out, bytes, cudaMemcpyDeviceToHost));
    return cudaSuccess;
}

static double ulp_of(float f)
{
    const float a = fabsf(f);
    return (double)nextafterf(a, INFINITY) - (double)a;
}

/* ok(s, &err) for every segment s of r, in parallel; the lowest s that fails is reported
   (wrong, exit 1) by calling ok(s, err, true) again, which says why. Returns the largest err. */
template <typename Ok> static double check_all(const seg_row *r, Ok ok)
{
    size_t first_bad[MAX_PARTS];
    double worst[MAX_PARTS];
    const unsigned parts = parallel_parts(r->segments, [&](size_t begin, size_t end, unsigned part) {
        first_bad[part] = SIZE_MAX;
        worst[part] = 0;
        for (size_t s = begin; s < end; s++) {
            double err = 0;
            if (!ok(s, err, false)) {
                first_bad[part] = s;
                break;
            }
            if (err > worst[part]) worst[part] = err;
        }
    });
    double most = 0;
    for (unsigned p = 0; p < parts; p++) {
        if (first_bad[p] != SIZE_MAX) {
            double err;
            ok(first_bad[p], err, true); /* the lowest failing segment: parts are in order */
        }
        if (worst[p] > most) most = worst[p];
    }
    return most;
}

/* float sums within 2^-24 (2 + 4 sqrt(len)) of the exact sum, relatively; returns the worst
   relative error */
static double check_float_sums(const seg_row *r, const char *variant, const float *got,
                               const std::vector<long long> &colsum)
{
    return check_all(r, [&](size_t s, double &rel, bool tell) {
        const seg_exact e = exact_of(r, s, colsum);
        const double want = (double)e.k * 0x1p-20, err = fabs((double)got[s] - want);
        const double tol = want * (2.0 + 4.0 * sqrt((double)e.len)) * 0x1p-24;
        rel = want > 0 ? err / want : 0;
        if (tell)
            wrong(r, variant, "segment %zu (%zu elements): %.9g, the exact sum is %.9g (tolerance %.3g)", s, e.len,
                  (double)got[s], want, tol);
        return err <= tol;
    });
}

static void check_double_sums(const seg_row *r, const char *variant, const double *got,
                              const std::vector<long long> &colsum)
{
    check_all(r, [&](size_t s, double &, bool tell) {
        const seg_exact e = exact_of(r, s, colsum);
        const double want = (double)e.k * 0x1p-20; /* every partial sum is exact in double */
        if (tell)
            wrong(r, variant, "segment %zu (%zu elements): %.17g, the exact sum is %.17g", s, e.len, got[s], want);
        return got[s] == want;
    });
}

static void check_rsums(const seg_row *r, const char *variant, const float *got)
{
    static const std::vector<long long> none;
    check_all(r, [&](size_t s, double &, bool tell) {
        const double want = (double)exact_of(r, s, none).k * 0x1p-20;
        if (tell)
            wrong(r, variant, "reproducible sum of segment %zu: %.9g, the exact sum is %.9g (more than 1 ulp away)", s,
                  (double)got[s], want);
        return fabs((double)got[s] - want) <= ulp_of(got[s]);
    });
}

/* max or argmax against the halving reference: get(s, &value, &index) reads result s (index
   -1: a max, no index) */
template <typename Get> static void check_extrema(const seg_row *r, const char *variant, Get get)
{
    check_all(r, [&](size_t s, double &, bool tell) {
        const float want = (float)((double)g_level_max[s] * 0x1p-20);
        float got;
        int at;
        get(s, &got, &at);
        const int want_at = at < 0 ? -1 : g_level_arg[s];
        if (tell)
            wrong(r, variant, "row %zu: (%.9g, %d), the host's (%.9g, %d)", s, (double)got, at, (double)want, want_at);
        return got == want && at == want_at;
    });
}

/* Checks every variant of r once (and warpred's exact forms beside them); drops a forced
   strategy the GPU does not support; sets r->check. */
static void check_row(seg_row *r)
{
    static std::vector<unsigned char> host, rsum_auto; /* kept: their pages stay mapped */
    std::vector<long long> colsum;
    rsum_auto.clear();
    const char *why;
    if (r->table == TABLE_ROWS && (r->kase == C_MAX || r->kase == C_ARGMAX)) level_to(r->n);
    if (r->table == TABLE_COLUMNS) {
        colsum.assign(r->n, 0);
        for (size_t i = 0; i < N; i++) colsum[i % r->n] += g_k[i];
    }
    double worst_warpred = 0, worst_cub = -1;
    for (int v = 0; v < r->variants; v++) {
        if (v == r->ie) continue;
        seg_call c = r->call[v];
        const size_t count = r->segments;
        const cudaError_t err = [&] {
            switch (c.op) {
            case OP_ARGMAX: return run_and_fetch(r, &c, host, count * 8, &why);
            default: return run_and_fetch(r, &c, host, count * (c.dbl ? 8 : 4), &why);
            }
        }();
        if (err != cudaSuccess) {
            if (c.kind == K_ROWS && c.strategy != S_AUTO && err == cudaErrorNotSupported) {
                static bool told[STRATEGIES];
                if (!told[c.strategy]) printf("%s: cudaErrorNotSupported (\"%s\"): not timed\n", r->name[v], why);
                told[c.strategy] = true;
                remove_variant(r, v--);
                continue;
            }
            fprintf(stderr, SEG_PROGRAM ": %s, n = %zu, %s: the call failed: %s\n", r->case_name, r->n, r->name[v],
                    why);
            exit(1);
        }
        const bool cub = c.kind == K_CUB;
        if (c.dbl) check_double_sums(r, r->name[v], (const double *)host.data(), colsum);
        else if (c.op == OP_SUM) {
            const double w = check_float_sums(r, r->name[v], (const float *)host.data(), colsum);
            if (cub) worst_cub = w;
            else if (v == r->iw)
                worst_warpred = w;
        } else if (c.op == OP_RSUM)
            check_rsums(r, r->name[v], (const float *)host.data());
        else if (c.op == OP_MAX) {
            const float *m = (const float *)host.data();
            check_extrema(r, r->name[v], [&](size_t s, float *value, int *index) {
                *value = m[s];
                *index = -1;
            });
        } else if (cub) {
            const cub_arg *a = (const cub_arg *)host.data();
            check_extrema(r, r->name[v], [&](size_t s, float *value, int *index) {
#if BENCH_SEGMENTED_CUB36
                *value = a[s].second;
                *index = a[s].first;
#else
                *value = a[s].value;
                *index = a[s].key;
#endif
            });
        } else {
            const warpred_arg<float, int> *a = (const warpred_arg<float, int> *)host.data();
            check_extrema(r, r->name[v], [&](size_t s, float *value, int *index) {
                *value = a[s].value;
                *index = a[s].index;
            });
        }
        /* warpred's sums: the same call accumulating in double is exact; rows: the reproducible
           sum under this strategy has AUTO's bits */
        if (!cub && !c.dbl && c.op == OP_SUM) {
            seg_call d = c;
            d.to_double = true;
            if (run_and_fetch(r, &d, host, count * 8, &why) != cudaSuccess) {
                fprintf(stderr, SEG_PROGRAM ": %s, n = %zu, %s (double out): the call failed: %s\n", r->case_name, r->n,
                        r->name[v], why);
                exit(1);
            }
            char name[96];
            snprintf(name, sizeof name, "%s, float in, double out", r->name[v]);
            check_double_sums(r, name, (const double *)host.data(), colsum);
            if (c.kind == K_ROWS) {
                seg_call q = c;
                q.op = OP_RSUM;
                if (run_and_fetch(r, &q, host, count * 4, &why) != cudaSuccess) {
                    fprintf(stderr, SEG_PROGRAM ": %s, n = %zu, %s (rsum): the call failed: %s\n", r->case_name, r->n,
                            r->name[v], why);
                    exit(1);
                }
                snprintf(name, sizeof name, "%s, reproducible sum", r->name[v]);
                check_rsums(r, name, (const float *)host.data());
                if (c.strategy == S_AUTO) rsum_auto.assign(host.begin(), host.begin() + count * 4);
                else if (!rsum_auto.empty() && memcmp(rsum_auto.data(), host.data(), count * 4) != 0)
                    wrong(r, name, "its bits differ from AUTO's (the manual: the same bits under every strategy)");
            }
        }
    }
    if (r->table == TABLE_ROWS && r->kase == C_RSUM) snprintf(r->check, sizeof r->check, "<= 1 ulp");
    else if (r->table == TABLE_ROWS && r->kase != C_SUM)
        snprintf(r->check, sizeof r->check, "exact%s", r->ic >= 0 ? ", = CUB" : "");
    else if (worst_cub >= 0)
        snprintf(r->check, sizeof r->check, "rel. err %.1e (CUB %.1e)", worst_warpred, worst_cub);
    else
        snprintf(r->check, sizeof r->check, "rel. err %.1e", worst_warpred);
}

/* one call of each variant, timed: the calls per row and the warm-ups */
static void plan_row(seg_row *r)
{
    double total = 0;
    for (int v = 0; v < r->variants; v++) total += bench_median_ms(seg_once, &r->call[v], 1, 1);
    int reps = (int)(ROW_BUDGET_MS / total);
    reps = reps < 3 ? 3 : reps > 201 ? 201 : reps;
    r->reps = reps % 2 ? reps : reps - 1;
    r->warmup = total > 20 ? 1 : total > 2 ? 2 : 5;
}

/* ------------------------------------------------------------------------------------------
   building the rows
   ------------------------------------------------------------------------------------------ */

__global__ void k_fill_double(double *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (double)bench_k(i) * 0x1p-20;
}

template <typename O> __global__ void k_uniform_offsets(O *o, size_t count, size_t L)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i <= count; i += (size_t)gridDim.x * blockDim.x)
        o[i] = (O)(i * L);
}

typedef struct {
    const float *x;
    const double *xd;
    void *out;
} seg_buffers;

static void build_rows_table(const seg_buffers &b, bool strategies)
{
    static char cub_name[3][64];
#if BENCH_SEGMENTED_CUB36
    const int cases[] = {C_SUM, C_MAX, C_ARGMAX, C_DSUM};
    snprintf(cub_name[0], 64, "CUB %d.%d DeviceSegmentedReduce::Sum (fixed size)", CUB_MAJOR_VERSION,
             CUB_MINOR_VERSION);
    snprintf(cub_name[1], 64, "CUB %d.%d DeviceSegmentedReduce::Max (fixed size)", CUB_MAJOR_VERSION,
             CUB_MINOR_VERSION);
    snprintf(cub_name[2], 64, "CUB %d.%d DeviceSegmentedReduce::ArgMax (fixed size)", CUB_MAJOR_VERSION,
             CUB_MINOR_VERSION);
    const size_t cub_offset_bytes = 0;
#else
    const int cases[] = {C_SUM, C_MAX, C_ARGMAX, C_RSUM, C_DSUM};
    snprintf(cub_name[0], 64, "CUB DeviceSegmentedReduce::Sum");
    snprintf(cub_name[1], 64, "CUB DeviceSegmentedReduce::Max");
    snprintf(cub_name[2], 64, "CUB DeviceSegmentedReduce::ArgMax");
    const size_t cub_offset_bytes = sizeof(int);
#endif
    /* the offsets of every L: int for CUB, size_t for warpred's ranges form */
    int *cub_off[LENGTHS] = {};
    size_t *off[LENGTHS] = {};
#if BENCH_SEGMENTED_CUB36
    (void)strategies;
#else
    for (int li = 0; li < LENGTHS; li++) {
        const size_t L = ROW_LENGTHS[li], rows = N / L;
        BCHECK(cudaMalloc(&cub_off[li], (rows + 1) * sizeof(int)));
        BCHECK(cudaMalloc(&off[li], (rows + 1) * sizeof(size_t)));
        k_uniform_offsets<<<1024, 256>>>(cub_off[li], rows, L);
        k_uniform_offsets<<<1024, 256>>>(off[li], rows, L);
        BCHECK(cudaGetLastError());
    }
#endif
    for (int kase : cases)
        for (int li = 0; li < LENGTHS; li++) {
            const size_t L = ROW_LENGTHS[li], rows = N / L;
            const bool dbl = kase == C_DSUM;
            const size_t elem = dbl ? 8 : 4, out_bytes = kase == C_ARGMAX ? 8 : elem;
            const double in_bytes = (double)N * elem;
            seg_row *r = new_row(TABLE_ROWS, kase, row_case_name[kase], L, rows, in_bytes);
            seg_call c;
            memset(&c, 0, sizeof c);
            c.kind = K_ROWS;
            c.op = kase == C_MAX ? OP_MAX : kase == C_ARGMAX ? OP_ARGMAX : kase == C_RSUM ? OP_RSUM : OP_SUM;
            c.strategy = S_AUTO;
            c.dbl = dbl;
            c.in = dbl ? (const void *)b.xd : (const void *)b.x;
            c.rows = rows;
            c.cols = L;
            c.count = rows;
            c.begin = off[li];
            c.cub_off = cub_off[li];
            c.read_bytes = (size_t)in_bytes;
            c.out = b.out;
            r->iw = add_variant(r, kase == C_RSUM ? "warpred rsum" : "warpred", c,
                                perfect_bytes(in_bytes, rows, 0, out_bytes));
            if (kase == C_RSUM) {
                seg_call p = c;
                p.op = OP_SUM;
                r->ip = add_variant(r, "warpred sum", p, perfect_bytes(in_bytes, rows, 0, out_bytes));
            } else {
                seg_call k = c;
                k.kind = K_CUB;
                const int name = kase == C_MAX ? 1 : kase == C_ARGMAX ? 2 : 0;
                r->ic = add_variant(r, cub_name[name], k, perfect_bytes(in_bytes, rows, cub_offset_bytes, out_bytes));
            }
            seg_call e = c;
            e.kind = K_CEILING;
            r->ie = add_variant(r, "read ceiling", e, in_bytes);
#if !BENCH_SEGMENTED_CUB36
            if (kase == C_SUM) {
                seg_call g = c;
                g.kind = K_RANGES;
                r->ir = add_variant(r, "warpred ranges", g, perfect_bytes(in_bytes, rows, sizeof(size_t), out_bytes));
                for (int s = S_LANES; strategies && s < STRATEGIES; s++)
                    if (rows_strategy_applies(s, L)) {
                        seg_call f = c;
                        f.strategy = s;
                        r->is[s] = add_variant(r, strategy_variant[s], f, perfect_bytes(in_bytes, rows, 0, out_bytes));
                    }
            }
#endif
        }
}

#if !BENCH_SEGMENTED_CUB36
static void build_columns_table(const seg_buffers &b)
{
    for (int ci = 0; ci < COLUMN_CASES; ci++) {
        const size_t cols = COLUMN_COUNTS[ci], rows = N / cols;
        const double in_bytes = (double)N * 4;
        seg_row *r = new_row(TABLE_COLUMNS, 0, "float sum", cols, cols, in_bytes);
        seg_call c;
        memset(&c, 0, sizeof c);
        c.kind = K_COLUMNS;
        c.op = OP_SUM;
        c.in = b.x;
        c.rows = rows;
        c.cols = cols;
        c.read_bytes = (size_t)in_bytes;
        c.out = b.out;
        r->iw = add_variant(r, "warpred", c, perfect_bytes(in_bytes, cols, 0, 4));
        c.kind = K_CEILING;
        r->ie = add_variant(r, "read ceiling", c, in_bytes);
    }
}

/* lengths for [from, to): uniform in 1..64 (the last cut to fit) */
static void append_uniform(std::vector<size_t> &o, size_t to, unsigned seed)
{
    size_t at = o.back();
    for (unsigned s = 0; at < to; s++) {
        size_t len = 1 + bench_hash(s * 2654435761u ^ seed) % 64;
        if (len > to - at) len = to - at;
        at += len;
        o.push_back(at);
    }
}

enum { UNIFORM, POWER, HUGE_EMPTY, HUGE_UNIFORM, DISTRIBUTIONS };
static const char *const dist_name[] = {"lengths uniform in 1..64", "power law 1..10^6, P(len >= x) = 1/x",
                                        "one of 2^25 among 2^20 empty", "one of 2^25 among 1..64"};

/* the CSR offsets of distribution d over [0, N) (fixed seeds) */
static std::vector<size_t> make_offsets(int d)
{
    const size_t huge = (size_t)1 << 25, quarter = N / 4;
    std::vector<size_t> o(1, 0);
    switch (d) {
    case UNIFORM: append_uniform(o, N, 0x5eed0001u); break;
    case POWER:
        for (unsigned s = 0; o.back() < N; s++) {
            const double u = ((double)bench_hash(s * 2654435761u ^ 0x5eed0002u) + 1.0) * 0x1p-32; /* (0, 1] */
            size_t len = (size_t)(1.0 / u);
            if (len > 1000000) len = 1000000;
            if (len > N - o.back()) len = N - o.back();
            o.push_back(o.back() + len);
        }
        break;
    case HUGE_EMPTY: {
        const size_t count = (size_t)1 << 20, k = count / 2;
        o.assign(count + 1, quarter);
        for (size_t i = k + 1; i <= count; i++) o[i] = quarter + huge;
        break;
    }
    default:
        append_uniform(o, quarter, 0x5eed0003u);
        o.push_back(quarter + huge);
        append_uniform(o, N, 0x5eed0004u);
    }
    return o;
}

static void build_ranges_table(const seg_buffers &b)
{
    for (int d = 0; d < DISTRIBUTIONS; d++) {
        const std::vector<size_t> o = make_offsets(d);
        const size_t count = o.size() - 1, covered = o[count] - o[0];
        const double in_bytes = (double)covered * 4;
        seg_row *r = new_row(TABLE_RANGES, d, dist_name[d], count, count, in_bytes);
        r->offsets = o;
        r->covered_begin = o[0];
        r->covered = covered;
        std::vector<int> oi(o.begin(), o.end());
        size_t *d_off;
        int *d_cub_off;
        BCHECK(cudaMalloc(&d_off, o.size() * sizeof(size_t)));
        BCHECK(cudaMalloc(&d_cub_off, o.size() * sizeof(int)));
        BCHECK(cudaMemcpy(d_off, o.data(), o.size() * sizeof(size_t), cudaMemcpyHostToDevice));
        BCHECK(cudaMemcpy(d_cub_off, oi.data(), oi.size() * sizeof(int), cudaMemcpyHostToDevice));
        seg_call c;
        memset(&c, 0, sizeof c);
        c.kind = K_RANGES;
        c.op = OP_SUM;
        c.in = b.x;
        c.count = count;
        c.begin = d_off;
        c.cub_off = d_cub_off;
        c.out = b.out;
        r->iw = add_variant(r, "warpred", c, perfect_bytes(in_bytes, count, sizeof(size_t), 4));
        c.kind = K_CUB;
        r->ic = add_variant(r, "CUB DeviceSegmentedReduce::Sum", c, perfect_bytes(in_bytes, count, sizeof(int), 4));
        c.kind = K_CEILING;
        c.in = b.x + o[0];
        c.read_bytes = covered * 4;
        r->ie = add_variant(r, "read ceiling", c, in_bytes);
    }
}
#endif

/* ------------------------------------------------------------------------------------------
   timing and tables
   ------------------------------------------------------------------------------------------ */

/* The read kernels on the 2^26 floats, taking turns; the fastest becomes this run's ceiling. */
static void choose_read_kernel(FILE *csv, const float *x, int run, double *gbs_out)
{
    seg_call c[READ_KERNELS];
    void *ctxs[READ_KERNELS];
    bench_fn fns[READ_KERNELS];
    float ms[READ_KERNELS];
    for (int k = 0; k < READ_KERNELS; k++) {
        memset(&c[k], 0, sizeof c[k]);
        c[k].strategy = k; /* which read kernel (the lambda below reads it) */
        c[k].in = x;
        c[k].read_bytes = N * 4;
        ctxs[k] = &c[k];
        fns[k] = [](void *p) {
            const seg_call *r = (const seg_call *)p;
            launch_read(r->strategy, r->in, r->read_bytes, (void *)r->out);
        };
    }
    float *sink;
    BCHECK(cudaMalloc(&sink, 4));
    for (int k = 0; k < READ_KERNELS; k++) c[k].out = sink;
    bench_interleaved_median_ms(fns, ctxs, READ_KERNELS, 5, 101, ms);
    BCHECK(cudaFree(sink));
    int best = 0;
    for (int k = 0; k < READ_KERNELS; k++) {
        gbs_out[k] = (double)N * 4 / (ms[k] * 1e6);
        fprintf(csv, "segmented_read,\"read kernels, 2^26 floats\",\"%s\",%zu,%.3f,%.2f,GB/s\n", read_name[k], N * 4,
                ms[k] * 1e3, gbs_out[k]);
        if (ms[k] < ms[best]) best = k;
    }
    g_read_kernel = best;
    printf("run %d: read kernels on 2^26 floats: %s %.0f GB/s, %s %.0f GB/s, %s %.0f GB/s: the ceiling is \"%s\"\n",
           run + 1, read_name[0], gbs_out[0], read_name[1], gbs_out[1], read_name[2], gbs_out[2], read_name[best]);
}

static void time_row(FILE *csv, seg_row *r, int run)
{
    void *ctxs[MAX_VARIANTS];
    bench_fn fns[MAX_VARIANTS];
    static const char *const bench[] = {"segmented_rows", "segmented_columns", "segmented_ranges"};
    for (int v = 0; v < r->variants; v++) {
        ctxs[v] = &r->call[v];
        fns[v] = seg_once;
    }
    bench_interleaved_median_ms(fns, ctxs, r->variants, r->warmup, r->reps, r->us[run]);
    for (int v = 0; v < r->variants; v++) {
        r->us[run][v] *= 1000.0f;
        fprintf(csv, "%s,\"%s\",\"%s\",%zu,%.3f,%.2f,GB/s\n", bench[r->table], r->case_name, r->name[v], r->n,
                r->us[run][v], r->bytes[v] / (r->us[run][v] * 1e3));
    }
}

/* median over the runs of variant v's time, and of its fraction of the ceiling */
static double med_us(const seg_row *r, int v) { return median3(r->us[0][v], r->us[1][v], r->us[2][v]); }
static double frac_run(const seg_row *r, int v, int run)
{
    return r->bytes[v] * r->us[run][r->ie] / (r->in_bytes * r->us[run][v]);
}
static double med_frac(const seg_row *r, int v)
{
    return median3(frac_run(r, v, 0), frac_run(r, v, 1), frac_run(r, v, 2));
}
static double gbs(const seg_row *r, int v) { return r->bytes[v] / (med_us(r, v) * 1e3); }

/* t_a / t_b: the median of the runs' ratios and their range */
static double ratio(const seg_row *r, int a, int b, double *lo, double *hi)
{
    double q[RUNS];
    for (int run = 0; run < RUNS; run++) q[run] = (double)r->us[run][a] / r->us[run][b];
    const double m = median3(q[0], q[1], q[2]);
    qsort(q, RUNS, sizeof q[0], cmp_double);
    *lo = q[0];
    *hi = q[RUNS - 1];
    return m;
}

static const char *bench_ratio_name(const seg_row *r)
{
    static const char *const name[] = {"segmented_rows_ratio", "segmented_columns_ratio", "segmented_ranges_ratio"};
    return name[r->table];
}

static void write_ratios(FILE *csv, const seg_row *r)
{
    double lo, hi;
    if (r->ic >= 0)
        fprintf(csv, "%s,\"%s\",\"t_CUB / t_warpred, median of %d\",%zu,,%.4f,ratio\n", bench_ratio_name(r),
                r->case_name, RUNS, r->n, ratio(r, r->ic, r->iw, &lo, &hi));
    if (r->ip >= 0)
        fprintf(csv, "%s,\"%s\",\"t_plain / t_rsum, median of %d\",%zu,,%.4f,ratio\n", bench_ratio_name(r),
                r->case_name, RUNS, r->n, ratio(r, r->ip, r->iw, &lo, &hi));
    const int of[] = {r->iw, r->ic, r->ir, r->ip};
    for (int v : of)
        if (v >= 0)
            fprintf(csv, "%s,\"%s\",\"%s of ceiling\",%zu,,%.4f,ratio\n", bench_ratio_name(r), r->case_name, r->name[v],
                    r->n, med_frac(r, v));
}

static void print_l(size_t L)
{
    char t[16];
    if (L >= 1024 && (L & (L - 1)) == 0) snprintf(t, sizeof t, "2^%d", (int)log2((double)L));
    else
        snprintf(t, sizeof t, "%zu", L);
    printf("| %-5s ", t);
}

static void print_rows_tables(void)
{
    for (int kase = 0; kase < ROW_CASES; kase++) {
        std::vector<seg_row *> rs;
        for (seg_row *r : g_rows)
            if (r->table == TABLE_ROWS && r->kase == kase) rs.push_back(r);
        if (rs.empty()) continue;
        if (kase == C_RSUM) {
            printf("rows, float rsum: warpred_device_reduce_rows with warpred_op_rsum (the same bits under every "
                   "strategy) against\nwarpred's plain sum; median us per call (median of %d runs); GB/s of input + "
                   "one float per row; %% ceil\nas below; t_plain / t_rsum: the median (range) of the runs' ratios\n\n",
                   RUNS);
            printf(
                "| L     | rows     | rsum us   | GB/s   | %% ceil | plain us  | %% ceil | t_plain/t_rsum | (range)   "
                "  | check     |\n");
            printf("|-------|---------:|----------:|-------:|-------:|----------:|-------:|---------------:|-----------"
                   "--|-----------|\n");
            for (seg_row *r : rs) {
                double lo, hi;
                const double q = ratio(r, r->ip, r->iw, &lo, &hi);
                print_l(r->n);
                printf("| %8zu | %9.2f | %6.0f | %5.1f%% | %9.2f | %5.1f%% | %14.2f | %4.2f..%4.2f  | %-9s |\n",
                       r->segments, med_us(r, r->iw), gbs(r, r->iw), 100 * med_frac(r, r->iw), med_us(r, r->ip),
                       100 * med_frac(r, r->ip), q, lo, hi, r->check);
            }
            printf("\n");
            continue;
        }
        const seg_row *r0 = rs[0];
        printf("rows, %s: 2^26 %s in rows of L (ld = L), one result per row: warpred_device_reduce_rows (AUTO) vs "
               "%s;\nmedian us per call (median of %d runs); GB/s = bytes a perfect kernel moves (input, %s one result "
               "per row) / time;\n%% ceil = those bytes at the read ceiling's bandwidth / time; ratio = t_CUB / "
               "t_warpred, the median of the %d runs' ratios\n(their range in brackets); ceiling = the row's read "
               "kernel, GB/s of the input\n\n",
               r0->case_name, kase == C_DSUM ? "doubles" : "floats", r0->name[r0->ic], RUNS,
               BENCH_SEGMENTED_CUB36 ? "" : "CUB's int offsets,", RUNS);
        printf("| L     | rows     | warpred us | GB/s   | %% ceil | CUB us     | GB/s   | %% ceil | ratio  | (range)  "
               "     | ceiling GB/s | check                    |\n");
        printf("|-------|---------:|-----------:|-------:|-------:|-----------:|-------:|-------:|-------:|----------"
               "-----|-------------:|--------------------------|\n");
        for (seg_row *r : rs) {
            double lo, hi;
            const double q = ratio(r, r->ic, r->iw, &lo, &hi);
            print_l(r->n);
            printf("| %8zu | %10.2f | %6.0f | %5.1f%% | %10.2f | %6.0f | %5.1f%% | %6.2f | %5.2f..%5.2f  | %12.0f | "
                   "%-24s |\n",
                   r->segments, med_us(r, r->iw), gbs(r, r->iw), 100 * med_frac(r, r->iw), med_us(r, r->ic),
                   gbs(r, r->ic), 100 * med_frac(r, r->ic), q, lo, hi, r->in_bytes / (med_us(r, r->ie) * 1e3),
                   r->check);
        }
        printf("\n");
        if (kase != C_SUM || BENCH_SEGMENTED_CUB36) continue;
        printf(
            "rows, float sum: AUTO against each forced strategy (plan.strategy) and the ranges form on the same rows "
            "(size_t\noffsets); median us per call (median of %d runs); fastest: the fastest of AUTO and the forced "
            "ones, t_fastest / t_AUTO\nits median ratio (1.00: AUTO chose the fastest); - : not timed at this L\n\n",
            RUNS);
        printf("| L     | AUTO us   | LANES us  | BLOCK us  | SPLIT us  | CLUSTER us | ranges us | ranges %% ceil | "
               "fastest | t_fastest/t_AUTO |\n");
        printf("|-------|----------:|----------:|----------:|----------:|-----------:|----------:|--------------:|"
               "---------|-----------------:|\n");
        for (seg_row *r : rs) {
            print_l(r->n);
            printf("| %9.2f ", med_us(r, r->iw));
            int best = r->iw, best_s = S_AUTO;
            for (int s = S_LANES; s < STRATEGIES; s++) {
                const int v = r->is[s];
                if (v < 0) {
                    printf(s == S_CLUSTER ? "| %10s " : "| %9s ", "-");
                    continue;
                }
                printf(s == S_CLUSTER ? "| %10.2f " : "| %9.2f ", med_us(r, v));
                if (med_us(r, v) < med_us(r, best)) {
                    best = v;
                    best_s = s;
                }
            }
            double lo, hi;
            const double q = ratio(r, best, r->iw, &lo, &hi);
            printf("| %9.2f | %12.1f%% | %-7s | %16.2f |\n", med_us(r, r->ir), 100 * med_frac(r, r->ir),
                   strategy_name[best_s], q);
        }
        printf("\n");
    }
}

#if !BENCH_SEGMENTED_CUB36
static void print_columns_and_ranges(void)
{
    printf("columns, float sum: 2^26 floats as rows x cols, one result per column (warpred_device_reduce_columns; CUB "
           "has none);\nmedian us per call (median of %d runs); GB/s of input + one float per column; %% ceil as "
           "above\n\n",
           RUNS);
    printf("| cols  | rows     | warpred us | GB/s   | %% ceil | ceiling GB/s | check          |\n");
    printf("|-------|---------:|-----------:|-------:|-------:|-------------:|----------------|\n");
    for (seg_row *r : g_rows)
        if (r->table == TABLE_COLUMNS) {
            print_l(r->n);
            printf("| %8zu | %10.2f | %6.0f | %5.1f%% | %12.0f | %-14s |\n", N / r->n, med_us(r, r->iw), gbs(r, r->iw),
                   100 * med_frac(r, r->iw), r->in_bytes / (med_us(r, r->ie) * 1e3), r->check);
        }
    printf("\nranges, float sum: CSR offsets over the 2^26 floats, warpred_device_reduce_ranges (size_t offsets) vs "
           "CUB\nDeviceSegmentedReduce::Sum (int offsets); median us (median of %d runs); GB/s of input covered + "
           "offsets + one float\nper range; ratio = t_CUB / t_warpred, median (range) of the runs' ratios\n\n",
           RUNS);
    printf(
        "| ranges                                | count   | elements | warpred us | GB/s   | %% ceil | CUB us     | "
        "GB/s   | %% ceil | ratio  | (range)       | check                    |\n");
    printf("|---------------------------------------|--------:|---------:|-----------:|-------:|-------:|-----------:|"
           "-------:|-------:|-------:|---------------|--------------------------|\n");
    for (seg_row *r : g_rows)
        if (r->table == TABLE_RANGES) {
            double lo, hi;
            const double q = ratio(r, r->ic, r->iw, &lo, &hi);
            printf("| %-37s | %7zu | %8zu | %10.2f | %6.0f | %5.1f%% | %10.2f | %6.0f | %5.1f%% | %6.2f | "
                   "%5.2f..%5.2f  | %-24s |\n",
                   r->case_name, r->n, r->covered, med_us(r, r->iw), gbs(r, r->iw), 100 * med_frac(r, r->iw),
                   med_us(r, r->ic), gbs(r, r->ic), 100 * med_frac(r, r->ic), q, lo, hi, r->check);
        }
    printf("\n");
}
#endif

int main(int argc, char **argv)
{
    const char *csv_path = SEG_PROGRAM ".csv";
    bool strategies = true;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-strategies") == 0) strategies = false;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: " SEG_PROGRAM " [csv path] [--no-strategies]\n");
            return 2;
        } else
            csv_path = argv[i];
    }
    FILE *csv = bench_csv_open(csv_path);
    cudaDeviceProp prop;
    BCHECK(cudaGetDeviceProperties(&prop, 0));
    printf("warpred device_rows vs CUB %d.%d.%d segmented reduce on %s (%d SMs, %.0f MB L2)\n\n", CUB_MAJOR_VERSION,
           CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1e6);

    const char *why;
    for (int s = 0; s < STRATEGIES; s++) {
        if (warpred_rows_plan_create(&g_plans[s], 0, &why) != cudaSuccess) {
            fprintf(stderr, "warpred_rows_plan_create: %s\n", why);
            return 1;
        }
    }
    g_plans[S_LANES].strategy = WARPRED_ROWS_LANES;
    g_plans[S_BLOCK].strategy = WARPRED_ROWS_BLOCK;
    g_plans[S_SPLIT].strategy = WARPRED_ROWS_SPLIT;
    g_plans[S_CLUSTER].strategy = WARPRED_ROWS_CLUSTER;
    if (warpred_device_plan_create(&g_dplan, 0, &why) != cudaSuccess) {
        fprintf(stderr, "warpred_device_plan_create: %s\n", why);
        return 1;
    }
    int per_sm4 = 0, per_sm8 = 0;
    BCHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm4, k_read_unrolled<4>, READ_THREADS, 0));
    BCHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm8, k_read_unrolled<8>, READ_THREADS, 0));
    g_full_grid[READ_FULL_4] = (unsigned)(prop.multiProcessorCount * per_sm4);
    g_full_grid[READ_FULL_8] = (unsigned)(prop.multiProcessorCount * per_sm8);

    /* the inputs (256 MiB of floats, 512 MiB of doubles: no rotation, bench_rotated_input gives
       the buffer itself) and one output buffer for every call (2^26 results of 8 bytes) */
    float *x;
    double *xd;
    void *out;
    BCHECK(cudaMalloc(&x, N * 4));
    BCHECK(cudaMalloc(&xd, N * 8));
    BCHECK(cudaMalloc(&out, N * 8));
    k_fill<<<4096, 256>>>(x, N);
    k_fill_double<<<4096, 256>>>(xd, N);
    BCHECK(cudaGetLastError());
    const seg_buffers b = {(const float *)bench_rotated_input((const char *)x, N * 4),
                           (const double *)bench_rotated_input((const char *)xd, N * 8), out};

    build_rows_table(b, strategies);
#if !BENCH_SEGMENTED_CUB36
    build_columns_table(b);
    build_ranges_table(b);
#endif
    /* CUB's temporary storage: the most any of its calls asks for, allocated once */
    g_cub_temp_bytes = 1;
    for (seg_row *r : g_rows)
        if (r->ic >= 0) {
            size_t bytes = 0;
            BCHECK(cub_call(&r->call[r->ic], NULL, bytes));
            if (bytes > g_cub_temp_bytes) g_cub_temp_bytes = bytes;
        }
    BCHECK(cudaMalloc(&g_cub_temp, g_cub_temp_bytes));
    BCHECK(cudaDeviceSynchronize());

    /* the host reference */
    g_k.resize(N);
    g_pref.resize(N + 1);
    g_pref[0] = 0;
    for (size_t i = 0; i < N; i++) {
        g_k[i] = bench_k(i);
        g_pref[i + 1] = g_pref[i] + g_k[i];
    }

    /* every result checked once (rows by increasing L: the max reference halves its way up),
       then one timed call of each variant sets the row's calls */
    printf("checking every variant's results against the host reference ...\n");
    g_read_kernel = READ_FULL_8;
    for (int li = 0; li < LENGTHS; li++)
        for (seg_row *r : g_rows)
            if (r->table == TABLE_ROWS && r->n == ROW_LENGTHS[li]) check_row(r);
    for (seg_row *r : g_rows)
        if (r->table != TABLE_ROWS) check_row(r);
    printf("all results correct\n");
    g_level_max.clear();
    g_level_max.shrink_to_fit();
    g_level_arg.clear();
    g_level_arg.shrink_to_fit();
    for (seg_row *r : g_rows) plan_row(r);

    double read_gbs[RUNS][READ_KERNELS];
    for (int run = 0; run < RUNS; run++) {
        choose_read_kernel(csv, b.x, run, read_gbs[run]);
        for (seg_row *r : g_rows) time_row(csv, r, run);
    }
    printf("\n");
    for (seg_row *r : g_rows) write_ratios(csv, r);
    print_rows_tables();
#if !BENCH_SEGMENTED_CUB36
    print_columns_and_ranges();
#endif

    for (int s = 0; s < STRATEGIES; s++) warpred_rows_plan_destroy(&g_plans[s]);
    BCHECK(warpred_device_plan_destroy(&g_dplan));
    fclose(csv);
    return 0;
}
