/* warpred_device_reduce_rows / _columns / _ranges and their transform forms
   (warpred/device_rows.cuh) against independent host references: exact integer math, double and
   long double, the exact sum of wt_exact.h, and the argmin/argmax, Welford and softmax models of
   wt_compound.h.

   Rows: every strategy (AUTO; LANES with 1, 2, 4, 8, 16 and 32 lanes and with the lanes chosen;
   BLOCK; CLUSTER, skipped visibly before sm_90, where the call must say cudaErrorNotSupported;
   SPLIT) at row lengths 0 .. 65539 and 2^20 + 5, with 1, 2, 7 and 3000 rows (fewer where the
   elements would pass a budget; the long row once alone and dense, once as two misaligned rows),
   each in three layouts: dense, padded to a 16-byte ld, and padded to an ld that is no multiple
   of 16 bytes with in 1..K-1 elements past a 16-byte boundary (K elements per 16 bytes). Padding
   and the elements around the matrix hold traps (values that change any result they leak into),
   and the matrix ends at the end of its allocation (memcheck sees a read past it); every other
   call's results start one slot past a 16-byte boundary, and the slots either side of them must
   stay poisoned. Checked: integer sums (int64 exact, int
   wrapping), a transform that uses the index within the row and a finish that uses the slice
   index, float sums exact where every order is exact, within an argued bound otherwise, exact
   when accumulated in double, mean = sum / cols through a finish, a sum of -0 only,
   min/max/_num with NaN and +-0 (float and double), argmax and argmin_num (index within the row,
   lowest index on ties, the NaN rules of op_argminmax.cuh), Welford mean/variance, the softmax
   pair, a tuple (sum, min, max, count), the reproducible sum (the same bits under every
   strategy, and warpred_device_reduce's over the same row), 1- and 2-byte inputs (the packed
   short rows), AUTO's bits equal to those of one forced strategy, and the same bits on a second
   call.
   Columns (AUTO: the manual names no forced strategy for them): cols 1, 3, 32, 33, 1000 with 1,
   5, 1000 and ~2^20 / cols rows, tall 2^18 x 32 and 2^21 x 4 matrices (parts folded in two
   levels), the same three layouts, a 4096 x 1024 byte matrix; the transform's index is the row.
   Ranges (AUTO; LANES, BLOCK, CLUSTER and SPLIT refused or right): random (any order,
   overlapping, gaps, empty ones with end <= begin), uniform lengths 1..64, power-law lengths up
   to 10^5, one huge range among many empty ones, all empty but one, CSR offsets (ranges back to
   back: lengths 0..200 and, one in ten, up to 1500, beyond a tile's window), more long
   ranges than the plan's queue and partials hold, and ranges beside a kernel that holds some
   SMs (the grid not all resident at once).
   Also: empty shapes (g(identity); nothing stored for rows == 0 / cols == 0 / count == 0; in NULL
   where nothing is read), calls queued back to back through one plan, a CUDA graph replayed,
   the argument errors and their messages (no GPU needed for most), rows * ld above 2^32
   elements, and the manual's snippet. Under the sanitizer (wt_quick) every size shrinks. */
#include <warpred/device_rows.cuh>
#include <warpred/op_argminmax.cuh>
#include <warpred/op_welford.cuh>
#include <warpred/op_softmax.cuh>
#include <warpred/op_tuple.cuh>
#include <warpred/op_rsum.cuh>
#include <functional>
#include <type_traits>
#include "wt_compound.h" /* wt_types.h, and the argmin/argmax, Welford and softmax models */
#include "wt_exact.h"
#include "wt_plans.h" /* warpred_device_plan: warpred_device_reduce is the reproducible sum's reference */

/* ------------------------------------------------------------------------------------------
   plans owned by the running test, strategies
   ------------------------------------------------------------------------------------------ */

static warpred_rows_plan *wt_rows_plan(unsigned value_bytes)
{
    warpred_rows_plan *plan = (warpred_rows_plan *)wt_host_new(sizeof *plan);
    const char *why = NULL;
    const cudaError_t err = warpred_rows_plan_create(plan, value_bytes, &why);
    return (warpred_rows_plan *)wt_own_created(plan, err, why, "warpred_rows_plan_create",
                                               wt_release_created<warpred_rows_plan, warpred_rows_plan_destroy>);
}

static void wt_rows_plan_free(warpred_rows_plan *plan) { wt_destroy_owned(plan, warpred_rows_plan_destroy); }

typedef struct {
    int strategy, lanes;
    const char *name;
} strat;

/* Rows: AUTO first (its results are compared with the forced ones'). */
static const strat row_strats[] = {
    {WARPRED_ROWS_AUTO, 0, "AUTO"},       {WARPRED_ROWS_LANES, 0, "LANES (chosen)"}, {WARPRED_ROWS_LANES, 1, "LANES 1"},
    {WARPRED_ROWS_LANES, 2, "LANES 2"},   {WARPRED_ROWS_LANES, 4, "LANES 4"},        {WARPRED_ROWS_LANES, 8, "LANES 8"},
    {WARPRED_ROWS_LANES, 16, "LANES 16"}, {WARPRED_ROWS_LANES, 32, "LANES 32"},      {WARPRED_ROWS_BLOCK, 0, "BLOCK"},
    {WARPRED_ROWS_CLUSTER, 0, "CLUSTER"}, {WARPRED_ROWS_SPLIT, 0, "SPLIT"}};
enum { ROW_STRATS = sizeof row_strats / sizeof row_strats[0] };

/* Columns: the manual describes no forced strategy for them (contract question in the report):
   AUTO. Ranges: AUTO and LANES with every lane count (the group per range). */
static const strat column_strats[] = {{WARPRED_ROWS_AUTO, 0, "AUTO"}};
static const strat range_strats[] = {{WARPRED_ROWS_AUTO, 0, "AUTO"}};

/* CLUSTER calls refused, as documented, on a GPU older than sm_90: counted and reported. */
static long wt_cluster_skips;

static int wt_has_clusters(void)
{
    int device = 0, major = 0;
    WT_CUDA(cudaGetDevice(&device));
    WT_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    return major >= 9;
}

static void report_cluster_skips(const char *test)
{
    if (wt_cluster_skips > 0)
        printf("[ INFO     ] %s: %ld WARPRED_ROWS_CLUSTER cases SKIPPED: this GPU is older than sm_90 (each call "
               "returned cudaErrorNotSupported, as documented)\n",
               test, wt_cluster_skips);
    wt_cluster_skips = 0;
}

/* ------------------------------------------------------------------------------------------
   problems: a shape (rows, columns or ranges) placed in a buffer
   ------------------------------------------------------------------------------------------ */

enum { K_ROWS, K_COLUMNS, K_RANGES };
static const char *const kind_name[] = {"rows", "columns", "ranges"};
enum { L_DENSE, L_PADDED, L_MISALIGNED, LAYOUTS };
static const char *const layout_name[] = {"dense", "padded", "padded, misaligned"};

typedef struct problem {
    int kind, layout;
    size_t rows, cols, ld;         /* rows and columns */
    size_t start;                  /* in = buffer + start (elements) */
    size_t count;                  /* ranges */
    const size_t *begin, *end;     /* ranges, host copies (offsets from in) */
    const size_t *d_begin, *d_end; /* ranges, device */
    const char *set;               /* ranges: the set's name */
} problem;

static size_t slices(const problem *p)
{
    return p->kind == K_ROWS ? p->rows : p->kind == K_COLUMNS ? p->cols : p->count;
}

static size_t slice_len(const problem *p, size_t k)
{
    if (p->kind == K_ROWS) return p->cols;
    if (p->kind == K_COLUMNS) return p->rows;
    return p->end[k] > p->begin[k] ? p->end[k] - p->begin[k] : 0;
}

/* The buffer index of element i of slice k. */
static size_t slice_elem(const problem *p, size_t k, size_t i)
{
    if (p->kind == K_ROWS) return p->start + k * p->ld + i;
    if (p->kind == K_COLUMNS) return p->start + i * p->ld + k;
    return p->start + p->begin[k] + i;
}

/* Elements from in to one past the last element read. */
static size_t problem_span(const problem *p)
{
    if (p->kind != K_RANGES) return p->rows == 0 || p->cols == 0 ? 0 : (p->rows - 1) * p->ld + p->cols;
    size_t m = 0;
    for (size_t k = 0; k < p->count; k++)
        if (p->end[k] > p->begin[k] && p->end[k] > m) m = p->end[k];
    return m;
}

static const char *describe(const problem *p)
{
    static char buf[256];
    if (p->kind == K_RANGES)
        snprintf(buf, sizeof buf, "ranges (%s, count %zu, in at +%zu elements)", p->set, p->count, p->start);
    else
        snprintf(buf, sizeof buf, "%s of a %zu x %zu matrix (ld %zu, %s, in at +%zu elements)", kind_name[p->kind],
                 p->rows, p->cols, p->ld, layout_name[p->layout], p->start);
    return buf;
}

template <typename T> static size_t per_vector(void) { return 16 % sizeof(T) == 0 ? 16 / sizeof(T) : 1; }

/* Places p so that what it reads ends within K - 1 elements of the end of a buffer of cap elements
   (a multiple of K = 16 / sizeof(T)): memcheck sees a read past it. in lies `misalign` elements
   past a 16-byte boundary. */
static void place(problem *p, size_t cap, size_t misalign, size_t K)
{
    /* a matrix that does not fit (the sanitizer's smaller buffers, a narrow type's padded ld)
       loses rows until it does */
    while (p->kind != K_RANGES && p->rows > 1 && problem_span(p) + 2 * K > cap) p->rows -= 1 + p->rows / 8;
    const size_t span = problem_span(p);
    if (span + 2 * K > cap) fail_msg("test bug: %s needs %zu elements, the buffer has %zu", describe(p), span, cap);
    const size_t room = cap - span;
    p->start = room - (room - misalign) % K; /* start % K == misalign */
    if (p->start % K != misalign) fail_msg("test bug: placement");
}

/* A read-only view of slice k: element i is base[i * stride]. */
template <typename T> struct sview {
    const T *base;
    size_t stride, n;
    const T &operator[](size_t i) const { return base[i * stride]; }
};

template <typename T> static sview<T> view_of(const problem *p, const T *x, size_t k)
{
    sview<T> v;
    v.n = slice_len(p, k);
    v.base = x + (v.n ? slice_elem(p, k, 0) : 0);
    v.stride = p->kind == K_COLUMNS ? p->ld : 1;
    return v;
}

/* Fills what p reads in x: traps from the 16-byte boundary at or before in to the end of the
   buffer (padding, the head before in, the tail after the last element), then, for rows and
   columns, each slice through slice(k, n, set) (set(i, v): element i of slice k is v); for
   ranges the whole span through flat(x + start, span). */
template <typename T, typename Slice, typename Flat>
static void fill_problem(const problem *p, T *x, size_t cap, T trap, Slice slice, Flat flat)
{
    const size_t lo = p->start - p->start % per_vector<T>();
    for (size_t i = lo; i < cap; i++) x[i] = trap;
    if (p->kind == K_RANGES) {
        flat(x + p->start, problem_span(p));
        return;
    }
    for (size_t k = 0; k < slices(p); k++)
        slice(k, slice_len(p, k), [&](size_t i, T v) { x[slice_elem(p, k, i)] = v; });
}

template <typename T> static void upload_problem(const problem *p, const T *x, T *d_x, size_t cap)
{
    const size_t lo = p->start - p->start % per_vector<T>();
    wt_to_dev(d_x + lo, x + lo, (cap - lo) * sizeof(T));
}

/* Row lengths and counts (the long row: 1 and 2 rows). Under the sanitizer: no row above 5000
   elements, 300 rows instead of 3000, and a smaller budget. */
static const size_t row_lengths[] = {0,    1,    2,    3,         4,
                                     5,    7,    8,    16,        31,
                                     32,   33,   63,   64,        100,
                                     127,  128,  255,  256,       1000,
                                     1024, 4096, 5000, 65536 + 3, ((size_t)1 << 20) + 5};
static const size_t LONG_ROW = ((size_t)1 << 20) + 5;

/* Elements of the buffer behind every row and column shape (a multiple of 16). */
static size_t shapes_cap(void) { return wt_quick() ? ((size_t)1 << 17) : ((size_t)1 << 21) + ((size_t)1 << 16); }

/* The buffer behind the column shapes: the tall 2^18 x 32 matrix with an ld of up to 35 (under
   the sanitizer: 2^16 x 32, and 2^19 x 4 dense, whose parts need two levels). */
static size_t columns_cap(void)
{
    return wt_quick() ? ((size_t)1 << 21) + ((size_t)1 << 16) : ((size_t)36 << 18) + ((size_t)1 << 16);
}

/* A budget of elements per shape: the rows are cut to fit (the long row keeps its 1 and 2). */
static size_t budget(int shift) { return wt_quick() ? (size_t)1 << (shift < 16 ? shift : 16) : (size_t)1 << shift; }

/* The first layout of `layouts` (bits 1 << L_...) from layout turn % LAYOUTS on, cyclically. */
static int first_layout_from(unsigned layouts, int turn)
{
    for (int k = 0; k < LAYOUTS; k++) {
        const int l = (turn + k) % LAYOUTS;
        if (layouts & (1u << l)) return l;
    }
    return 0;
}

/* fn(problem *) for every row shape, in every layout of `layouts` (bits 1 << L_...). */
template <typename T, typename Fn> static void each_row_shape(size_t max_elems, unsigned layouts, Fn fn)
{
    const size_t K = per_vector<T>(), cap = shapes_cap();
    const size_t counts[] = {1, 2, 7, (size_t)(wt_quick() ? 300 : 3000)};
    /* under racecheck: every other length, no 2 rows, one layout a shape in turn */
    const int fewer = wt_quick_level() > 1;
    int turn = 0;
    for (size_t ci = 0; ci < sizeof row_lengths / sizeof row_lengths[0]; ci++) {
        const size_t c = row_lengths[ci];
        if (wt_quick() && c > 5000) continue;
        if (fewer && ci % 2) continue;
        size_t previous = 0;
        for (size_t r : counts) {
            if (fewer && r == 2) continue;
            size_t rows = r;
            if (c == LONG_ROW) {
                if (rows > 2) continue;
            } else if (rows * (c ? c : 1) > max_elems) {
                rows = max_elems / (c ? c : 1);
                if (rows < 1) rows = 1;
            }
            if (rows == previous) continue;
            previous = rows;
            turn++;
            for (int l = 0; l < LAYOUTS; l++) {
                if (!(layouts & (1u << l))) continue;
                if (fewer && l != first_layout_from(layouts, turn)) continue;
                /* the long row (a lane of LANES 1 reads a million elements in turn): one row dense,
                   two rows misaligned */
                if (c == LONG_ROW && l != (rows == 1 ? L_DENSE : L_MISALIGNED)) continue;
                problem p;
                memset(&p, 0, sizeof p);
                p.kind = K_ROWS;
                p.layout = l;
                p.rows = rows;
                p.cols = c;
                size_t misalign = 0;
                if (l == L_DENSE) p.ld = c;
                else if (l == L_PADDED)
                    p.ld = (c / K + 1) * K; /* > cols, rows 16-byte aligned */
                else {
                    p.ld = c + 1 + (size_t)wt_rand_below(3);
                    if (p.ld % K == 0) p.ld++;
                    misalign = 1 + (size_t)wt_rand_below((int)K - 1);
                }
                /* a padded or misaligned ld of a narrow type can be many times cols: fewer rows */
                if (p.rows * p.ld + 2 * K > cap) p.rows = (cap - 2 * K) / p.ld;
                place(&p, cap, misalign, K);
                fn(&p);
            }
        }
    }
}

/* Column shapes: cols 1, 3, 32, 33, 1000 with 1, 5, 1000 and max_elems / cols rows, then tall
   matrices: 2^18 x 32 and 2^21 x 4, whose parts are folded in two levels (more than
   WARPRED__COLUMNS_FAN parts: at least 17 x 64 row lanes' worth of rows); under the sanitizer
   2^16 x 32 and 2^19 x 4 (two levels with 16-byte groups of partials too), under racecheck
   2^14 x 32 and 2^17 x 4 (two levels where rows are not 16-byte aligned). */
template <typename T, typename Fn> static void each_column_shape(size_t max_elems, unsigned layouts, Fn fn)
{
    const size_t K = per_vector<T>(), cap = columns_cap();
    const size_t cols_list[] = {1, 3, 32, 33, 1000, 32, 4};
    const size_t n_cols = sizeof cols_list / sizeof cols_list[0];
    for (size_t s = 0; s < n_cols; s++) {
        const size_t c = cols_list[s];
        const int tall = s >= n_cols - 2;
        const size_t counts[] = {1, 5, 1000, max_elems / c};
        size_t previous = 0;
        for (int j = tall ? 3 : 0; j < 4; j++) {
            const int tall_shift = wt_quick_level() == 2 ? 14 : wt_quick() ? 16 : 18;
            size_t rows = tall ? ((size_t)1 << tall_shift) * (32 / c) : counts[j];
            if (rows * c > max_elems && !tall) rows = max_elems / c;
            if (rows == previous || rows == 0) continue;
            previous = rows;
            for (int l = 0; l < LAYOUTS; l++) {
                if (!(layouts & (1u << l))) continue;
                if (tall && l == L_PADDED) continue; /* 8 M elements: dense and misaligned are enough */
                problem p;
                memset(&p, 0, sizeof p);
                p.kind = K_COLUMNS;
                p.layout = l;
                p.rows = rows;
                p.cols = c;
                size_t misalign = 0;
                if (l == L_DENSE) p.ld = c;
                else if (l == L_PADDED)
                    p.ld = (c / K + 1) * K;
                else {
                    p.ld = c + 1 + (size_t)wt_rand_below(3);
                    if (p.ld % K == 0) p.ld++;
                    misalign = 1 + (size_t)wt_rand_below((int)K - 1);
                }
                /* a padded or misaligned ld of a narrow type can be many times cols: fewer rows */
                if (p.rows * p.ld + 2 * K > cap) p.rows = (cap - 2 * K) / p.ld;
                place(&p, cap, misalign, K);
                fn(&p);
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------
   ranges: the sets
   ------------------------------------------------------------------------------------------ */

/* R_MIDDLE, R_SOME and R_MANY: enough ranges for the kernel's other tile sizes (the others have
   fewer than 8 per resident warp: tiles of 8, the ranges above a window queued; R_MIDDLE, full
   size: 8 to 32 per warp on an H200, tiles of 32, the ranges above a window queued; R_SOME, full
   size: 32 to 64 per warp, tiles of 8 and only ranges above a chunk queued; R_MANY: tiles of 128).
   R_PIECES: consecutive short ranges with a jump now and then (a gap, an overlap or a range longer
   than a tile's window), one in 12 ranges in the first half and one in 48 in the second, so that
   a tile's elements lie in one to many pieces of the input, in tiles of 8 (quick size) and of 128. */
enum { R_RANDOM, R_UNIFORM, R_POWER, R_HUGE, R_ONE, R_CSR, R_SOME, R_MANY, R_PIECES, R_MIDDLE, R_SETS };
static const char *const set_name[] = {"random, any order, overlapping, empty ones",
                                       "uniform lengths 1..64",
                                       "power-law lengths up to 1e5",
                                       "one huge range among empty ones",
                                       "all empty but one",
                                       "CSR offsets (begin = o, end = o + 1)",
                                       "2^17 ranges of 0..15, one in 997 of 600..20600",
                                       "2^20 ranges of 0..15, one in 997 of 600..20600",
                                       "consecutive ranges of 0..15 in pieces (a jump in 12, then in 48)",
                                       "2^16 ranges of 0..15, one in 997 of 600..20600"};
static size_t set_count(int set)
{
    const int q = wt_quick();
    switch (set) {
    case R_RANDOM: return q ? 300 : 2000;
    case R_UNIFORM: return q ? 2000 : 20000;
    case R_POWER: return q ? 100 : 500;
    case R_HUGE: return q ? 1000 : 10000;
    case R_ONE: return 257;
    case R_SOME: return q ? (size_t)1 << 12 : (size_t)1 << 17;
    case R_MIDDLE: return q ? (size_t)1 << 15 : (size_t)1 << 16;
    case R_MANY: return q ? (size_t)1 << 14 : (size_t)1 << 20;
    case R_PIECES: return q ? (size_t)1 << 17 : (size_t)1 << 20; /* quick: still tiles with ranges up to a chunk */
    default: return q ? 300 : 3000;
    }
}

typedef struct range_set {
    size_t count, span_cap; /* ranges; elements of the region they may read */
    size_t *begin, *end;    /* host (end may point into begin: CSR) */
    size_t *d_begin, *d_end;
} range_set;

/* The elements of the region behind every range set (a multiple of 16). */
static size_t ranges_cap(void) { return wt_quick() ? ((size_t)1 << 17) : ((size_t)1 << 20) + 4096; }

static range_set build_ranges(int set)
{
    const int q = wt_quick();
    const size_t region = ranges_cap() - 64;
    range_set s;
    memset(&s, 0, sizeof s);
    s.count = set_count(set);
    s.begin = (size_t *)wt_host_alloc((s.count + 1) * sizeof(size_t));
    s.end = set == R_CSR ? s.begin + 1 : (size_t *)wt_host_alloc(s.count * sizeof(size_t));
    size_t at = 0;
    const size_t one = (size_t)wt_rand_below((int)s.count);
    for (size_t k = 0; k < s.count; k++) {
        size_t b = 0, e = 0;
        switch (set) {
        case R_RANDOM: {
            b = wt_rand64() % region;
            const int kind = wt_rand_below(10);
            if (kind == 0) e = b; /* empty */
            else if (kind == 1)
                e = b > 0 ? b - 1 - wt_rand64() % b : 0; /* end < begin: empty */
            else
                e = b + 1 + wt_rand64() % (kind == 2 ? 5000 : 300);
            if (e > region) e = region;
            break;
        }
        case R_UNIFORM: { /* consecutive, with gaps and overlaps of up to 8 elements */
            const long long step = wt_rand_below(17) - 8;
            at = (long long)at + step < 0 ? 0 : (size_t)((long long)at + step);
            b = at;
            e = b + 1 + (size_t)wt_rand_below(64);
            if (e > region) b = 0, e = 1 + (size_t)wt_rand_below(64);
            at = e;
            break;
        }
        case R_POWER: {
            const size_t top = q ? 10000 : 100000, len = (size_t)pow((double)top, wt_rand_unit());
            b = wt_rand64() % (region - len);
            e = b + len;
            break;
        }
        case R_SOME:
        case R_MIDDLE:
        case R_MANY: { /* consecutive, wrapping around the region */
            const size_t len = k % 997 == 5 ? 600 + (size_t)wt_rand_below(20001) : (size_t)wt_rand_below(16);
            if (at + len > region) at = (size_t)wt_rand_below(8);
            b = at;
            e = b + len;
            at = e;
            break;
        }
        case R_PIECES: { /* consecutive, a jump now and then, wrapping around the region */
            size_t len = (size_t)wt_rand_below(16);
            if (wt_rand_below(k < s.count / 2 ? 12 : 48) == 0) {
                const int jump = wt_rand_below(3);
                if (jump == 0) at += 1 + (size_t)wt_rand_below(8); /* a gap */
                else if (jump == 1)
                    at -= at < 8 ? at : 1 + (size_t)wt_rand_below(8); /* an overlap */
                else
                    len = 600 + (size_t)wt_rand_below(1500); /* not in the tile */
            }
            if (at + len > region) at = (size_t)wt_rand_below(8);
            b = at;
            e = b + len;
            at = e;
            break;
        }
        case R_HUGE:
        case R_ONE:
            if (k == one) {
                b = (size_t)wt_rand_below(8);
                e = set == R_HUGE ? region - (size_t)wt_rand_below(8) : b + 1 + (size_t)wt_rand_below(100);
            } else { /* empty: equal, reversed, or beginning past the region (never read) */
                const int kind = wt_rand_below(3);
                b = kind == 2 ? region + 1000 + wt_rand64() % 1000000 : wt_rand64() % region;
                e = kind == 0 ? b : b - wt_rand64() % (b + 1);
            }
            break;
        default: /* CSR: offsets o[0..count], lengths 0 (a fifth) to 200, one in ten up to 1500 */
            if (k == 0) s.begin[0] = (size_t)wt_rand_below(4);
            s.begin[k + 1] = s.begin[k] + (wt_rand_below(5) == 0    ? 0
                                           : wt_rand_below(10) == 0 ? (size_t)wt_rand_below(1500)
                                                                    : (size_t)wt_rand_below(200));
            continue;
        }
        s.begin[k] = b;
        s.end[k] = e;
    }
    size_t top = 0;
    for (size_t k = 0; k < s.count; k++)
        if (s.end[k] > s.begin[k] && s.end[k] > top) top = s.end[k];
    if (top > region) fail_msg("test bug: range set %d reads %zu elements", set, top);
    s.span_cap = region;
    return s;
}

static range_set make_ranges(int set)
{
    range_set s = build_ranges(set);
    s.d_begin = (size_t *)wt_dev_copy(s.begin, (s.count + 1) * sizeof(size_t));
    s.d_end = set == R_CSR ? s.d_begin + 1 : (size_t *)wt_dev_copy(s.end, s.count * sizeof(size_t));
    return s;
}

static void free_ranges(range_set *s, int set)
{
    if (set != R_CSR) {
        wt_dev_free(s->d_end);
        wt_host_free(s->end);
    }
    wt_dev_free(s->d_begin);
    wt_host_free(s->begin);
}

/* A problem over set s, in at a random misalignment near the end of a buffer of ranges_cap(). */
template <typename T> static problem range_problem(const range_set *s, int set)
{
    problem p;
    memset(&p, 0, sizeof p);
    p.kind = K_RANGES;
    p.count = s->count;
    p.begin = s->begin;
    p.end = s->end;
    p.d_begin = s->d_begin;
    p.d_end = s->d_end;
    p.set = set_name[set];
    const size_t K = per_vector<T>();
    place(&p, ranges_cap(), (size_t)wt_rand_below((int)K), K);
    return p;
}

/* ------------------------------------------------------------------------------------------
   calls: one launcher for every kind and form, one checked run
   ------------------------------------------------------------------------------------------ */

struct wt_short {}; /* as f and g: the short forms (reduce_rows, _columns, _ranges) */

/* Kinds: which kinds (bits 1 << K_ROWS, K_COLUMNS, K_RANGES) this instantiation serves: the
   others' kernels are not compiled (the build is long enough). */
enum { KINDS_ALL = 7, KINDS_ROWS = 1 << K_ROWS, KINDS_RANGES = 1 << K_RANGES };

template <int Kinds, typename T, typename O, typename Op, typename F, typename G>
static cudaError_t launch(const warpred_rows_plan *plan, const problem *p, const T *in, O *out, Op op, F f, G g,
                          cudaStream_t stream, const char **why)
{
    if constexpr (std::is_same<F, wt_short>::value) {
        (void)f;
        (void)g;
        if constexpr ((Kinds & (1 << K_ROWS)) != 0)
            if (p->kind == K_ROWS)
                return warpred_device_reduce_rows(plan, in, p->rows, p->cols, p->ld, out, op, stream, why);
        if constexpr ((Kinds & (1 << K_COLUMNS)) != 0)
            if (p->kind == K_COLUMNS)
                return warpred_device_reduce_columns(plan, in, p->rows, p->cols, p->ld, out, op, stream, why);
        if constexpr ((Kinds & (1 << K_RANGES)) != 0)
            if (p->kind == K_RANGES)
                return warpred_device_reduce_ranges(plan, in, p->d_begin, p->d_end, p->count, out, op, stream, why);
    } else {
        if constexpr ((Kinds & (1 << K_ROWS)) != 0)
            if (p->kind == K_ROWS)
                return warpred_device_transform_reduce_rows(plan, in, p->rows, p->cols, p->ld, out, op, f, g, stream,
                                                            why);
        if constexpr ((Kinds & (1 << K_COLUMNS)) != 0)
            if (p->kind == K_COLUMNS)
                return warpred_device_transform_reduce_columns(plan, in, p->rows, p->cols, p->ld, out, op, f, g, stream,
                                                               why);
        if constexpr ((Kinds & (1 << K_RANGES)) != 0)
            if (p->kind == K_RANGES)
                return warpred_device_transform_reduce_ranges(plan, in, p->d_begin, p->d_end, p->count, out, op, f, g,
                                                              stream, why);
    }
    fail_msg("test bug: kind %d not built for this reduction", p->kind);
    return cudaErrorUnknown;
}

/* What the runs share: the plan, the output buffers (room for the largest number of slices plus
   a guard slot on either side, 64 bytes each), whether the GPU has clusters, and whether each call is made
   twice (the second must give the same bytes). */
typedef struct env {
    const warpred_rows_plan *plan;
    unsigned char *d_out, *h_out;
    size_t out_bytes;
    int clusters, twice;
} env;

static env env_make(const warpred_rows_plan *plan, size_t max_slices)
{
    env e;
    e.plan = plan;
    e.out_bytes = (max_slices + 2) * 64;
    e.d_out = (unsigned char *)wt_dev_alloc(e.out_bytes);
    e.h_out = (unsigned char *)wt_host_alloc(e.out_bytes);
    e.clusters = wt_has_clusters();
    e.twice = 0;
    return e;
}

static void env_free(env *e)
{
    wt_dev_free(e->d_out);
    wt_host_free(e->h_out);
}

/* Whether p reads any element (an empty shape may be answered without the strategy's kernel). */
static int reads_something(const problem *p)
{
    for (size_t k = 0; k < slices(p); k++)
        if (slice_len(p, k) > 0) return 1;
    return 0;
}

/* Calls so far: every other call's results go one slot past the buffer's start, off 16-byte
   alignment unless the results are 16 bytes wide (the packed short rows store several results
   at once where out is aligned, one at a time where it is not). */
static unsigned run_calls;

/* One call of call(plan, d_out, stream, &why) into the poisoned output: 1 with the slices'
   results in got (the slots before the first and after the last must still be poisoned), or 0
   when the strategy does not exist on this GPU (CLUSTER before sm_90: the call must have said
   so, with a message). */
template <typename O, typename Call>
static int run_once(const env *e, const warpred_rows_plan *plan, const problem *p, O *got, const char *what,
                    const char *sname, Call call)
{
    const size_t n = slices(p), shift = run_calls++ % 2;
    O *base = (O *)e->d_out, *d_out = base + shift;
    if ((n + 2) * sizeof(O) > e->out_bytes) fail_msg("test bug: %zu results of %zu bytes", n, sizeof(O));
    for (int round = 0; round < (e->twice ? 2 : 1); round++) {
        wt_poison(base, (n + 2) * sizeof(O));
        const char *why = NULL;
        const cudaError_t err = call(plan, d_out, (cudaStream_t)0, &why);
        if (plan->strategy == WARPRED_ROWS_CLUSTER && !e->clusters) {
            if (err == cudaErrorNotSupported) {
                if (why == NULL || strcmp(why, "no error") == 0)
                    fail_msg("%s over %s: CLUSTER refused without a message", what, describe(p));
                WT_CUDA(cudaGetLastError()); /* the refusal left no error behind */
                wt_cluster_skips++;
                return 0;
            }
            if (reads_something(p))
                fail_msg("%s over %s: CLUSTER on a GPU older than sm_90 returned %s, the manual says "
                         "cudaErrorNotSupported",
                         what, describe(p), cudaGetErrorString(err));
        }
        if (err != cudaSuccess)
            fail_msg("%s over %s, strategy %s: %s (%s)", what, describe(p), sname, cudaGetErrorString(err),
                     why ? why : "no message");
        if (why == NULL || strcmp(why, "no error") != 0)
            fail_msg("%s over %s, strategy %s: succeeded, but why is \"%s\", not \"no error\"", what, describe(p),
                     sname, why ? why : "(null)");
        WT_LAUNCHED();
        if (round == 0) {
            wt_to_host(got, d_out, (n + 1) * sizeof(O));
            if (!wt_is_poison(got[n]))
                fail_msg("%s over %s, strategy %s: out[%zu] was written: there are %zu slices", what, describe(p),
                         sname, n, n);
            if (shift) {
                O before;
                wt_to_host(&before, base, sizeof(O));
                if (!wt_is_poison(before))
                    fail_msg("%s over %s, strategy %s: out[-1] was written", what, describe(p), sname);
            }
        } else {
            O *again = (O *)malloc((n + 1) * sizeof(O));
            if (!again) fail_msg("out of host memory");
            wt_to_host(again, d_out, (n + 1) * sizeof(O));
            const int same = memcmp(again, got, (n + 1) * sizeof(O)) == 0;
            size_t k = 0;
            while (!same && k < n && memcmp(&again[k], &got[k], sizeof(O)) == 0) k++;
            free(again);
            if (!same)
                fail_msg("%s over %s, strategy %s: a second call gave other bytes (first difference: slice %zu)", what,
                         describe(p), sname, k);
        }
    }
    return 1;
}

/* What a family's check knows besides the reference: the strategy, the problem, the slice. */
typedef struct check_ctx {
    const strat *s;
    const problem *p;
    size_t k, n; /* slice, its length */
} check_ctx;

/* A family: the reduction of one kind of result over one kind of input, with its reference:
     typedef T (input), O (out's type), Ref (what the reference keeps per slice)
     static const char *name()
     static Ref ref(sview<T> v, size_t k)              the reference of slice k
     static cudaError_t call(plan, p, in, out, stream, why)
     static int check(const Ref &, O got, const check_ctx &, char *why, size_t len)
     enum { auto_match }: 1 when AUTO's bits must equal those of one of the forced strategies
   check_family computes every slice's reference once, then runs and checks each strategy. */
template <typename Fam>
static void check_family(const env *e, const problem *p, const typename Fam::T *x, const typename Fam::T *d_x,
                         const strat *strats, int nstrats)
{
    typedef typename Fam::O O;
    typedef typename Fam::Ref Ref;
    const size_t n = slices(p);
    Ref *refs = (Ref *)wt_host_alloc((n ? n : 1) * sizeof(Ref));
    for (size_t k = 0; k < n; k++) refs[k] = Fam::ref(view_of(p, x, k), k);
    O *got = (O *)e->h_out;
    O *auto_got = Fam::auto_match ? (O *)wt_host_alloc((n + 1) * sizeof(O)) : NULL;
    int auto_ran = 0, auto_matched = 0, forced_ran = 0;
    const typename Fam::T *in = d_x + p->start;
    char why[512];
    for (int s = 0; s < nstrats; s++) {
        warpred_rows_plan plan = *e->plan;
        plan.strategy = strats[s].strategy;
        plan.lanes = strats[s].lanes;
        if (!run_once(e, &plan, p, got, Fam::name(), strats[s].name,
                      [&](const warpred_rows_plan *pl, O *out, cudaStream_t st, const char **w) {
                          return Fam::call(pl, p, in, out, st, w);
                      }))
            continue;
        check_ctx ctx = {&strats[s], p, 0, 0};
        for (size_t k = 0; k < n; k++) {
            ctx.k = k;
            ctx.n = slice_len(p, k);
            if (!Fam::check(refs[k], got[k], ctx, why, sizeof why))
                fail_msg("%s over %s, strategy %s: slice %zu of %zu (%zu elements): %s", Fam::name(), describe(p),
                         strats[s].name, k, n, ctx.n, why);
        }
        if (auto_got && strats[s].strategy == WARPRED_ROWS_AUTO) {
            memcpy(auto_got, got, n * sizeof(O));
            auto_ran = 1;
        } else if (auto_got && auto_ran) {
            forced_ran++;
            auto_matched |= memcmp(auto_got, got, n * sizeof(O)) == 0;
        }
    }
    if (auto_got && auto_ran && forced_ran > 0 && !auto_matched && n > 0)
        fail_msg("%s over %s: AUTO's bits equal those of none of the %d forced strategies (AUTO must pick one)",
                 Fam::name(), describe(p), forced_ran);
    if (auto_got) wt_host_free(auto_got);
    wt_host_free(refs);
}

/* ------------------------------------------------------------------------------------------
   error bounds of float sums
   ------------------------------------------------------------------------------------------ */

/* The most roundings one element's value meets on its way into the sum of a slice of n elements
   (device_rows_kernel.cuh's structure, each term generous):
     LANES, W lanes     a lane adds at most ceil(n / W) elements or 16-byte loads in sequence
                        (+2: the elements before and after the loads), a load's K elements are
                        paired first (log2 K), then the group's tree (log2 W);
     LANES, chosen      W = 32, or fewer lanes with at most 16 loads each: ceil(n / 32) + 16 K;
                        with one row in flight (accumulators over 16 bytes: double Welford)
                        2 lanes or more from 16 loads: ceil(n / 2) + 16 K;
     BLOCK              ceil(n / 256) per thread, the pairing, the block's tree over 256 threads
                        (8 levels; 16 allowed);
     SPLIT, CLUSTER     a block's part of the row as BLOCK, then thread t folds the row's parts
                        t, t + 256, ... in sequence (parts hold at least 4 loads a thread, so at
                        most ceil(n / 1024) + 1 of them) and the block's tree again;
     AUTO               the largest of LANES chosen, BLOCK and SPLIT (it picks one of them);
     columns            a thread adds every 8th row of its part at most (8 row lanes or more),
                        the row lanes' tree (5 levels at most), then the parts (at least 64 rows
                        per row lane each): a lane folds every 8th at most and the lanes' tree,
                        in two levels beyond 16 parts (far below the n / 8 counted for the rows);
     ranges             a range of up to a tile window (32 J elements, J <= 16): at most J
                        elements a lane in sequence, the lanes' segmented scan (5 levels) and
                        the carry from the window before; a longer one: a chunk of at most
                        WARPRED_ROWS_RANGE_CHUNK elements as LANES with 32 lanes, then lane q
                        folds chunks q, q + 32, ... in sequence, and the warp's tree.
   The float result then errs by at most gamma(depth) * sum |x|, gamma(d) = d u / (1 - d u)
   (Higham), u the unit roundoff of the accumulator. */
static double sum_depth(const check_ctx &c, size_t K, bool one_row_in_flight = false)
{
    const double n = (double)c.n, lk = log2((double)K);
    const double lanes_chosen = ceil(n / (one_row_in_flight ? 2 : 32)) + 16 * (double)K + lk + 5 + 2;
    const double block = ceil(n / 256) + lk + 2 + 16;
    const double split = block + ceil(n / 1024) + 1 + 16;
    if (c.p->kind == K_COLUMNS) return ceil(n / 8) + 5 + ceil(n / 512) + 2;
    if (c.p->kind == K_RANGES) {
        const double chunk = (double)WARPRED_ROWS_RANGE_CHUNK, chunks = ceil(n / chunk);
        const double tile = 16 + 5 + 2;
        return fmax(tile, ceil((n < chunk ? n : chunk) / 32) + lk + 2 + 5 + ceil(chunks / 32) + 5 + 1);
    }
    switch (c.s->strategy) {
    case WARPRED_ROWS_LANES:
        return c.s->lanes ? ceil(n / c.s->lanes) + lk + log2((double)c.s->lanes) + 2 : lanes_chosen;
    case WARPRED_ROWS_BLOCK: return block;
    case WARPRED_ROWS_SPLIT:
    case WARPRED_ROWS_CLUSTER: return split;
    default: return fmax(lanes_chosen, fmax(block, split));
    }
}

static double gamma_of(double depth, double u)
{
    const double du = depth * u;
    return du < 0.5 ? du / (1 - du) : INFINITY;
}

/* ------------------------------------------------------------------------------------------
   transforms and finishes
   ------------------------------------------------------------------------------------------ */

/* f(x, i) = x * ((i mod 7) - 3) in 64 bits: the index within the slice matters. */
struct xf_weight_by_index {
    __device__ long long operator()(int x, size_t i) const { return (long long)x * ((long long)(i % 7) - 3); }
};
static long long host_weight(size_t i) { return (long long)(i % 7) - 3; }

/* g(r, k) = r - 7919 k: the slice index matters. */
struct fin_tag {
    __device__ long long operator()(long long r, size_t k) const { return r - 7919 * (long long)k; }
};

/* mean = sum / count through the finish, count fixed (rows, columns) or per range (through k). */
struct fin_mean_div {
    double count;
    __device__ float operator()(double s, size_t) const { return (float)(s / count); }
};
struct fin_mean_ranges {
    const size_t *begin, *end;
    __device__ float operator()(double s, size_t k) const
    {
        const size_t n = end[k] > begin[k] ? end[k] - begin[k] : 0;
        return (float)(s / (double)n);
    }
};

/* The population variance of a Welford summary. */
struct fin_var_pop {
    __device__ double operator()(warpred_welford<double> w, size_t) const { return warpred_welford_var_pop(w); }
};

/* (sum, min, max, count) of one element. */
typedef warpred_tuple4<float, float, float, long long> tuple_t;
struct xf_tuple {
    __device__ tuple_t operator()(float x, size_t) const { return warpred_make_tuple(x, x, x, 1ll); }
};
typedef decltype(warpred_make_op_tuple(warpred_op_sum(), warpred_op_min(), warpred_op_max(),
                                       warpred_op_sum())) op_tuple_t;
static op_tuple_t tuple_op(void)
{
    return warpred_make_op_tuple(warpred_op_sum(), warpred_op_min(), warpred_op_max(), warpred_op_sum());
}

static uint32_t fbits(float v) { return (uint32_t)wt_type<float>::bits(v); }
static uint64_t dbits(double v) { return wt_type<double>::bits(v); }

/* ------------------------------------------------------------------------------------------
   families: integers
   ------------------------------------------------------------------------------------------ */

/* int in, long long out, short form: each element converts to long long and adds exactly. */
struct fam_isum_ll {
    typedef int T;
    typedef long long O;
    typedef long long Ref;
    enum { auto_match = 0, kinds = KINDS_ALL };
    static const char *name() { return "int -> long long sum"; }
    static Ref ref(sview<T> v, size_t)
    {
        long long s = 0;
        for (size_t i = 0; i < v.n; i++) s += v[i];
        return s;
    }
    static cudaError_t call(const warpred_rows_plan *pl, const problem *p, const T *in, O *out, cudaStream_t st,
                            const char **why)
    {
        return launch<kinds>(pl, p, in, out, warpred_op_sum(), wt_short(), wt_short(), st, why);
    }
    static int check(const Ref &r, O got, const check_ctx &, char *why, size_t len)
    {
        if (got == r) return 1;
        snprintf(why, len, "got %lld, expected %lld", got, r);
        return 0;
    }
};

/* int in, int out: wraps modulo 2^32. */
struct fam_isum_wrap {
    typedef int T;
    typedef int O;
    typedef unsigned Ref;
    enum { auto_match = 0, kinds = KINDS_ROWS };
    static const char *name() { return "int sum (wrapping)"; }
    static Ref ref(sview<T> v, size_t)
    {
        unsigned s = 0;
        for (size_t i = 0; i < v.n; i++) s += (unsigned)v[i];
        return s;
    }
    static cudaError_t call(const warpred_rows_plan *pl, const problem *p, const T *in, O *out, cudaStream_t st,
                            const char **why)
    {
        return launch<kinds>(pl, p, in, out, warpred_op_sum(), wt_short(), wt_short(), st, why);
    }
    static int check(const Ref &r, O got, const check_ctx &, char *why, size_t len)
    {
        if ((unsigned)got == r) return 1;
        snprintf(why, len, "got %08x, expected %08x", (unsigned)got, r);
        return 0;
    }
};

/* sum of x * ((i mod 7) - 3), i within the slice, then r - 7919 k: transform and finish. */
struct fam_iweight {
    typedef int T;
    typedef long long O;
    typedef long long Ref;
    enum { auto_match = 0, kinds = KINDS_ALL };
    static const char *name() { return "sum of x * ((i mod 7) - 3), finish r - 7919 k"; }
    static Ref ref(sview<T> v, size_t k)
    {
        long long s = 0;
        for (size_t i = 0; i < v.n; i++) s += (long long)v[i] * host_weight(i);
        return s - 7919 * (long long)k;
    }
    static cudaError_t call(const warpred_rows_plan *pl, const problem *p, const T *in, O *out, cudaStream_t st,
                            const char **why)
    {
        return launch<kinds>(pl, p, in, out, warpred_op_sum(), xf_weight_by_index(), fin_tag(), st, why);
    }
    static int check(const Ref &r, O got, const check_ctx &, char *why, size_t len)
    {
        if (got == r) return 1;
        snprintf(why, len, "got %lld, expected %lld", got, r);
        return 0;
    }
};

/* int max; the identity (INT_MIN) for an empty slice. */
struct fam_imax {
    typedef int T;
    typedef int O;
    typedef int Ref;
    enum { auto_match = 0, kinds = KINDS_ALL };
    static const char *name() { return "int max"; }
    static Ref ref(sview<T> v, size_t)
    {
        int m = INT32_MIN;
        for (size_t i = 0; i < v.n; i++) m = v[i] > m ? v[i] : m;
        return m;
    }
    static cudaError_t call(const warpred_rows_plan *pl, const problem *p, const T *in, O *out, cudaStream_t st,
                            const char **why)
    {
        return launch<kinds>(pl, p, in, out, warpred_op_max(), wt_short(), wt_short(), st, why);
    }
    static int check(const Ref &r, O got, const check_ctx &, char *why, size_t len)
    {
        if (got == r) return 1;
        snprintf(why, len, "got %d, expected %d", got, r);
        return 0;
    }
};

/* 1-byte input (16 per load: the packed rows of 1, 2, 4 and 8 elements, 16-column groups) summed
   into int: exact. */
struct fam_u8sum {
    typedef unsigned char T;
    typedef int O;
    typedef int Ref;
    enum { auto_match = 0, kinds = KINDS_ALL };
    static const char *name() { return "unsigned char -> int sum"; }
    static Ref ref(sview<T> v, size_t)
    {
        int s = 0;
        for (size_t i = 0; i < v.n; i++) s += v[i];
        return s;
    }
    static cudaError_t call(const warpred_rows_plan *pl, const problem *p, const T *in, O *out, cudaStream_t st,
                            const char **why)
    {
        return launch<kinds>(pl, p, in, out, warpred_op_sum(), wt_short(), wt_short(), st, why);
    }
    static int check(const Ref &r, O got, const check_ctx &, char *why, size_t len)
    {
        if (got == r) return 1;
        snprintf(why, len, "got %d, expected %d", got, r);
        return 0;
    }
};

/* 2-byte input (__half small integers) summed into float: exact. */
struct fam_h16sum {
    typedef __half T;
    typedef float O;
    typedef double Ref;
    enum { auto_match = 0, kinds = KINDS_ALL };
    static const char *name() { return "__half -> float sum"; }
    static Ref ref(sview<T> v, size_t)
    {
        double s = 0;
        for (size_t i = 0; i < v.n; i++) s += wt_type<__half>::to_d(v[i]);
        return s;
    }
    static cudaError_t call(const warpred_rows_plan *pl, const problem *p, const T *in, O *out, cudaStream_t st,
                            const char **why)
    {
        return launch<kinds>(pl, p, in, out, warpred_op_sum(), wt_short(), wt_short(), st, why);
    }
    static int check(const Ref &r, O got, const check_ctx &, char *why, size_t len)
    {
        if (fbits(got) == fbits((float)r)) return 1;
        snprintf(why, len, "got %.9g, expected exactly %.9g", (double)got, r);
        return 0;
    }
};

/* ------------------------------------------------------------------------------------------
   families: float sums
   ------------------------------------------------------------------------------------------ */

/* Small integers in [-2, 2]: every partial sum of up to 2^21 of them is an integer below 2^24 in
   magnitude, exact in float, so the float sum is exact in any order: any lost, doubled or
   foreign element shows. An empty slice is the identity +0; so is a zero total (x + -x = +0). */
struct fam_fsum_exact {
    typedef float T;
    typedef float O;
    typedef double Ref;
    enum { auto_match = 0, kinds = KINDS_ALL };
    static const char *name() { return "float sum of small integers (exact in any order)"; }
    static Ref ref(sview<T> v, size_t)
    {
        double s = 0;
        for (size_t i = 0; i < v.n; i++) s += v[i];
        return s;
    }
    static cudaError_t call(const warpred_rows_plan *pl, const problem *p, const T *in, O *out, cudaStream_t st,
                            const char **why)
    {
        return launch<kinds>(pl, p, in, out, warpred_op_sum(), wt_short(), wt_short(), st, why);
    }
    static int check(const Ref &r, O got, const check_ctx &, char *why, size_t len)
    {
        if (fbits(got) == fbits((float)r)) return 1;
        snprintf(why, len, "got %.9g (bits %08x), expected exactly %.9g (bits %08x)", (double)got, fbits(got), r,
                 fbits((float)r));
        return 0;
    }
};

/* (sum, min, max, count) as a tuple of the same small integers: every member exact. Empty: the
   members' identities (+0, +inf, -inf, 0). */
struct tuple_ref {
    double sum;
    float min, max;
    long long count;
};
struct fam_tuple {
    typedef float T;
    typedef tuple_t O;
    typedef tuple_ref Ref;
    enum { auto_match = 0, kinds = KINDS_ALL };
    static const char *name() { return "tuple (sum, min, max, count)"; }
    static Ref ref(sview<T> v, size_t)
    {
        Ref r = {0, INFINITY, -INFINITY, (long long)v.n};
        for (size_t i = 0; i < v.n; i++) {
            r.sum += v[i];
            r.min = v[i] < r.min ? v[i] : r.min;
            r.max = v[i] > r.max ? v[i] : r.max;
        }
        return r;
    }
    static cudaError_t call(const warpred_rows_plan *pl, const problem *p, const T *in, O *out, cudaStream_t st,
                            const char **why)
    {
        return launch<kinds>(pl, p, in, out, tuple_op(), xf_tuple(), warpred_fin_identity(), st, why);
    }
    static int check(const Ref &r, O got, const check_ctx &, char *why, size_t len)
    {
        if (fbits(got.v0) == fbits((float)r.sum) && fbits(got.v1) == fbits(r.min) && fbits(got.v2) == fbits(r.max) &&
            got.v3 == r.count)
            return 1;
        snprintf(why, len, "got {%.9g, %g, %g, %lld} (sum bits %08x), expected {%.9g, %g, %g, %lld}", (double)got.v0,
                 (double)got.v1, (double)got.v2, got.v3, fbits(got.v0), r.sum, (double)r.min, (double)r.max, r.count);
        return 0;
    }
};

/* Fine data k * 2^-20, |k| <= 2^18: exact in float, and every partial sum of up to 2^21 of them
   exact in double. */
struct fine_ref {
    double exact, abs_sum;
};
static fine_ref fine_sum(sview<float> v)
{
    fine_ref r = {0, 0};
    for (size_t i = 0; i < v.n; i++) {
        r.exact += v[i];
        r.abs_sum += fabs((double)v[i]);
    }
    return r;
}

/* float sum in float: within gamma(depth) * sum |x| of the exact sum (sum_depth says why);
   AUTO's bits are those of one forced strategy. */
struct fam_fsum_bound {
    typedef float T;
    typedef float O;
    typedef fine_ref Ref;
    enum { auto_match = 1, kinds = KINDS_ALL };
    static const char *name() { return "float sum"; }
    static Ref ref(sview<T> v, size_t) { return fine_sum(v); }
    static cudaError_t call(const warpred_rows_plan *pl, const problem *p, const T *in, O *out, cudaStream_t st,
                            const char **why)
    {
        return launch<kinds>(pl, p, in, out, warpred_op_sum(), wt_short(), wt_short(), st, why);
    }
    static int check(const Ref &r, O got, const check_ctx &c, char *why, size_t len)
    {
        const double depth = sum_depth(c, 4), tol = gamma_of(depth, 0x1p-24) * r.abs_sum;
        if (c.n == 0 ? fbits(got) == 0 : fabs((double)got - r.exact) <= tol) return 1;
        snprintf(why, len, "got %.9g (bits %08x), expected %.9g within %.3g (depth %g)", (double)got, fbits(got),
                 r.exact, tol, depth);
        return 0;
    }
};

/* float in, double out, short form: accumulates in double, where the fine data's sums are exact. */
struct fam_fsum_double {
    typedef float T;
    typedef double O;
    typedef fine_ref Ref;
    enum { auto_match = 0, kinds = KINDS_ALL };
    static const char *name() { return "float -> double sum"; }
    static Ref ref(sview<T> v, size_t) { return fine_sum(v); }
    static cudaError_t call(const warpred_rows_plan *pl, const problem *p, const T *in, O *out, cudaStream_t st,
                            const char **why)
    {
        return launch<kinds>(pl, p, in, out, warpred_op_sum(), wt_short(), wt_short(), st, why);
    }
    static int check(const Ref &r, O got, const check_ctx &, char *why, size_t len)
    {
        if (dbits(got) == dbits(r.exact)) return 1;
        snprintf(why, len, "got %.17g (bits %016llx), expected exactly %.17g", got, (unsigned long long)dbits(got),
                 r.exact);
        return 0;
    }
};

/* mean = (exact double sum) / length, rounded to float by the finish: exactly the host's value;
   an empty slice gives g(+0) = 0 / 0, a NaN. */
struct fam_fmean {
    typedef float T;
    typedef float O;
    typedef float Ref;
    enum { auto_match = 0, kinds = KINDS_ALL };
    static const char *name() { return "mean (xf_to<double>, sum, finish sum / length -> float)"; }
    static Ref ref(sview<T> v, size_t) { return (float)(fine_sum(v).exact / (double)v.n); }
    static cudaError_t call(const warpred_rows_plan *pl, const problem *p, const T *in, O *out, cudaStream_t st,
                            const char **why)
    {
        if (p->kind == K_RANGES) {
            const fin_mean_ranges g = {p->d_begin, p->d_end};
            return launch<kinds>(pl, p, in, out, warpred_op_sum(), warpred_xf_to<double>(), g, st, why);
        }
        const fin_mean_div g = {(double)(p->kind == K_ROWS ? p->cols : p->rows)};
        return launch<kinds>(pl, p, in, out, warpred_op_sum(), warpred_xf_to<double>(), g, st, why);
    }
    static int check(const Ref &r, O got, const check_ctx &, char *why, size_t len)
    {
        if (isnan(r) ? isnan(got) : fbits(got) == fbits(r)) return 1;
        snprintf(why, len, "got %.9g (bits %08x), expected %.9g (bits %08x)", (double)got, fbits(got), (double)r,
                 fbits(r));
        return 0;
    }
};

/* ------------------------------------------------------------------------------------------
   families: min / max / _num (float and double)
   ------------------------------------------------------------------------------------------ */

/* The expected bits (wt_types.h's model of ops.cuh): the identity for an empty slice (-inf for
   max, +inf for min, the canonical NaN for the _num forms); a NaN result is the canonical NaN
   (every element goes through the operation, as in warpred_device_reduce). */
template <typename F, typename Op> struct fam_minmax {
    typedef F T;
    typedef F O;
    typedef uint64_t Ref;
    /* 8-byte elements: rows, and ranges for the two operations test_ranges checks */
    enum {
        auto_match = 0,
        kinds = sizeof(F) != 8 ? KINDS_ALL
                : std::is_same<Op, warpred_op_max>::value || std::is_same<Op, warpred_op_min_num>::value
                    ? KINDS_ROWS | KINDS_RANGES
                    : KINDS_ROWS
    };
    static const char *name()
    {
        static char buf[64];
        snprintf(buf, sizeof buf, "%s %s", wt_type<F>::name(), wt_op_name[wt_op_of<Op>::code]);
        return buf;
    }
    static Ref ref(sview<T> v, size_t)
    {
        typedef wt_type<F> W;
        const int op = wt_op_of<Op>::code;
        if (v.n == 0) {
            if (wt_op_is_num(op)) return W::nan_bits();
            return W::bits(W::special(wt_op_is_max(op) ? WT_SP_NEG_INF : WT_SP_INF));
        }
        double m = W::to_d(v[0]);
        for (size_t i = 1; i < v.n; i++) m = wt_model(op, m, W::to_d(v[i]));
        return isnan(m) ? W::nan_bits() : W::bits(W::from_d(m));
    }
    static cudaError_t call(const warpred_rows_plan *pl, const problem *p, const T *in, O *out, cudaStream_t st,
                            const char **why)
    {
        return launch<kinds>(pl, p, in, out, Op(), wt_short(), wt_short(), st, why);
    }
    static int check(const Ref &r, O got, const check_ctx &, char *why, size_t len)
    {
        if (wt_type<F>::bits(got) == r) return 1;
        snprintf(why, len, "got %.17g (bits %llx), expected bits %llx", wt_type<F>::to_d(got),
                 (unsigned long long)wt_type<F>::bits(got), (unsigned long long)r);
        return 0;
    }
};

/* Per-slice cases of min/max data: random with specials, all negative but a few +-0 (max is a
   zero whose sign -0 < +0 decides; mirrored for min), one NaN, all NaN, plain random. */
template <typename F> static void fill_minmax_slice(size_t n, const std::function<void(size_t, F)> &set)
{
    typedef wt_type<F> W;
    const int c = wt_rand_below(5), negate = wt_rand_below(2);
    for (size_t i = 0; i < n; i++) {
        F v;
        switch (c) {
        case 0: v = W::random(1); break;
        case 1: v = W::from_d((negate ? 1 : -1) * (0.25 + wt_rand_unit())); break;
        case 3: v = W::special(wt_rand_below(2) ? WT_SP_QNAN : WT_SP_NEG_QNAN); break;
        default: v = W::random(0);
        }
        set(i, v);
    }
    if (n == 0) return;
    if (c == 1)
        for (int z = 0; z < 1 + wt_rand_below(3); z++)
            set(wt_rand64() % n, W::special(wt_rand_below(2) ? WT_SP_ZERO : WT_SP_NEG_ZERO));
    if (c == 2) set(wt_rand64() % n, W::special(wt_rand_below(2) ? WT_SP_SNAN : WT_SP_NEG_QNAN));
}

/* Ranges: one flat fill (ranges overlap): random values, a NaN every ~5000 elements, +-0 every ~64. */
template <typename F> static void fill_minmax_flat(F *x, size_t n)
{
    typedef wt_type<F> W;
    for (size_t i = 0; i < n; i++) {
        const uint32_t r = wt_rand32();
        x[i] = r % 5000 == 0 ? W::special(r & 1 ? WT_SP_QNAN : WT_SP_NEG_QNAN)
               : r % 64 == 1 ? W::special(r & 128 ? WT_SP_ZERO : WT_SP_NEG_ZERO)
                             : W::random(0);
    }
}

/* ------------------------------------------------------------------------------------------
   families: argmax / argmin_num
   ------------------------------------------------------------------------------------------ */

typedef warpred_arg<float, long long> arg_t;
struct arg_ref {
    long long index;
    uint32_t bits;
};

/* The pair wt_arg_beats (wt_compound.h, written from op_argminmax.cuh's RULES) picks, with
   indices within the slice: the lowest index among equal values, the first NaN for argmax, NaN
   losing to every number for the _num forms. Empty: index -1 and the op's worst value. */
template <int ArgOp> struct fam_arg {
    typedef float T;
    typedef arg_t O;
    typedef arg_ref Ref;
    enum { auto_match = 0, kinds = KINDS_ALL };
    static const char *name() { return wt_argop_name[ArgOp]; }
    static Ref ref(sview<T> v, size_t)
    {
        Ref r = {-1, fbits(wt_arg_identity_value<float>(ArgOp))};
        if (v.n == 0) return r;
        size_t best = 0;
        for (size_t i = 1; i < v.n; i++)
            if (wt_arg_beats(ArgOp, v[i], (long long)i, v[best], (long long)best)) best = i;
        r.index = (long long)best;
        r.bits = fbits(v[best]);
        return r;
    }
    static cudaError_t call(const warpred_rows_plan *pl, const problem *p, const T *in, O *out, cudaStream_t st,
                            const char **why)
    {
        return launch<kinds>(pl, p, in, out, typename wt_argop_of<ArgOp>::type(), warpred_xf_arg(),
                             warpred_fin_identity(), st, why);
    }
    static int check(const Ref &r, O got, const check_ctx &, char *why, size_t len)
    {
        if (got.index == r.index && fbits(got.value) == r.bits) return 1;
        snprintf(why, len, "got {%g (bits %08x), index %lld}, expected {bits %08x, index %lld}", (double)got.value,
                 fbits(got.value), got.index, r.bits, r.index);
        return 0;
    }
};

/* Per-slice scenarios: few values (ties everywhere), unique values, one value everywhere, two
   NaNs (the first must win argmax), all NaN, all -inf. */
static void fill_arg_slice(size_t, size_t n, const std::function<void(size_t, float)> &set)
{
    const int s = wt_rand_below(6);
    const float tie = (float)(wt_rand_below(5) - 2);
    for (size_t i = 0; i < n; i++) {
        const int r = wt_rand_below(6);
        float v;
        switch (s) {
        case 1: v = wt_type<float>::random(0); break;
        case 2: v = tie; break;
        case 4: v = wt_nan_with<float>(wt_rand64(), wt_rand_below(2)); break;
        case 5: v = -INFINITY; break;
        default: v = r == 2 ? -0.0f : r == 3 ? 0.0f : (float)(r < 2 ? r - 2 : r - 3);
        }
        set(i, v);
    }
    if (s == 3 && n > 0)
        for (int j = 0; j < 2; j++) set(wt_rand64() % n, wt_nan_with<float>(wt_rand64(), wt_rand_below(2)));
}

static void fill_arg_flat(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const uint32_t r = wt_rand32();
        x[i] = r % 3000 == 0 ? wt_nan_with<float>(wt_rand64(), (int)(r & 1)) : (float)((int)(r % 7) - 3);
    }
}

/* ------------------------------------------------------------------------------------------
   families: Welford, softmax
   ------------------------------------------------------------------------------------------ */

typedef warpred_welford<double> welford_t;

/* warpred_xf_welford<> declares its result `auto`: nvcc's host pass does not deduce a __device__
   function's auto result (it sees void), and the transform forms take R from decltype(f(x, i)) on
   the host, so that transform does not compile with them (reported). This one states its result. */
struct xf_welford_double {
    __device__ welford_t operator()(double x, size_t) const { return warpred_make_welford(x); }
};

/* Two-pass long double moments of a slice (wt_compound.h's wt_two_pass, over a view). */
static wt_moments moments_of(sview<double> v)
{
    wt_moments m = {0, 0, (long long)v.n};
    if (v.n == 0) return m;
    long double s = 0;
    for (size_t i = 0; i < v.n; i++) s += v[i];
    m.mean = s / (long double)v.n;
    for (size_t i = 0; i < v.n; i++) {
        const long double d = (long double)v[i] - m.mean;
        m.m2 += d * d;
    }
    return m;
}

/* Tolerances of a Welford result over n values of mean mu and deviation sd reached through
   `depth` merges in sequence at most (sum_depth: a thread's run of single-value merges, then the
   trees): each merge rounds the mean by about u (|mu| + sd), and the m2 term inherits that error
   relative to sd, |mu| / sd times; wt_welford_var_tol covers the trees' part. Generous but finite. */
static void welford_tols(const wt_moments &m, double depth, double *mean_tol, double *m2_tol)
{
    const double u = 0x1p-53, mu = (double)m.mean, sd = sqrt((double)(m.m2 / m.count));
    *mean_tol = 4 * depth * u * (fabs(mu) + sd);
    *m2_tol =
        (wt_welford_var_tol(u, mu, sd, m.count) + 4 * depth * u * (1 + (sd > 0 ? fabs(mu) / sd : 0))) * (double)m.m2 +
        (double)m.count * *mean_tol * *mean_tol;
}

/* Welford summaries of doubles: count exact, one value exactly {x, 0, 1}, empty exactly {0, 0, 0}. */
struct fam_welford {
    typedef double T;
    typedef welford_t O;
    typedef wt_moments Ref;
    enum { auto_match = 0, kinds = KINDS_ROWS };
    static const char *name() { return "Welford (double)"; }
    static Ref ref(sview<T> v, size_t)
    {
        Ref m = moments_of(v);
        if (v.n == 1) m.mean = v[0];
        return m;
    }
    static cudaError_t call(const warpred_rows_plan *pl, const problem *p, const T *in, O *out, cudaStream_t st,
                            const char **why)
    {
        return launch<kinds>(pl, p, in, out, warpred_op_welford(), xf_welford_double(), warpred_fin_identity(), st,
                             why);
    }
    static int check(const Ref &r, O got, const check_ctx &c, char *why, size_t len)
    {
        if (got.count != r.count) {
            snprintf(why, len, "count %lld, expected %lld", got.count, r.count);
            return 0;
        }
        if (r.count <= 1) {
            if (dbits(got.mean) == dbits((double)r.mean) && dbits(got.m2) == 0) return 1;
            snprintf(why, len, "got {%.17g, %g}, expected exactly {%.17g, 0}", got.mean, got.m2, (double)r.mean);
            return 0;
        }
        double mean_tol, m2_tol;
        welford_tols(r, sum_depth(c, 2, true), &mean_tol, &m2_tol);
        if (fabs(got.mean - (double)r.mean) <= mean_tol && fabs(got.m2 - (double)r.m2) <= m2_tol) return 1;
        snprintf(why, len, "got {mean %.17g, m2 %.17g}, expected {%.17g, %.17g} within {%.3g, %.3g}", got.mean, got.m2,
                 (double)r.mean, (double)r.m2, mean_tol, m2_tol);
        return 0;
    }
};

/* The population variance through a finish: g(identity) = NaN for an empty slice, 0 for one value. */
struct fam_wvar {
    typedef double T;
    typedef double O;
    typedef wt_moments Ref;
    enum { auto_match = 0, kinds = KINDS_ROWS };
    static const char *name() { return "Welford, finish var_pop -> double"; }
    static Ref ref(sview<T> v, size_t) { return moments_of(v); }
    static cudaError_t call(const warpred_rows_plan *pl, const problem *p, const T *in, O *out, cudaStream_t st,
                            const char **why)
    {
        return launch<kinds>(pl, p, in, out, warpred_op_welford(), xf_welford_double(), fin_var_pop(), st, why);
    }
    static int check(const Ref &r, O got, const check_ctx &c, char *why, size_t len)
    {
        if (r.count == 0) {
            if (isnan(got)) return 1;
            snprintf(why, len, "empty: got %g, expected NaN", got);
            return 0;
        }
        const double want = (double)(r.m2 / r.count);
        double mean_tol, m2_tol;
        welford_tols(r, sum_depth(c, 2, true), &mean_tol, &m2_tol);
        const double tol = m2_tol / (double)r.count + 0x1p-52 * want;
        if (fabs(got - want) <= tol) return 1;
        snprintf(why, len, "got %.17g, expected %.17g within %.3g", got, want, tol);
        return 0;
    }
};

/* Welford data: 1000 + U(-1, 1) (a large offset, a small spread). */
static void fill_welford(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = 1000.0 + (wt_rand_unit() * 2 - 1);
}

typedef warpred_softmax<float> softmax_t;
struct softmax_ref {
    wt_softmax_ref m;
    double range; /* max - the smallest finite input */
};

/* The online softmax pair (max, sum of exp(x - max)) against wt_softmax_model: max exact, sum
   within wt_softmax_sum_tol's rule with the slice's depth (sum_depth) in place of its tree
   depth; the -inf, +inf and NaN rules of op_softmax.cuh; empty: {-inf, 0}. */
struct fam_softmax {
    typedef float T;
    typedef softmax_t O;
    typedef softmax_ref Ref;
    enum { auto_match = 0, kinds = KINDS_ROWS };
    static const char *name() { return "softmax pair (float)"; }
    static Ref ref(sview<T> v, size_t)
    {
        float *row = (float *)malloc((v.n ? v.n : 1) * sizeof(float));
        if (!row) fail_msg("out of host memory");
        double lo = INFINITY;
        for (size_t i = 0; i < v.n; i++) {
            row[i] = v[i];
            if (isfinite((double)row[i]) && (double)row[i] < lo) lo = row[i];
        }
        Ref r;
        r.m = wt_softmax_model(row, (int)v.n);
        r.range = isfinite(lo) && isfinite(r.m.max) ? r.m.max - lo : 0;
        free(row);
        return r;
    }
    static cudaError_t call(const warpred_rows_plan *pl, const problem *p, const T *in, O *out, cudaStream_t st,
                            const char **why)
    {
        return launch<kinds>(pl, p, in, out, warpred_op_softmax(), warpred_xf_softmax(), warpred_fin_identity(), st,
                             why);
    }
    static int check(const Ref &r, O got, const check_ctx &c, char *why, size_t len)
    {
        const double gm = got.max, gs = got.sum;
        int ok;
        if (r.m.has_nan) {
            ok = isnan(gm) && isnan(gs) && (c.n == 1 || fbits(got.max) == 0x7fffffffu);
        } else if (r.m.pinf) {
            ok = gm == INFINITY && gs == (double)r.m.pinf;
        } else if (r.m.max == -INFINITY) {
            ok = gm == -INFINITY && gs == 0;
        } else {
            const double depth = sum_depth(c, 4), tol = 4 * (depth + 2) * (r.range + 8) * 0x1p-24;
            ok = gm == r.m.max && fabs(gs - r.m.sum) <= tol * r.m.sum;
        }
        if (ok) return 1;
        snprintf(why, len, "got (%.9g [bits %08x], %.9g), expected (%.9g, %.9g)%s", gm, fbits(got.max), gs, r.m.max,
                 r.m.sum, r.m.has_nan ? " (a NaN input: canonical NaNs)" : "");
        return 0;
    }
};

/* Softmax data per slice: U(-4, 4); with some -inf; all -inf; with one +inf; with one NaN. */
static void fill_softmax_slice(size_t, size_t n, const std::function<void(size_t, float)> &set)
{
    const int c = wt_rand_below(8); /* 0-3: plain */
    for (size_t i = 0; i < n; i++) {
        float v = (float)(wt_rand_unit() * 8 - 4);
        if (c == 4 && wt_rand_below(4) == 0) v = -INFINITY;
        if (c == 5) v = -INFINITY;
        set(i, v);
    }
    if (n == 0) return;
    if (c == 6) set(wt_rand64() % n, INFINITY);
    if (c == 7) set(wt_rand64() % n, NAN);
}

/* ------------------------------------------------------------------------------------------
   the reproducible sum
   ------------------------------------------------------------------------------------------ */

/* Wide data: signs and magnitudes 2^-20 .. 2^20, so that float sums in other orders differ. */
static void fill_wide(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = (float)((wt_rand_unit() - 0.5) * ldexp(1.0, wt_rand_below(41) - 20));
}

/* warpred_op_rsum into O (float or double) over every slice of p, under every strategy: the same
   bits under every strategy (each against the first), and on a sample of the slices (all of them
   up to 64; else the first 32, the last 32 and 32 others) the bits of warpred_device_reduce over
   the same elements (columns: a contiguous copy of each column, d_cols), each of those (exact !=
   0) within op_rsum.cuh's bound of the exact sum (wt_exact.h). */
template <int kinds, typename O>
static void check_rsum(const env *e, warpred_device_plan *dplan, const problem *p, const float *x, const float *d_x,
                       const float *d_cols, int exact, const strat *strats, int nstrats)
{
    const size_t n = slices(p);
    size_t *sample = (size_t *)wt_host_alloc(96 * sizeof(size_t)), m = 0;
    for (size_t k = 0; k < n && m < 96; k++) {
        if (n <= 64 || k < 32) sample[m++] = k;
        else if (k == 32) {
            for (int j = 0; j < 32; j++) sample[m++] = 32 + wt_rand64() % (n - 64);
            for (size_t t = n - 32; t < n; t++) sample[m++] = t;
        }
    }
    O *want = (O *)wt_host_alloc((m + 1) * sizeof(O)), *d_want = (O *)wt_dev_alloc((m + 1) * sizeof(O));
    for (size_t j = 0; j < m; j++) {
        const size_t k = sample[j], len = slice_len(p, k);
        const float *src = p->kind == K_COLUMNS ? d_cols + k * p->rows : d_x + (len ? slice_elem(p, k, 0) : 0);
        const char *why = NULL;
        const cudaError_t err = warpred_device_reduce(dplan, src, len, d_want + j, warpred_op_rsum(), 0, &why);
        if (err != cudaSuccess) fail_msg("warpred_device_reduce, slice %zu: %s (%s)", k, cudaGetErrorString(err), why);
    }
    WT_LAUNCHED();
    wt_to_host(want, d_want, m * sizeof(O));
    const char *what = sizeof(O) == 4 ? "reproducible sum -> float" : "reproducible sum -> double";
    for (size_t j = 0; exact && j < m; j++) {
        const sview<float> v = view_of(p, x, sample[j]);
        wt_exact a;
        wt_exact_clear(&a);
        for (size_t i = 0; i < v.n; i++) wt_exact_add(&a, v[i]);
        const wt_exact_verdict verdict = sizeof(O) == 4 ? wt_exact_check_float(&a, (float)want[j], WT_EXACT_BOUND)
                                                        : wt_exact_check_double(&a, (double)want[j], WT_EXACT_BOUND);
        if (!verdict.ok)
            fail_msg("%s: warpred_device_reduce over slice %zu of %s: %s", what, sample[j], describe(p), verdict.why);
    }
    O *got = (O *)e->h_out, *first = (O *)wt_host_alloc((n + 1) * sizeof(O));
    const char *first_name = NULL;
    const float *in = d_x + p->start;
    for (int s = 0; s < nstrats; s++) {
        warpred_rows_plan plan = *e->plan;
        plan.strategy = strats[s].strategy;
        plan.lanes = strats[s].lanes;
        if (!run_once(e, &plan, p, got, what, strats[s].name,
                      [&](const warpred_rows_plan *pl, O *out, cudaStream_t st, const char **w) {
                          return launch<kinds>(pl, p, in, out, warpred_op_rsum(), wt_short(), wt_short(), st, w);
                      }))
            continue;
        for (size_t j = 0; j < m; j++)
            if (memcmp(&got[sample[j]], &want[j], sizeof(O)) != 0)
                fail_msg("%s over %s, strategy %s: slice %zu (%zu elements): got %.17g, warpred_device_reduce over "
                         "the same elements %.17g: not the same bits",
                         what, describe(p), strats[s].name, sample[j], slice_len(p, sample[j]), (double)got[sample[j]],
                         (double)want[j]);
        if (first_name == NULL) {
            memcpy(first, got, n * sizeof(O));
            first_name = strats[s].name;
            continue;
        }
        for (size_t k = 0; k < n; k++)
            if (memcmp(&got[k], &first[k], sizeof(O)) != 0)
                fail_msg("%s over %s: slice %zu (%zu elements): strategy %s gives %.17g, %s %.17g: not the same bits",
                         what, describe(p), k, slice_len(p, k), strats[s].name, (double)got[k], first_name,
                         (double)first[k]);
    }
    wt_host_free(first);
    wt_dev_free(d_want);
    wt_host_free(want);
    wt_host_free(sample);
}

/* ------------------------------------------------------------------------------------------
   fills
   ------------------------------------------------------------------------------------------ */

static void fill_ints(int *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = (int)wt_rand32();
}
static float small_int(void) { return (float)(wt_rand_below(5) - 2); }
static float fine_value(void) { return (float)ldexp((double)((int)(wt_rand32() >> 13) - (1 << 18)), -20); }
static void fill_small(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = small_int();
}
static void fill_fine(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = fine_value();
}

/* A slice filler from a flat one (the slice's elements are not contiguous for columns). */
template <typename T> static auto slice_from(T (*value)(void))
{
    return [value](size_t, size_t n, const std::function<void(size_t, T)> &set) {
        for (size_t i = 0; i < n; i++) set(i, value());
    };
}
static int int_value(void) { return (int)wt_rand32(); }
static double welford_value(void) { return 1000.0 + (wt_rand_unit() * 2 - 1); }
static float wide_value(void) { return (float)((wt_rand_unit() - 0.5) * ldexp(1.0, wt_rand_below(41) - 20)); }

/* Traps: values that change any result they leak into (a sum by far, a max to the top, a NaN). */
static const int TRAP_INT = INT32_MAX;
static const float TRAP_FLOAT = 1e9f;
static float trap_nan(void) { return wt_nan_with<float>(0x200001, 0); }

/* ------------------------------------------------------------------------------------------
   rows
   ------------------------------------------------------------------------------------------ */

static void test_rows_integers(void **state)
{
    WT_NEED_GPU(state);
    warpred_rows_plan *plan = wt_rows_plan(0);
    const size_t cap = shapes_cap();
    int *x = (int *)wt_host_alloc(cap * sizeof(int)), *d_x = (int *)wt_dev_alloc(cap * sizeof(int));
    env e = env_make(plan, 3000);
    each_row_shape<int>(budget(20), 7, [&](problem *p) {
        fill_problem(p, x, cap, TRAP_INT, slice_from(int_value), fill_ints);
        upload_problem(p, x, d_x, cap);
        check_family<fam_isum_ll>(&e, p, x, d_x, row_strats, ROW_STRATS);
        check_family<fam_isum_wrap>(&e, p, x, d_x, row_strats, ROW_STRATS);
        check_family<fam_iweight>(&e, p, x, d_x, row_strats, ROW_STRATS);
        check_family<fam_imax>(&e, p, x, d_x, row_strats, ROW_STRATS);
    });
    env_free(&e);
    report_cluster_skips("rows, integers");
    wt_rows_plan_free(plan);
}

/* Rows of -0 only sum to -0 (the accumulator starts from -0, as warpred_device_reduce's); one +0
   makes its row +0. */
static void check_negative_zero_rows(const env *e, float *x, float *d_x, size_t cap)
{
    problem p;
    memset(&p, 0, sizeof p);
    p.kind = K_ROWS;
    p.rows = 7;
    p.cols = 1000;
    p.ld = 1001;
    p.layout = L_MISALIGNED;
    place(&p, cap, 1, 4);
    const size_t plus = 3;
    fill_problem(
        &p, x, cap, -0.0f,
        [](size_t, size_t n, const std::function<void(size_t, float)> &set) {
            for (size_t i = 0; i < n; i++) set(i, -0.0f);
        },
        fill_fine);
    x[slice_elem(&p, plus, wt_rand64() % p.cols)] = 0.0f;
    upload_problem(&p, x, d_x, cap);
    float *got = (float *)e->h_out;
    for (int s = 0; s < ROW_STRATS; s++) {
        warpred_rows_plan plan = *e->plan;
        plan.strategy = row_strats[s].strategy;
        plan.lanes = row_strats[s].lanes;
        if (!run_once(e, &plan, &p, got, "float sum of -0s", row_strats[s].name,
                      [&](const warpred_rows_plan *pl, float *out, cudaStream_t st, const char **w) {
                          return launch<KINDS_ROWS>(pl, &p, d_x + p.start, out, warpred_op_sum(), wt_short(),
                                                    wt_short(), st, w);
                      }))
            continue;
        for (size_t r = 0; r < p.rows; r++)
            if (fbits(got[r]) != (r == plus ? 0u : 0x80000000u))
                fail_msg("float sum of -0s%s, row %zu, strategy %s: bits %08x, expected %s",
                         r == plus ? " and one +0" : "", r, row_strats[s].name, fbits(got[r]), r == plus ? "+0" : "-0");
    }
}

static void test_rows_float_sums(void **state)
{
    WT_NEED_GPU(state);
    warpred_rows_plan *plan = wt_rows_plan(0);
    const size_t cap = shapes_cap();
    float *x = (float *)wt_host_alloc(cap * sizeof(float)), *d_x = (float *)wt_dev_alloc(cap * sizeof(float));
    env e = env_make(plan, 3000);
    each_row_shape<float>(budget(20), 7, [&](problem *p) {
        fill_problem(p, x, cap, TRAP_FLOAT, slice_from(small_int), fill_small);
        upload_problem(p, x, d_x, cap);
        check_family<fam_fsum_exact>(&e, p, x, d_x, row_strats, ROW_STRATS);
        check_family<fam_tuple>(&e, p, x, d_x, row_strats, ROW_STRATS);
        fill_problem(p, x, cap, TRAP_FLOAT, slice_from(fine_value), fill_fine);
        upload_problem(p, x, d_x, cap);
        e.twice = 1; /* determinism: a second call, the same bytes */
        check_family<fam_fsum_bound>(&e, p, x, d_x, row_strats, ROW_STRATS);
        e.twice = 0;
        check_family<fam_fsum_double>(&e, p, x, d_x, row_strats, ROW_STRATS);
        check_family<fam_fmean>(&e, p, x, d_x, row_strats, ROW_STRATS);
    });
    check_negative_zero_rows(&e, x, d_x, cap);
    env_free(&e);
    report_cluster_skips("rows, float sums");
    wt_rows_plan_free(plan);
}

template <typename F> static void rows_minmax(const env *e, size_t max_elems, unsigned layouts)
{
    const size_t cap = shapes_cap();
    F *x = (F *)wt_host_alloc(cap * sizeof(F)), *d_x = (F *)wt_dev_alloc(cap * sizeof(F));
    const F trap = wt_type<F>::special(WT_SP_SNAN);
    each_row_shape<F>(max_elems, layouts, [&](problem *p) {
        fill_problem(
            p, x, cap, trap,
            [](size_t, size_t n, const std::function<void(size_t, F)> &set) { fill_minmax_slice<F>(n, set); },
            fill_minmax_flat<F>);
        upload_problem(p, x, d_x, cap);
        check_family<fam_minmax<F, warpred_op_max> >(e, p, x, d_x, row_strats, ROW_STRATS);
        check_family<fam_minmax<F, warpred_op_min> >(e, p, x, d_x, row_strats, ROW_STRATS);
        check_family<fam_minmax<F, warpred_op_max_num> >(e, p, x, d_x, row_strats, ROW_STRATS);
        check_family<fam_minmax<F, warpred_op_min_num> >(e, p, x, d_x, row_strats, ROW_STRATS);
    });
    wt_host_free(x);
    wt_dev_free(d_x);
}

static void test_rows_minmax(void **state)
{
    WT_NEED_GPU(state);
    warpred_rows_plan *plan = wt_rows_plan(0);
    env e = env_make(plan, 3000);
    rows_minmax<float>(&e, budget(19), 7);
    rows_minmax<double>(&e, budget(17), (1u << L_DENSE) | (1u << L_MISALIGNED));
    env_free(&e);
    report_cluster_skips("rows, min/max");
    wt_rows_plan_free(plan);
}

static void test_rows_argmax(void **state)
{
    WT_NEED_GPU(state);
    warpred_rows_plan *plan = wt_rows_plan(0);
    const size_t cap = shapes_cap();
    float *x = (float *)wt_host_alloc(cap * sizeof(float)), *d_x = (float *)wt_dev_alloc(cap * sizeof(float));
    env e = env_make(plan, 3000);
    each_row_shape<float>(budget(19), 7, [&](problem *p) {
        fill_problem(p, x, cap, trap_nan(), fill_arg_slice, fill_arg_flat);
        upload_problem(p, x, d_x, cap);
        check_family<fam_arg<WT_ARGMAX> >(&e, p, x, d_x, row_strats, ROW_STRATS);
        check_family<fam_arg<WT_ARGMIN_NUM> >(&e, p, x, d_x, row_strats, ROW_STRATS);
    });
    env_free(&e);
    report_cluster_skips("rows, argmax");
    wt_rows_plan_free(plan);
}

static void test_rows_welford_softmax(void **state)
{
    WT_NEED_GPU(state);
    warpred_rows_plan *plan = wt_rows_plan(0);
    const size_t cap = shapes_cap();
    double *xd = (double *)wt_host_alloc(cap * sizeof(double)), *d_xd = (double *)wt_dev_alloc(cap * sizeof(double));
    float *xf = (float *)wt_host_alloc(cap * sizeof(float)), *d_xf = (float *)wt_dev_alloc(cap * sizeof(float));
    env e = env_make(plan, 3000);
    const unsigned layouts = (1u << L_DENSE) | (1u << L_MISALIGNED);
    each_row_shape<double>(budget(18), layouts, [&](problem *p) {
        fill_problem(p, xd, cap, 1e30, slice_from(welford_value), fill_welford);
        upload_problem(p, xd, d_xd, cap);
        check_family<fam_welford>(&e, p, xd, d_xd, row_strats, ROW_STRATS);
        check_family<fam_wvar>(&e, p, xd, d_xd, row_strats, ROW_STRATS);
    });
    each_row_shape<float>(budget(18), layouts, [&](problem *p) {
        fill_problem(p, xf, cap, trap_nan(), fill_softmax_slice, fill_fine);
        upload_problem(p, xf, d_xf, cap);
        check_family<fam_softmax>(&e, p, xf, d_xf, row_strats, ROW_STRATS);
    });
    env_free(&e);
    report_cluster_skips("rows, Welford and softmax");
    wt_rows_plan_free(plan);
}

static void test_rows_rsum(void **state)
{
    WT_NEED_GPU(state);
    warpred_rows_plan *plan = wt_rows_plan(0);
    warpred_device_plan *dplan = wt_device_plan(0);
    const size_t cap = shapes_cap();
    float *x = (float *)wt_host_alloc(cap * sizeof(float)), *d_x = (float *)wt_dev_alloc(cap * sizeof(float));
    env e = env_make(plan, 3000);
    each_row_shape<float>(budget(18), 7, [&](problem *p) {
        fill_problem(p, x, cap, TRAP_FLOAT, slice_from(wide_value), fill_wide);
        upload_problem(p, x, d_x, cap);
        check_rsum<KINDS_ALL, float>(&e, dplan, p, x, d_x, NULL, 1, row_strats, ROW_STRATS);
        check_rsum<KINDS_ROWS, double>(&e, dplan, p, x, d_x, NULL, p->layout == L_DENSE, row_strats, ROW_STRATS);
    });
    env_free(&e);
    report_cluster_skips("rows, reproducible sum");
    wt_device_plan_free(dplan);
    wt_rows_plan_free(plan);
}

/* ------------------------------------------------------------------------------------------
   columns
   ------------------------------------------------------------------------------------------ */

static void test_columns_sums(void **state)
{
    WT_NEED_GPU(state);
    warpred_rows_plan *plan = wt_rows_plan(0);
    const size_t cap = columns_cap();
    int *xi = (int *)wt_host_alloc(cap * sizeof(int)), *d_xi = (int *)wt_dev_alloc(cap * sizeof(int));
    float *x = (float *)wt_host_alloc(cap * sizeof(float)), *d_x = (float *)wt_dev_alloc(cap * sizeof(float));
    env e = env_make(plan, 1000);
    const int ns = sizeof column_strats / sizeof column_strats[0];
    each_column_shape<float>(budget(20), 7, [&](problem *p) {
        fill_problem(p, xi, cap, TRAP_INT, slice_from(int_value), fill_ints);
        upload_problem(p, xi, d_xi, cap);
        check_family<fam_isum_ll>(&e, p, xi, d_xi, column_strats, ns);
        check_family<fam_iweight>(&e, p, xi, d_xi, column_strats, ns); /* the transform's index: the row */
        check_family<fam_imax>(&e, p, xi, d_xi, column_strats, ns);
        fill_problem(p, x, cap, TRAP_FLOAT, slice_from(small_int), fill_small);
        upload_problem(p, x, d_x, cap);
        check_family<fam_fsum_exact>(&e, p, x, d_x, column_strats, ns);
        check_family<fam_tuple>(&e, p, x, d_x, column_strats, ns);
        fill_problem(p, x, cap, TRAP_FLOAT, slice_from(fine_value), fill_fine);
        upload_problem(p, x, d_x, cap);
        e.twice = 1;
        check_family<fam_fsum_bound>(&e, p, x, d_x, column_strats, ns);
        e.twice = 0;
        check_family<fam_fsum_double>(&e, p, x, d_x, column_strats, ns);
        check_family<fam_fmean>(&e, p, x, d_x, column_strats, ns);
    });
    env_free(&e);
    wt_rows_plan_free(plan);
}

static void test_columns_minmax_argmax_rsum(void **state)
{
    WT_NEED_GPU(state);
    warpred_rows_plan *plan = wt_rows_plan(0);
    warpred_device_plan *dplan = wt_device_plan(0);
    const size_t cap = columns_cap();
    float *x = (float *)wt_host_alloc(cap * sizeof(float)), *d_x = (float *)wt_dev_alloc(cap * sizeof(float));
    float *xt = (float *)wt_host_alloc(cap * sizeof(float)), *d_xt = (float *)wt_dev_alloc(cap * sizeof(float));
    env e = env_make(plan, 1000);
    const int ns = sizeof column_strats / sizeof column_strats[0];
    each_column_shape<float>(budget(20), 7, [&](problem *p) {
        fill_problem(
            p, x, cap, trap_nan(),
            [](size_t, size_t n, const std::function<void(size_t, float)> &set) { fill_minmax_slice<float>(n, set); },
            fill_minmax_flat<float>);
        upload_problem(p, x, d_x, cap);
        check_family<fam_minmax<float, warpred_op_max> >(&e, p, x, d_x, column_strats, ns);
        check_family<fam_minmax<float, warpred_op_min> >(&e, p, x, d_x, column_strats, ns);
        check_family<fam_minmax<float, warpred_op_max_num> >(&e, p, x, d_x, column_strats, ns);
        check_family<fam_minmax<float, warpred_op_min_num> >(&e, p, x, d_x, column_strats, ns);
        fill_problem(p, x, cap, trap_nan(), fill_arg_slice, fill_arg_flat);
        upload_problem(p, x, d_x, cap);
        check_family<fam_arg<WT_ARGMAX> >(&e, p, x, d_x, column_strats, ns); /* the index: the row */
        check_family<fam_arg<WT_ARGMIN_NUM> >(&e, p, x, d_x, column_strats, ns);
        /* the reproducible sum: warpred_device_reduce over a contiguous copy of each column */
        fill_problem(p, x, cap, TRAP_FLOAT, slice_from(wide_value), fill_wide);
        upload_problem(p, x, d_x, cap);
        for (size_t c = 0; c < p->cols; c++)
            for (size_t r = 0; r < p->rows; r++) xt[c * p->rows + r] = x[slice_elem(p, c, r)];
        wt_to_dev(d_xt, xt, p->rows * p->cols * sizeof(float));
        check_rsum<KINDS_ALL, float>(&e, dplan, p, x, d_x, d_xt,
                                     p->layout == L_MISALIGNED && p->rows * p->cols <= ((size_t)1 << 20), column_strats,
                                     ns);
    });
    env_free(&e);
    wt_device_plan_free(dplan);
    wt_rows_plan_free(plan);
}

/* 1- and 2-byte inputs: rows under every strategy (dense rows of 1, 2, 4 and 8 bytes take the
   packed path), columns (16 or 8 columns per thread; a tall 4096 x 1024 byte matrix folds its
   parts with one column group per 512 columns), and ranges. */
static unsigned char u8_value(void) { return (unsigned char)wt_rand32(); }
static __half h16_value(void) { return wt_type<__half>::from_d((double)(wt_rand_below(5) - 2)); }
static void fill_u8(unsigned char *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = u8_value();
}
static void fill_h16(__half *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = h16_value();
}

template <typename Fam>
static void narrow_each(const env *e, typename Fam::T *x, typename Fam::T *d_x, typename Fam::T trap,
                        typename Fam::T (*value)(void), void (*flat)(typename Fam::T *, size_t))
{
    typedef typename Fam::T T;
    const size_t cap = columns_cap(); /* the largest of the three: each kind fills its own */
    each_row_shape<T>(budget(18), 7, [&](problem *p) {
        fill_problem(p, x, shapes_cap(), trap, slice_from(value), flat);
        upload_problem(p, x, d_x, shapes_cap());
        check_family<Fam>(e, p, x, d_x, row_strats, ROW_STRATS);
    });
    const int ns = sizeof column_strats / sizeof column_strats[0];
    each_column_shape<T>(budget(20), 7, [&](problem *p) {
        fill_problem(p, x, cap, trap, slice_from(value), flat);
        upload_problem(p, x, d_x, cap);
        check_family<Fam>(e, p, x, d_x, column_strats, ns);
    });
    problem p;
    memset(&p, 0, sizeof p);
    p.kind = K_COLUMNS;
    p.layout = L_DENSE;
    p.rows = wt_quick() ? 1024 : 4096;
    p.cols = 1024;
    p.ld = 1024;
    place(&p, cap, 0, per_vector<T>());
    fill_problem(&p, x, cap, trap, slice_from(value), flat);
    upload_problem(&p, x, d_x, cap);
    check_family<Fam>(e, &p, x, d_x, column_strats, ns);
    for (int set = R_RANDOM; set <= R_HUGE; set += R_HUGE - R_RANDOM) {
        range_set rs = make_ranges(set);
        problem pr = range_problem<T>(&rs, set);
        fill_problem(&pr, x, ranges_cap(), trap, slice_from(value), flat);
        upload_problem(&pr, x, d_x, ranges_cap());
        check_family<Fam>(e, &pr, x, d_x, range_strats, sizeof range_strats / sizeof range_strats[0]);
        free_ranges(&rs, set);
    }
}

static void test_narrow_types(void **state)
{
    WT_NEED_GPU(state);
    warpred_rows_plan *plan = wt_rows_plan(0);
    const size_t cap = columns_cap();
    unsigned char *xb = (unsigned char *)wt_host_alloc(cap), *d_xb = (unsigned char *)wt_dev_alloc(cap);
    __half *xh = (__half *)wt_host_alloc(cap * sizeof(__half)), *d_xh = (__half *)wt_dev_alloc(cap * sizeof(__half));
    env e = env_make(plan, 3000);
    narrow_each<fam_u8sum>(&e, xb, d_xb, (unsigned char)200, u8_value, fill_u8);
    narrow_each<fam_h16sum>(&e, xh, d_xh, wt_type<__half>::from_d(1000.0), h16_value, fill_h16);
    env_free(&e);
    report_cluster_skips("1- and 2-byte inputs");
    wt_rows_plan_free(plan);
}

/* ------------------------------------------------------------------------------------------
   ranges
   ------------------------------------------------------------------------------------------ */

/* LANES, BLOCK, CLUSTER and SPLIT are the rows' strategies; ranges take AUTO only: such a call
   must refuse with cudaErrorInvalidValue and a message, writing nothing, or give the right
   results. */
static void check_ranges_other_strategies(const env *e, const problem *p, const int *x, const int *d_x)
{
    static const strat others[] = {{WARPRED_ROWS_LANES, 0, "LANES"},
                                   {WARPRED_ROWS_LANES, 8, "LANES 8"},
                                   {WARPRED_ROWS_BLOCK, 0, "BLOCK"},
                                   {WARPRED_ROWS_CLUSTER, 0, "CLUSTER"},
                                   {WARPRED_ROWS_SPLIT, 0, "SPLIT"}};
    const size_t n = slices(p);
    long long *got = (long long *)e->h_out, *d_out = (long long *)e->d_out;
    for (int s = 0; s < (int)(sizeof others / sizeof others[0]); s++) {
        warpred_rows_plan plan = *e->plan;
        plan.strategy = others[s].strategy;
        plan.lanes = others[s].lanes;
        wt_poison(d_out, (n + 1) * sizeof(long long));
        const char *why = NULL;
        const cudaError_t err =
            launch<KINDS_ALL>(&plan, p, d_x + p->start, d_out, warpred_op_sum(), wt_short(), wt_short(), 0, &why);
        WT_LAUNCHED();
        wt_to_host(got, d_out, (n + 1) * sizeof(long long));
        if (err == cudaErrorInvalidValue ||
            (err == cudaErrorNotSupported && others[s].strategy == WARPRED_ROWS_CLUSTER)) {
            if (why == NULL || strcmp(why, "no error") == 0)
                fail_msg("ranges, strategy %s: refused without a message", others[s].name);
            for (size_t k = 0; k <= n; k++)
                if (!wt_is_poison(got[k]))
                    fail_msg("ranges, strategy %s: refused, but out[%zu] was written", others[s].name, k);
            continue;
        }
        if (err != cudaSuccess) fail_msg("ranges, strategy %s: %s (%s)", others[s].name, cudaGetErrorString(err), why);
        for (size_t k = 0; k < n; k++)
            if (got[k] != fam_isum_ll::ref(view_of(p, x, k), k))
                fail_msg("ranges, strategy %s, range %zu: got %lld, expected %lld", others[s].name, k, got[k],
                         fam_isum_ll::ref(view_of(p, x, k), k));
    }
}

static void test_ranges(void **state)
{
    WT_NEED_GPU(state);
    warpred_rows_plan *plan = wt_rows_plan(0);
    warpred_device_plan *dplan = wt_device_plan(0);
    const size_t cap = ranges_cap();
    int *xi = (int *)wt_host_alloc(cap * sizeof(int)), *d_xi = (int *)wt_dev_alloc(cap * sizeof(int));
    float *x = (float *)wt_host_alloc(cap * sizeof(float)), *d_x = (float *)wt_dev_alloc(cap * sizeof(float));
    double *xd = (double *)wt_host_alloc(cap * sizeof(double)), *d_xd = (double *)wt_dev_alloc(cap * sizeof(double));
    size_t most = 0;
    for (int set = 0; set < R_SETS; set++) most = set_count(set) > most ? set_count(set) : most;
    env e = env_make(plan, most);
    const int ns = sizeof range_strats / sizeof range_strats[0];
    for (int set = 0; set < R_SETS; set++) {
        range_set rs = make_ranges(set);
        problem pi = range_problem<int>(&rs, set), *p = &pi;
        fill_problem(p, xi, cap, TRAP_INT, slice_from(int_value), fill_ints);
        upload_problem(p, xi, d_xi, cap);
        check_family<fam_isum_ll>(&e, p, xi, d_xi, range_strats, ns);
        check_family<fam_iweight>(&e, p, xi, d_xi, range_strats, ns); /* the index within the range */
        check_family<fam_imax>(&e, p, xi, d_xi, range_strats, ns);
        if (set == R_RANDOM) check_ranges_other_strategies(&e, p, xi, d_xi);
        problem pf = range_problem<float>(&rs, set);
        p = &pf;
        fill_problem(p, x, cap, TRAP_FLOAT, slice_from(fine_value), fill_fine);
        upload_problem(p, x, d_x, cap);
        e.twice = 1;
        check_family<fam_fsum_bound>(&e, p, x, d_x, range_strats, ns);
        e.twice = 0;
        check_family<fam_fsum_double>(&e, p, x, d_x, range_strats, ns);
        check_family<fam_fmean>(&e, p, x, d_x, range_strats, ns); /* the finish reads the range's length through k */
        fill_problem(p, x, cap, TRAP_FLOAT, slice_from(small_int), fill_small);
        upload_problem(p, x, d_x, cap);
        check_family<fam_fsum_exact>(&e, p, x, d_x, range_strats, ns);
        check_family<fam_tuple>(&e, p, x, d_x, range_strats, ns);
        fill_problem(p, x, cap, trap_nan(), slice_from(fine_value), fill_minmax_flat<float>);
        upload_problem(p, x, d_x, cap);
        check_family<fam_minmax<float, warpred_op_max> >(&e, p, x, d_x, range_strats, ns);
        check_family<fam_minmax<float, warpred_op_min> >(&e, p, x, d_x, range_strats, ns);
        check_family<fam_minmax<float, warpred_op_max_num> >(&e, p, x, d_x, range_strats, ns);
        check_family<fam_minmax<float, warpred_op_min_num> >(&e, p, x, d_x, range_strats, ns);
        fill_problem(p, x, cap, trap_nan(), slice_from(fine_value), fill_arg_flat);
        upload_problem(p, x, d_x, cap);
        check_family<fam_arg<WT_ARGMAX> >(&e, p, x, d_x, range_strats, ns);
        check_family<fam_arg<WT_ARGMIN_NUM> >(&e, p, x, d_x, range_strats, ns);
        fill_problem(p, x, cap, TRAP_FLOAT, slice_from(wide_value), fill_wide);
        upload_problem(p, x, d_x, cap);
        check_rsum<KINDS_ALL, float>(&e, dplan, p, x, d_x, NULL, 1, range_strats, ns);
        if (set == R_RANDOM || set == R_CSR || set == R_PIECES) { /* 8-byte elements: 8 a lane in a tile */
            problem pd = range_problem<double>(&rs, set);
            p = &pd;
            fill_problem(
                p, xd, cap, wt_type<double>::special(WT_SP_SNAN),
                [](size_t, size_t n, const std::function<void(size_t, double)> &put) {
                    fill_minmax_slice<double>(n, put);
                },
                fill_minmax_flat<double>);
            upload_problem(p, xd, d_xd, cap);
            check_family<fam_minmax<double, warpred_op_max> >(&e, p, xd, d_xd, range_strats, ns);
            check_family<fam_minmax<double, warpred_op_min_num> >(&e, p, xd, d_xd, range_strats, ns);
        }
        free_ranges(&rs, set);
    }
    env_free(&e);
    wt_device_plan_free(dplan);
    wt_rows_plan_free(plan);
}

/* n random ints in [-10^6, 10^6] and their prefix sums (pre[i] = x[0] + ... + x[i - 1], n + 1 of
   them), the exact reference of integer range sums. */
static int *random_ints_with_prefix(size_t n, long long **pre)
{
    int *x = (int *)wt_host_alloc(n * sizeof(int));
    *pre = (long long *)wt_host_alloc((n + 1) * sizeof(long long));
    (*pre)[0] = 0;
    for (size_t i = 0; i < n; i++) {
        x[i] = (int)(wt_rand32() % 2000001) - 1000000;
        (*pre)[i + 1] = (*pre)[i] + x[i];
    }
    return x;
}

/* The first range k whose sum got[k] is not pre[at + end[k]] - pre[at + begin[k]]; count if none. */
static size_t first_wrong_range_sum(const long long *got, const long long *pre, size_t at, const size_t *begin,
                                    const size_t *end, size_t count)
{
    for (size_t k = 0; k < count; k++)
        if (got[k] != pre[at + end[k]] - pre[at + begin[k]]) return k;
    return count;
}

/* More long ranges than the plan's queue holds (WARPRED_ROWS_QUEUE), each of 17 to 22 chunks of
   WARPRED_ROWS_RANGE_CHUNK, so that the queued ones need more partials than the plan has (their
   owners then compute alone), all over one region (they overlap): int sums against prefix sums,
   and the reproducible sum against warpred_device_reduce. Under the
   sanitizer: 64 ranges of 2 or 3 chunks (the queue without overflow). */
static void test_ranges_long_queue(void **state)
{
    WT_NEED_GPU(state);
    warpred_rows_plan *plan = wt_rows_plan(0);
    warpred_device_plan *dplan = wt_device_plan(0);
    const int q = wt_quick();
    const size_t count = q ? 64 : WARPRED_ROWS_QUEUE + 104, chunk = WARPRED_ROWS_RANGE_CHUNK;
    const size_t lo_len = q ? 2 * chunk + 1 : 16 * chunk + 1, spread = q ? chunk : 5 * chunk;
    const size_t region = lo_len + spread + 64, cap = region + 64;
    range_set rs;
    memset(&rs, 0, sizeof rs);
    rs.count = count;
    rs.begin = (size_t *)wt_host_alloc(count * sizeof(size_t));
    rs.end = (size_t *)wt_host_alloc(count * sizeof(size_t));
    for (size_t k = 0; k < count; k++) {
        const size_t len = lo_len + wt_rand64() % spread;
        rs.begin[k] = wt_rand64() % (region - len);
        rs.end[k] = rs.begin[k] + len;
    }
    rs.d_begin = (size_t *)wt_dev_copy(rs.begin, count * sizeof(size_t));
    rs.d_end = (size_t *)wt_dev_copy(rs.end, count * sizeof(size_t));
    problem p;
    memset(&p, 0, sizeof p);
    p.kind = K_RANGES;
    p.count = count;
    p.begin = rs.begin;
    p.end = rs.end;
    p.d_begin = rs.d_begin;
    p.d_end = rs.d_end;
    p.set = "long ranges, more than the queue and the partials hold";
    place(&p, cap, 1, 4);
    long long *pre;
    int *xi = random_ints_with_prefix(cap, &pre), *d_xi = (int *)wt_dev_alloc(cap * sizeof(int));
    wt_to_dev(d_xi, xi, cap * sizeof(int));
    env e = env_make(plan, count);
    long long *got = (long long *)e.h_out;
    const int ns = sizeof range_strats / sizeof range_strats[0];
    for (int s = 0; s < ns; s++) {
        warpred_rows_plan pl = *plan;
        pl.strategy = range_strats[s].strategy;
        pl.lanes = range_strats[s].lanes;
        run_once(&e, &pl, &p, got, "int -> long long sum", range_strats[s].name,
                 [&](const warpred_rows_plan *pp, long long *out, cudaStream_t st, const char **w) {
                     return launch<KINDS_ALL>(pp, &p, d_xi + p.start, out, warpred_op_sum(), wt_short(), wt_short(), st,
                                              w);
                 });
        const size_t k = first_wrong_range_sum(got, pre, p.start, rs.begin, rs.end, count);
        if (k < count)
            fail_msg("%s, strategy %s, range %zu of %zu (%zu elements): got %lld, expected %lld", describe(&p),
                     range_strats[s].name, k, count, rs.end[k] - rs.begin[k], got[k],
                     pre[p.start + rs.end[k]] - pre[p.start + rs.begin[k]]);
    }
    float *x = (float *)wt_host_alloc(cap * sizeof(float)), *d_x = (float *)wt_dev_alloc(cap * sizeof(float));
    fill_wide(x, cap);
    wt_to_dev(d_x, x, cap * sizeof(float));
    check_rsum<KINDS_ALL, float>(&e, dplan, &p, x, d_x, NULL, 0, range_strats, ns);
    env_free(&e);
    wt_device_plan_free(dplan);
    wt_rows_plan_free(plan);
}

/* Holds its SM, all of its shared memory, for ns nanoseconds. */
__global__ void hold_sm(unsigned long long ns)
{
    extern __shared__ unsigned char held[];
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < ns);
    if (threadIdx.x == 0) held[0] = (unsigned char)t;
}

/* Ranges while another kernel holds some SMs for a few ms: the grid is then not all resident at
   once, and the warps that wait for every warp to have queued its long ranges must not wait on
   blocks that cannot start (they stop waiting when the count has not moved for a while, and the
   warps counted later take the chunks). Tiny ranges, one in 1024 long (2 to 3 chunks, so that
   warps of blocks started late queue some); half the SMs held, then all but one; each such call
   followed by one on the idle GPU. Every result exact: this catches a chunk lost or taken twice
   on that path, or a hang; a wait that only ends when the other kernel does is not caught (it
   is slower, not wrong), nor are kernels that happen not to overlap (under a sanitizer they never
   do). */
static void test_ranges_beside_busy_kernel(void **state)
{
    WT_NEED_GPU(state);
    warpred_rows_plan *plan = wt_rows_plan(0);
    const int q = wt_quick();
    int dev = 0, sms = 0, smem = 0;
    WT_CUDA(cudaGetDevice(&dev));
    WT_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    WT_CUDA(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    WT_CUDA(cudaFuncSetAttribute(hold_sm, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    const size_t count = q ? (size_t)1 << 16 : (size_t)1 << 20, region = q ? (size_t)1 << 21 : (size_t)1 << 23;
    const size_t chunk = WARPRED_ROWS_RANGE_CHUNK;
    size_t *begin = (size_t *)wt_host_alloc(count * sizeof(size_t)),
           *end = (size_t *)wt_host_alloc(count * sizeof(size_t));
    for (size_t k = 0; k < count; k++) {
        const size_t len = k % 1024 == 517 ? 2 * chunk + wt_rand64() % chunk : wt_rand64() % 9;
        begin[k] = wt_rand64() % (region - len);
        end[k] = begin[k] + len;
    }
    long long *pre;
    int *x = random_ints_with_prefix(region, &pre);
    int *d_x = (int *)wt_dev_copy(x, region * sizeof(int));
    size_t *d_begin = (size_t *)wt_dev_copy(begin, count * sizeof(size_t));
    size_t *d_end = (size_t *)wt_dev_copy(end, count * sizeof(size_t));
    long long *d_out = (long long *)wt_dev_alloc(count * sizeof(long long));
    long long *got = (long long *)wt_host_alloc(count * sizeof(long long));
    cudaStream_t busy, work;
    WT_CUDA(cudaStreamCreateWithFlags(&busy, cudaStreamNonBlocking));
    WT_CUDA(cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking));
    const int held[] = {sms / 2, sms - 1};
    for (int h = 0; h < 2; h++)
        for (int beside = 1; beside >= 0; beside--) {
            wt_poison(d_out, count * sizeof(long long));
            WT_CUDA(cudaDeviceSynchronize());
            if (beside) {
                unsigned long long ns = q ? 1000000ull : 3000000ull;
                void *args[] = {&ns};
                WT_CUDA(cudaLaunchKernel((const void *)hold_sm, dim3(held[h]), dim3(32), args, smem, busy));
            }
            const char *why = NULL;
            const cudaError_t err =
                warpred_device_reduce_ranges(plan, d_x, d_begin, d_end, count, d_out, warpred_op_sum(), work, &why);
            if (err != cudaSuccess) fail_msg("warpred_device_reduce_ranges: %s (%s)", cudaGetErrorString(err), why);
            WT_CUDA(cudaStreamSynchronize(work));
            WT_CUDA(cudaStreamSynchronize(busy));
            wt_to_host(got, d_out, count * sizeof(long long));
            const size_t k = first_wrong_range_sum(got, pre, 0, begin, end, count);
            if (k < count)
                fail_msg("%s %d of %d SMs held: range %zu of %zu (%zu elements): got %lld, expected %lld",
                         beside ? "with" : "after a call with", held[h], sms, k, count, end[k] - begin[k], got[k],
                         pre[end[k]] - pre[begin[k]]);
        }
    WT_CUDA(cudaStreamDestroy(busy));
    WT_CUDA(cudaStreamDestroy(work));
    wt_rows_plan_free(plan);
}

/* ------------------------------------------------------------------------------------------
   empty shapes
   ------------------------------------------------------------------------------------------ */

/* Every family over shapes without elements: g(identity) per slice (sum +0, max -inf, max_num
   the canonical NaN, argmax {-inf, -1}, Welford {0, 0, 0} and its variance NaN, softmax {-inf,
   0}, the tuple's identities, mean 0 / 0, the finish r - 7919 k), nothing stored (and the
   guard slot untouched) for rows == 0, cols == 0 (columns), count == 0, with in NULL where nothing
   is read; under every strategy. */
template <typename Fam> static void empty_family(const env *e, const problem *p, const strat *strats, int ns)
{
    if (!(Fam::kinds & (1 << p->kind))) return; /* not built for this kind */
    check_family<Fam>(e, p, (const typename Fam::T *)NULL, (const typename Fam::T *)NULL, strats, ns);
}

static void empty_all(const env *e, const problem *p, const strat *strats, int ns)
{
    empty_family<fam_isum_ll>(e, p, strats, ns);
    empty_family<fam_iweight>(e, p, strats, ns);
    empty_family<fam_imax>(e, p, strats, ns);
    empty_family<fam_fsum_exact>(e, p, strats, ns);
    empty_family<fam_fsum_bound>(e, p, strats, ns);
    empty_family<fam_fsum_double>(e, p, strats, ns);
    empty_family<fam_fmean>(e, p, strats, ns);
    empty_family<fam_tuple>(e, p, strats, ns);
    empty_family<fam_minmax<float, warpred_op_max> >(e, p, strats, ns);
    empty_family<fam_minmax<float, warpred_op_min> >(e, p, strats, ns);
    empty_family<fam_minmax<float, warpred_op_max_num> >(e, p, strats, ns);
    empty_family<fam_minmax<double, warpred_op_max> >(e, p, strats, ns);
    empty_family<fam_minmax<float, warpred_op_min_num> >(e, p, strats, ns);
    empty_family<fam_arg<WT_ARGMAX> >(e, p, strats, ns);
    empty_family<fam_arg<WT_ARGMIN_NUM> >(e, p, strats, ns);
    empty_family<fam_welford>(e, p, strats, ns);
    empty_family<fam_wvar>(e, p, strats, ns);
    empty_family<fam_softmax>(e, p, strats, ns);
}

static void test_empty_shapes(void **state)
{
    WT_NEED_GPU(state);
    warpred_rows_plan *plan = wt_rows_plan(0);
    env e = env_make(plan, 64);
    const size_t shapes[][3] = {{0, 5, 5}, {5, 0, 0}, {5, 0, 7}, {0, 0, 0}}; /* rows, cols, ld */
    for (int kind = K_ROWS; kind <= K_COLUMNS; kind++)
        for (int s = 0; s < 4; s++) {
            problem p;
            memset(&p, 0, sizeof p);
            p.kind = kind;
            p.rows = shapes[s][0];
            p.cols = shapes[s][1];
            p.ld = shapes[s][2];
            if (kind == K_ROWS) empty_all(&e, &p, row_strats, ROW_STRATS);
            else
                empty_all(&e, &p, column_strats, sizeof column_strats / sizeof column_strats[0]);
        }
    /* ranges: count 0 (in, begin and end NULL), then 5 empty ranges (in must point somewhere:
       the implementation cannot see that nothing is read) */
    problem p;
    memset(&p, 0, sizeof p);
    p.kind = K_RANGES;
    p.set = "none";
    const int nr = sizeof range_strats / sizeof range_strats[0];
    empty_all(&e, &p, range_strats, nr);
    const size_t hb[5] = {0, 7, 9, 1u << 30, 3}, he[5] = {0, 3, 9, 0, 2};
    size_t *d_b = (size_t *)wt_dev_copy(hb, sizeof hb), *d_e = (size_t *)wt_dev_copy(he, sizeof he);
    float *d_in = (float *)wt_dev_alloc(64 * sizeof(double));
    p.count = 5;
    p.begin = hb;
    p.end = he;
    p.d_begin = d_b;
    p.d_end = d_e;
    p.set = "five empty ranges";
    static const float zeros_f[16] = {0};
    /* the families read in through the view's base only for elements; any real pointer serves */
    check_family<fam_isum_ll>(&e, &p, (const int *)zeros_f, (const int *)d_in, range_strats, nr);
    check_family<fam_fsum_exact>(&e, &p, zeros_f, d_in, range_strats, nr);
    check_family<fam_fmean>(&e, &p, zeros_f, d_in, range_strats, nr);
    check_family<fam_minmax<float, warpred_op_max_num> >(&e, &p, zeros_f, d_in, range_strats, nr);
    check_family<fam_arg<WT_ARGMAX> >(&e, &p, zeros_f, d_in, range_strats, nr);
    check_family<fam_tuple>(&e, &p, zeros_f, d_in, range_strats, nr);
    wt_dev_free(d_in);
    wt_dev_free(d_e);
    wt_dev_free(d_b);
    env_free(&e);
    report_cluster_skips("empty shapes");
    wt_rows_plan_free(plan);
}

/* ------------------------------------------------------------------------------------------
   calls queued back to back through one plan; a CUDA graph
   ------------------------------------------------------------------------------------------ */

/* The calls of the batch: rows split over blocks (several row counts and lengths: their tickets
   and partials lie over each other's), a tall matrix's columns (parts over blocks: tickets), long
   ranges (the queue), and plain rows, all int -> long long sums of one buffer. */
enum { BATCH = 7 };

typedef struct batch {
    problem p[BATCH];
    warpred_rows_plan plan[BATCH];
    range_set rs;
    size_t offset[BATCH], total; /* each call's results at out + offset[c] */
} batch;

static void batch_make(batch *b, const warpred_rows_plan *plan, size_t cap)
{
    const int q = wt_quick();
    const size_t shapes[BATCH][3] = {/* kind K_ROWS: rows, cols, strategy; K_COLUMNS: rows, cols; K_RANGES: count */
                                     {2, q ? (size_t)1 << 14 : (size_t)1 << 19, WARPRED_ROWS_SPLIT},
                                     {7, (size_t)(q ? 5000 : 40000), WARPRED_ROWS_SPLIT},
                                     {q ? (size_t)1 << 13 : (size_t)1 << 17, 32, 0},
                                     {1, (size_t)(q ? 3000 : 300000), WARPRED_ROWS_SPLIT},
                                     {0, 0, 0},
                                     {3000, 100, WARPRED_ROWS_AUTO},
                                     {(size_t)(q ? 64 : 1000), 1000, WARPRED_ROWS_BLOCK}};
    const int kinds[BATCH] = {K_ROWS, K_ROWS, K_COLUMNS, K_ROWS, K_RANGES, K_ROWS, K_ROWS};
    memset(b, 0, sizeof *b);
    b->rs.count = q ? 40 : 400;
    b->rs.begin = (size_t *)wt_host_alloc(b->rs.count * sizeof(size_t));
    b->rs.end = (size_t *)wt_host_alloc(b->rs.count * sizeof(size_t));
    const size_t region = cap / 2;
    for (size_t k = 0; k < b->rs.count; k++) {
        const size_t len = k % 3 == 0 ? 40000 + wt_rand64() % 60000 : wt_rand64() % 100;
        b->rs.begin[k] = wt_rand64() % (region - len);
        b->rs.end[k] = b->rs.begin[k] + len;
    }
    b->rs.d_begin = (size_t *)wt_dev_copy(b->rs.begin, b->rs.count * sizeof(size_t));
    b->rs.d_end = (size_t *)wt_dev_copy(b->rs.end, b->rs.count * sizeof(size_t));
    for (int c = 0; c < BATCH; c++) {
        problem *p = &b->p[c];
        p->kind = kinds[c];
        b->plan[c] = *plan;
        if (p->kind == K_RANGES) {
            p->count = b->rs.count;
            p->begin = b->rs.begin;
            p->end = b->rs.end;
            p->d_begin = b->rs.d_begin;
            p->d_end = b->rs.d_end;
            p->set = "short and long ranges";
        } else {
            p->rows = shapes[c][0];
            p->cols = shapes[c][1];
            p->ld = p->cols + (size_t)(c % 3); /* some padded, some misaligned rows */
            p->layout = c % 3 ? L_MISALIGNED : L_DENSE;
            if (p->kind == K_ROWS) b->plan[c].strategy = (int)shapes[c][2];
        }
        place(p, cap, (size_t)c % 4, 4);
        b->offset[c] = b->total;
        b->total += slices(p) + 1;
    }
}

static void batch_launch(const batch *b, const int *d_x, long long *d_out, cudaStream_t stream)
{
    for (int c = 0; c < BATCH; c++) {
        const char *why = NULL;
        const cudaError_t err = launch<KINDS_ALL>(&b->plan[c], &b->p[c], d_x + b->p[c].start, d_out + b->offset[c],
                                                  warpred_op_sum(), wt_short(), wt_short(), stream, &why);
        if (err != cudaSuccess)
            fail_msg("queued call %d over %s: %s (%s)", c, describe(&b->p[c]), cudaGetErrorString(err), why);
    }
}

static void batch_check(const batch *b, const int *x, const long long *got, const char *what, int round)
{
    for (int c = 0; c < BATCH; c++) {
        const size_t n = slices(&b->p[c]);
        for (size_t k = 0; k < n; k++) {
            const long long want = fam_isum_ll::ref(view_of(&b->p[c], x, k), k);
            if (got[b->offset[c] + k] != want)
                fail_msg("%s %d, call %d over %s: slice %zu: got %lld, expected %lld", what, round, c,
                         describe(&b->p[c]), k, got[b->offset[c] + k], want);
        }
        if (!wt_is_poison(got[b->offset[c] + n])) fail_msg("%s %d, call %d: wrote past its last slice", what, round, c);
    }
}

static void test_queued_calls_and_graph(void **state)
{
    WT_NEED_GPU(state);
    warpred_rows_plan *plan = wt_rows_plan(0);
    const size_t cap = wt_quick() ? (size_t)1 << 18 : (size_t)1 << 23;
    int *x = (int *)wt_host_alloc(cap * sizeof(int)), *d_x = (int *)wt_dev_alloc(cap * sizeof(int));
    batch b;
    batch_make(&b, plan, cap);
    long long *got = (long long *)wt_host_alloc(b.total * sizeof(long long));
    long long *d_out = (long long *)wt_dev_alloc(b.total * sizeof(long long));
    /* three batches queued back to back in one stream, new data between them (stream-ordered
       copies), each checked */
    cudaStream_t stream;
    WT_CUDA(cudaStreamCreate(&stream));
    for (int round = 0; round < 3; round++) {
        fill_ints(x, cap);
        WT_CUDA(cudaMemcpyAsync(d_x, x, cap * sizeof(int), cudaMemcpyHostToDevice, stream));
        WT_CUDA(cudaMemsetAsync(d_out, WT_POISON, b.total * sizeof(long long), stream));
        batch_launch(&b, d_x, d_out, stream);
        WT_CUDA(cudaStreamSynchronize(stream));
        WT_LAUNCHED();
        wt_to_host(got, d_out, b.total * sizeof(long long));
        batch_check(&b, x, got, "queued batch", round);
    }
    /* the batch captured in a graph, replayed three times with new data; the last time twice
       back to back */
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    WT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    batch_launch(&b, d_x, d_out, stream);
    WT_CUDA(cudaStreamEndCapture(stream, &graph));
    WT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 3; replay++) {
        fill_ints(x, cap);
        wt_to_dev(d_x, x, cap * sizeof(int));
        wt_poison(d_out, b.total * sizeof(long long));
        WT_CUDA(cudaGraphLaunch(exec, stream));
        if (replay == 2) WT_CUDA(cudaGraphLaunch(exec, stream));
        WT_CUDA(cudaStreamSynchronize(stream));
        WT_LAUNCHED();
        wt_to_host(got, d_out, b.total * sizeof(long long));
        batch_check(&b, x, got, "graph replay", replay);
    }
    WT_CUDA(cudaGraphExecDestroy(exec));
    WT_CUDA(cudaGraphDestroy(graph));
    WT_CUDA(cudaStreamDestroy(stream));
    wt_rows_plan_free(plan);
}

/* ------------------------------------------------------------------------------------------
   rows * ld above 2^32 elements
   ------------------------------------------------------------------------------------------ */

/* 3 rows of 1000 bytes with ld = 2^31 + 7 (4.3 GB of unsigned char; the last row ends at the end
   of the allocation), summed into int: rows under every strategy, the columns of the same
   matrix, and ranges beyond 2^32. Skipped under the sanitizer and when the GPU has too little
   free memory. */
static void test_above_2_32(void **state)
{
    WT_NEED_GPU(state);
    if (wt_quick()) {
        printf("[ INFO     ] rows * ld > 2^32 case skipped under the sanitizer (4.3 GB; it runs in make test)\n");
        skip();
    }
    const size_t rows = 3, cols = 1000, ld = ((size_t)1 << 31) + 7, bytes = (rows - 1) * ld + cols;
    size_t free_b = 0, total_b = 0;
    WT_CUDA(cudaMemGetInfo(&free_b, &total_b));
    unsigned char *d_x = NULL;
    if (free_b < bytes + ((size_t)1 << 28) || cudaMalloc(&d_x, bytes) != cudaSuccess) {
        cudaGetLastError();
        printf("[ INFO     ] rows * ld > 2^32 case skipped: needs %zu bytes of GPU memory, %zu free\n", bytes, free_b);
        skip();
        return;
    }
    wt_own(d_x, wt_release_dev);
    WT_CUDA(cudaMemset(d_x, 0xff, bytes)); /* what lies between the rows: 255, never read */
    unsigned char *x = (unsigned char *)wt_host_alloc(rows * cols);
    for (size_t i = 0; i < rows * cols; i++) x[i] = (unsigned char)wt_rand32();
    for (size_t r = 0; r < rows; r++) wt_to_dev(d_x + r * ld, x + r * cols, cols);
    warpred_rows_plan *plan = wt_rows_plan(0);
    int *d_out = (int *)wt_dev_alloc((cols + 1) * sizeof(int)), got[cols + 1];
    const char *why = NULL;
    for (int s = 0; s < ROW_STRATS; s++) {
        warpred_rows_plan pl = *plan;
        pl.strategy = row_strats[s].strategy;
        pl.lanes = row_strats[s].lanes;
        wt_poison(d_out, (rows + 1) * sizeof(int));
        const cudaError_t err = warpred_device_reduce_rows(&pl, d_x, rows, cols, ld, d_out, warpred_op_sum(), 0, &why);
        if (err == cudaErrorNotSupported && pl.strategy == WARPRED_ROWS_CLUSTER && !wt_has_clusters()) {
            wt_cluster_skips++;
            continue;
        }
        if (err != cudaSuccess)
            fail_msg("rows, ld 2^31 + 7, strategy %s: %s (%s)", row_strats[s].name, cudaGetErrorString(err), why);
        WT_LAUNCHED();
        wt_to_host(got, d_out, (rows + 1) * sizeof(int));
        for (size_t r = 0; r < rows; r++) {
            int want = 0;
            for (size_t c = 0; c < cols; c++) want += x[r * cols + c];
            if (got[r] != want)
                fail_msg("rows, ld 2^31 + 7, strategy %s, row %zu (at element %zu): got %d, expected %d",
                         row_strats[s].name, r, r * ld, got[r], want);
        }
        if (!wt_is_poison(got[rows]))
            fail_msg("rows, ld 2^31 + 7, strategy %s: wrote out[%zu]", row_strats[s].name, rows);
    }
    /* the columns of the same matrix: column c sums x[c], x[ld + c], x[2 ld + c] */
    wt_poison(d_out, (cols + 1) * sizeof(int));
    WT_CUDA(warpred_device_reduce_columns(plan, d_x, rows, cols, ld, d_out, warpred_op_sum(), 0, &why));
    WT_LAUNCHED();
    wt_to_host(got, d_out, (cols + 1) * sizeof(int));
    for (size_t c = 0; c < cols; c++) {
        const int want = x[c] + x[cols + c] + x[2 * cols + c];
        if (got[c] != want) fail_msg("columns, ld 2^31 + 7, column %zu: got %d, expected %d", c, got[c], want);
    }
    if (!wt_is_poison(got[cols])) fail_msg("columns, ld 2^31 + 7: wrote out[%zu]", cols);
    /* ranges: the last row (offsets beyond 2^32), one element of it, most of the middle row
       (beyond 2^31), an empty one beyond 2^32 */
    const size_t hb[4] = {2 * ld, 2 * ld + 500, ld + 17, 2 * ld + 999},
                 he[4] = {2 * ld + 1000, 2 * ld + 501, ld + 900, 2 * ld + 999};
    size_t *d_b = (size_t *)wt_dev_copy(hb, sizeof hb), *d_e = (size_t *)wt_dev_copy(he, sizeof he);
    wt_poison(d_out, 5 * sizeof(int));
    WT_CUDA(warpred_device_reduce_ranges(plan, d_x, d_b, d_e, 4, d_out, warpred_op_sum(), 0, &why));
    WT_LAUNCHED();
    wt_to_host(got, d_out, 5 * sizeof(int));
    for (int k = 0; k < 4; k++) {
        int want = 0;
        for (size_t i = hb[k]; i < he[k]; i++) want += x[(i / ld) * cols + i % ld];
        if (got[k] != want)
            fail_msg("ranges beyond 2^32, range %d [%zu, %zu): got %d, expected %d", k, hb[k], he[k], got[k], want);
    }
    if (!wt_is_poison(got[4])) fail_msg("ranges beyond 2^32: wrote out[4]");
    report_cluster_skips("rows * ld > 2^32");
    wt_rows_plan_free(plan);
}

/* ------------------------------------------------------------------------------------------
   argument errors
   ------------------------------------------------------------------------------------------ */

/* got (the call's result) is taken before why is read: a call sets why as it returns */
static void expect_error(cudaError_t got, cudaError_t want, const char *why, const char *needle, const char *what)
{
    if (got != want)
        fail_msg("%s: returned %s, expected %s (message: %s)", what, cudaGetErrorString(got), cudaGetErrorString(want),
                 why ? why : "(none)");
    if (why == NULL || strcmp(why, "no error") == 0 || strstr(why, needle) == NULL)
        fail_msg("%s: message \"%s\" does not say \"%s\"", what, why ? why : "(null)", needle);
}
#define EXPECT_ERROR(CALL, WANT, NEEDLE)              \
    do {                                              \
        why = NULL;                                   \
        const cudaError_t got_ = (CALL);              \
        expect_error(got_, WANT, why, NEEDLE, #CALL); \
    } while (0)

/* A plan that looks created, on device 0, whose scratch pointers any launch would fault on (for
   the calls that must be refused before anything is launched). */
static warpred_rows_plan fake_rows_plan(unsigned value_bytes)
{
    warpred_rows_plan fake;
    memset(&fake, 0, sizeof fake);
    fake.scratch.partials = (void *)256;
    fake.scratch.counters = (unsigned *)512;
    fake.scratch.queue = (warpred__rows_entry *)1024;
    fake.scratch.capacity = 1;
    fake.scratch.tickets = 1;
    fake.value_bytes = value_bytes;
    fake.sms = 1;
    return fake;
}

/* No GPU needed: every one of these is refused before any CUDA call. */
static void test_rejects_bad_arguments(void **state)
{
    (void)state;
    warpred_rows_plan fake = fake_rows_plan(64), *null_plan = NULL;
    const float *in = (const float *)4096;
    float *out = (float *)8192;
    const size_t *b = (const size_t *)16384, *e = (const size_t *)32768;
    const char *why = NULL;
    const warpred_op_sum sum = warpred_op_sum();

    EXPECT_ERROR(warpred_device_reduce_rows(null_plan, in, 4, 10, 10, out, sum, 0, &why), cudaErrorInvalidValue,
                 "plan is NULL");
    EXPECT_ERROR(warpred_device_reduce_columns(null_plan, in, 4, 10, 10, out, sum, 0, &why), cudaErrorInvalidValue,
                 "plan is NULL");
    EXPECT_ERROR(warpred_device_reduce_ranges(null_plan, in, b, e, 3, out, sum, 0, &why), cudaErrorInvalidValue,
                 "plan is NULL");
    EXPECT_ERROR(warpred_device_transform_reduce_rows(null_plan, in, 4, 10, 10, out, sum, warpred_xf_identity(),
                                                      warpred_fin_identity(), 0, &why),
                 cudaErrorInvalidValue, "plan is NULL");
    /* a plan NULL is refused even when there is nothing to do */
    EXPECT_ERROR(warpred_device_reduce_rows(null_plan, in, 0, 10, 10, out, sum, 0, &why), cudaErrorInvalidValue,
                 "plan is NULL");

    EXPECT_ERROR(warpred_device_reduce_rows(&fake, in, 4, 10, 10, (float *)NULL, sum, 0, &why), cudaErrorInvalidValue,
                 "out is NULL");
    EXPECT_ERROR(warpred_device_reduce_columns(&fake, in, 4, 10, 10, (float *)NULL, sum, 0, &why),
                 cudaErrorInvalidValue, "out is NULL");
    EXPECT_ERROR(warpred_device_transform_reduce_ranges(&fake, in, b, e, 3, (float *)NULL, sum, warpred_xf_identity(),
                                                        warpred_fin_identity(), 0, &why),
                 cudaErrorInvalidValue, "out is NULL");

    EXPECT_ERROR(warpred_device_reduce_rows(&fake, (const float *)NULL, 4, 10, 10, out, sum, 0, &why),
                 cudaErrorInvalidValue, "in is NULL");
    EXPECT_ERROR(warpred_device_reduce_columns(&fake, (const float *)NULL, 4, 10, 10, out, sum, 0, &why),
                 cudaErrorInvalidValue, "in is NULL");
    EXPECT_ERROR(warpred_device_reduce_ranges(&fake, (const float *)NULL, b, e, 3, out, sum, 0, &why),
                 cudaErrorInvalidValue, "in is NULL");
    EXPECT_ERROR(warpred_device_reduce_rows(&fake, (const float *)((const char *)in + 2), 4, 10, 10, out, sum, 0, &why),
                 cudaErrorInvalidValue, "not aligned");

    warpred_rows_plan destroyed = fake;
    destroyed.scratch.partials = NULL;
    EXPECT_ERROR(warpred_device_reduce_rows(&destroyed, in, 4, 10, 10, out, sum, 0, &why), cudaErrorInvalidValue,
                 "not created");
    warpred_rows_plan zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    EXPECT_ERROR(warpred_device_reduce_ranges(&zeroed, in, b, e, 3, out, sum, 0, &why), cudaErrorInvalidValue,
                 "not created");
    EXPECT_ERROR(warpred_device_reduce_columns(&zeroed, in, 4, 10, 10, out, sum, 0, &why), cudaErrorInvalidValue,
                 "not created");

    /* the accumulator larger than the plan's value_bytes: a double (8) and rsum's state (32) over 4 */
    warpred_rows_plan small = fake_rows_plan(4);
    EXPECT_ERROR(warpred_device_reduce_rows(&small, in, 4, 10, 10, (double *)out, sum, 0, &why), cudaErrorInvalidValue,
                 "value_bytes");
    EXPECT_ERROR(warpred_device_reduce_rows(&small, in, 4, 10, 10, out, warpred_op_rsum(), 0, &why),
                 cudaErrorInvalidValue, "value_bytes");
    EXPECT_ERROR(warpred_device_transform_reduce_columns(&small, in, 4, 10, 10, (softmax_t *)out, warpred_op_softmax(),
                                                         warpred_xf_softmax(), warpred_fin_identity(), 0, &why),
                 cudaErrorInvalidValue, "value_bytes");

    /* forced strategies and lane counts that do not exist */
    const int bad_strategies[] = {-1, WARPRED_ROWS_SPLIT + 1, 99};
    for (int s = 0; s < 3; s++) {
        warpred_rows_plan bad = fake;
        bad.strategy = bad_strategies[s];
        EXPECT_ERROR(warpred_device_reduce_rows(&bad, in, 4, 10, 10, out, sum, 0, &why), cudaErrorInvalidValue,
                     "strategy");
        EXPECT_ERROR(warpred_device_reduce_ranges(&bad, in, b, e, 3, out, sum, 0, &why), cudaErrorInvalidValue,
                     "strategy");
    }
    const int bad_lanes[] = {-1, 3, 6, 64};
    for (int l = 0; l < 4; l++) {
        warpred_rows_plan bad = fake;
        bad.strategy = WARPRED_ROWS_LANES;
        bad.lanes = bad_lanes[l];
        EXPECT_ERROR(warpred_device_reduce_rows(&bad, in, 4, 10, 10, out, sum, 0, &why), cudaErrorInvalidValue,
                     "lanes");
        EXPECT_ERROR(warpred_device_reduce_ranges(&bad, in, b, e, 3, out, sum, 0, &why), cudaErrorInvalidValue,
                     "lanes");
    }

    /* why may be NULL */
    assert_int_equal(warpred_device_reduce_rows(&fake, (const float *)NULL, 4, 10, 10, out, sum),
                     cudaErrorInvalidValue);
    EXPECT_ERROR(warpred_rows_plan_create(NULL, 0, &why), cudaErrorInvalidValue, "plan is NULL");
    assert_int_equal(warpred_rows_plan_destroy(NULL), cudaErrorInvalidValue);
}

/* On the GPU: the errors that come after the device check (ld < cols, begin or end NULL), a plan
   of another device, and every refused call launches nothing (out keeps its poison); in NULL is
   fine where nothing is read. */
static void test_errors_launch_nothing(void **state)
{
    WT_NEED_GPU(state);
    warpred_rows_plan *plan = wt_rows_plan(0);
    float *d_x = (float *)wt_dev_alloc(256 * sizeof(float)), *d_out = (float *)wt_dev_alloc(64 * sizeof(float));
    const size_t hb[2] = {0, 5}, he[2] = {4, 9};
    size_t *d_b = (size_t *)wt_dev_copy(hb, sizeof hb), *d_e = (size_t *)wt_dev_copy(he, sizeof he);
    const char *why = NULL;
    const warpred_op_sum sum = warpred_op_sum();
    EXPECT_ERROR(warpred_device_reduce_rows(plan, d_x, 4, 10, 9, d_out, sum, 0, &why), cudaErrorInvalidValue, "ld");
    EXPECT_ERROR(warpred_device_transform_reduce_columns(plan, d_x, 4, 10, 9, d_out, sum, warpred_xf_identity(),
                                                         warpred_fin_identity(), 0, &why),
                 cudaErrorInvalidValue, "ld");
    EXPECT_ERROR(warpred_device_reduce_ranges(plan, d_x, (const size_t *)NULL, d_e, 2, d_out, sum, 0, &why),
                 cudaErrorInvalidValue, "NULL");
    EXPECT_ERROR(warpred_device_reduce_ranges(plan, d_x, d_b, (const size_t *)NULL, 2, d_out, sum, 0, &why),
                 cudaErrorInvalidValue, "NULL");
    EXPECT_ERROR(warpred_device_reduce_rows(plan, (const float *)NULL, 4, 10, 10, d_out, sum, 0, &why),
                 cudaErrorInvalidValue, "in is NULL");
    warpred_rows_plan small = *plan;
    small.value_bytes = 4;
    EXPECT_ERROR(warpred_device_reduce_rows(&small, d_x, 4, 10, 10, (double *)d_out, sum, 0, &why),
                 cudaErrorInvalidValue, "value_bytes");
    warpred_rows_plan wrong_device = *plan;
    wrong_device.device = plan->device + 1;
    EXPECT_ERROR(warpred_device_reduce_rows(&wrong_device, d_x, 4, 10, 10, d_out, sum, 0, &why), cudaErrorInvalidDevice,
                 "device");
    EXPECT_ERROR(warpred_device_reduce_columns(&wrong_device, d_x, 4, 10, 10, d_out, sum, 0, &why),
                 cudaErrorInvalidDevice, "device");
    EXPECT_ERROR(warpred_device_reduce_ranges(&wrong_device, d_x, d_b, d_e, 2, d_out, sum, 0, &why),
                 cudaErrorInvalidDevice, "device");
    if (!wt_has_clusters()) {
        warpred_rows_plan cluster = *plan;
        cluster.strategy = WARPRED_ROWS_CLUSTER;
        EXPECT_ERROR(warpred_device_reduce_rows(&cluster, d_x, 4, 10, 10, d_out, sum, 0, &why), cudaErrorNotSupported,
                     "");
        printf("[ INFO     ] this GPU is older than sm_90: WARPRED_ROWS_CLUSTER refused, as documented\n");
    }
    WT_LAUNCHED();
    float got[64];
    wt_to_host(got, d_out, sizeof got);
    for (int i = 0; i < 64; i++)
        if (!wt_is_poison(got[i])) fail_msg("a refused call wrote out[%d]", i);
    /* in NULL where nothing is read: rows of no columns, columns of no rows (their identities),
       rows == 0 (nothing) */
    WT_CUDA(warpred_device_reduce_rows(plan, (const float *)NULL, 3, 0, 0, d_out, warpred_op_max(), 0, &why));
    assert_string_equal(why, "no error");
    WT_CUDA(warpred_device_reduce_columns(plan, (const float *)NULL, 0, 2, 2, d_out + 3, warpred_op_min(), 0, &why));
    WT_CUDA(warpred_device_reduce_rows(plan, (const float *)NULL, 0, 7, 7, d_out + 5, warpred_op_max(), 0, &why));
    WT_LAUNCHED();
    wt_to_host(got, d_out, 6 * sizeof(float));
    for (int i = 0; i < 5; i++)
        if (got[i] != (i < 3 ? -INFINITY : INFINITY)) fail_msg("identity %d: got %g", i, (double)got[i]);
    if (!wt_is_poison(got[5])) fail_msg("rows == 0 wrote out[0]");
    wt_rows_plan_free(plan);
}

/* ------------------------------------------------------------------------------------------
   the manual's snippet
   ------------------------------------------------------------------------------------------ */

/* mean_of and rows_example, as the build copies them from the manual (scripts/snippets.py) */
#include "snippets/device_rows.inc"

static void test_doc_snippet(void **state)
{
    WT_NEED_GPU(state);
    float hx[12];
    for (int i = 0; i < 12; i++) hx[i] = (float)i;
    const size_t ho[3] = {1, 3, 3};
    float *x = (float *)wt_dev_copy(hx, sizeof hx), *out = (float *)wt_dev_alloc(10 * sizeof(float));
    size_t *offsets = (size_t *)wt_dev_copy(ho, sizeof ho);
    cudaStream_t stream;
    WT_CUDA(cudaStreamCreate(&stream));
    const cudaError_t err = rows_example(x, offsets, out, stream);
    WT_CUDA(cudaStreamSynchronize(stream));
    WT_LAUNCHED();
    WT_CUDA(cudaStreamDestroy(stream));
    WT_CUDA(err);
    float got[10];
    wt_to_host(got, out, sizeof got);
    const float want[9] = {6, 22, 38, 4, 5, 6, 7, 2, -INFINITY};
    for (int i = 0; i < 9; i++)
        if (fbits(got[i]) != fbits(want[i]))
            fail_msg("snippet: out[%d] = %g, expected %g (rows 0-2, column means 3-6, range maxima 7-8)", i,
                     (double)got[i], (double)want[i]);
    if (!wt_is_poison(got[9])) fail_msg("snippet: out[9] written");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(test_rejects_bad_arguments),
        WT_TEST(test_doc_snippet),
        WT_TEST(test_errors_launch_nothing),
        WT_TEST(test_empty_shapes),
        WT_TEST(test_rows_integers),
        WT_TEST(test_rows_float_sums),
        WT_TEST(test_rows_minmax),
        WT_TEST(test_rows_argmax),
        WT_TEST(test_rows_welford_softmax),
        WT_TEST(test_rows_rsum),
        WT_TEST(test_columns_sums),
        WT_TEST(test_columns_minmax_argmax_rsum),
        WT_TEST(test_narrow_types),
        WT_TEST(test_ranges),
        WT_TEST(test_ranges_long_queue),
        WT_TEST(test_ranges_beside_busy_kernel),
        WT_TEST(test_queued_calls_and_graph),
        WT_TEST(test_above_2_32),
    };
    /* one test or a pattern of them, e.g. WARPRED_TEST_FILTER='test_ranges*' under a sanitizer */
    if (getenv("WARPRED_TEST_FILTER")) cmocka_set_test_filter(getenv("WARPRED_TEST_FILTER"));
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
