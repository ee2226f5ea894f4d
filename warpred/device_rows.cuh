/* warpred/device_rows.cuh - many reductions in one launch: the rows of a matrix, its columns, or
   ranges of an array given by offsets.      MIT licensed, see LICENSE.

   warpred_device_reduce (device_reduce.cuh) reduces one array to one value. The calls here
   reduce many slices of an array at once, one result per slice: per-row losses and statistics,
   the max and sum of softmax rows, per-token argmax over a vocabulary, bias gradients (columns),
   per-range sums of CSR matrices or variable-length sequences. One kernel launch,
   stream-ordered, no memset per call, capturable in a CUDA graph, the same bits on every run.
   (Not to be confused with warp_segmented.cuh, which reduces runs of equal keys inside a warp.)

   USAGE
       #include <warpred/device_rows.cuh>

       struct mean_of {                        // a finish: O operator()(R r, size_t k) const
           float count;
           __device__ float operator()(float s, size_t) const { return s / count; }
       };

       // x: 3 x 4 floats, rows {0 1 2 3} {4 5 6 7} {8 9 10 11}; offsets: {1, 3, 3} (size_t);
       // out: 9 floats; all device memory
       static cudaError_t rows_example(const float *x, const size_t *offsets, float *out, cudaStream_t stream)
       {
           warpred_rows_plan plan;
           const char *why;
           cudaError_t err = warpred_rows_plan_create(&plan, 0, &why);          // once per device
           if (err != cudaSuccess) { fprintf(stderr, "plan: %s\n", why); return err; }
           err = warpred_device_reduce_rows(&plan, x, 3, 4, 4, out, warpred_op_sum(), stream); // 6 22 38
           mean_of mean = {3.0f};
           if (err == cudaSuccess)
               err = warpred_device_transform_reduce_columns(&plan, x, 3, 4, 4, out + 3, warpred_op_sum(),
                                                             warpred_xf_identity(), mean, stream); // 4 5 6 7
           if (err == cudaSuccess)
               err = warpred_device_reduce_ranges(&plan, x, offsets, offsets + 1, 2, out + 7,
                                                  warpred_op_max(), stream);  // [1, 3), [3, 3): 2 -inf
           if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
           warpred_rows_plan_destroy(&plan);
           return err;
       }

   (This snippet is compiled and checked in tests/test_device_rows.cu.)

   THE CALLS (host functions; every pointer but plan is device memory)
     warpred_rows_plan_create(&plan, value_bytes, &why)   the scratch for the current device:
         partials and tickets for rows split over several blocks, each partial of up to
         value_bytes bytes (0: 64). Zeroed once here (a synchronization, as with any create).
     warpred_rows_plan_destroy(&plan)

     ROWS: a matrix of `rows` rows of `cols` elements, row r at in + r * ld (ld >= cols; rows may
     be padded).  out[r] = op over f(in[r * ld + i], i), i in [0, cols).
       warpred_device_reduce_rows(&plan, in, rows, cols, ld, out, op, stream = 0, &why = NULL)
       warpred_device_transform_reduce_rows(&plan, in, rows, cols, ld, out, op, f, g,
                                            stream = 0, &why = NULL)
     COLUMNS: the same matrix; out[c] = op over f(in[r * ld + c], r), r in [0, rows).
       warpred_device_reduce_columns(&plan, in, rows, cols, ld, out, op, stream = 0, &why = NULL)
       warpred_device_transform_reduce_columns(&plan, in, rows, cols, ld, out, op, f, g, ...)
     RANGES: `count` ranges [begin[k], end[k]) of in (size_t offsets, in any order; they may
     overlap or leave gaps; end[k] <= begin[k] is an empty range, whose result is op's
     identity).  out[k] = op over f(in[begin[k] + i], i), i in [0, end[k] - begin[k]).
     CSR offsets o[0..count] are begin = o, end = o + 1.
       warpred_device_reduce_ranges(&plan, in, begin, end, count, out, op, stream = 0, &why = NULL)
       warpred_device_transform_reduce_ranges(&plan, in, begin, end, count, out, op, f, g, ...)

   Every call returns cudaSuccess or an error code; why, when not NULL, points at a message
   (static, "no error" on success), as in device_reduce.cuh.

   VALUES, TRANSFORMS, FINISH
     - op: every operation of the library and yours (operation.cuh), as in device_reduce.cuh;
       the accumulator protocol holds (op_rsum.cuh's reproducible sum keeps its binned state).
     - The short forms: out has the type R that elements convert to and accumulate in (float
       input and a double out accumulate in double), as warpred_device_reduce.
     - The transform forms: f(x, i) is a transform (transforms.cuh) with i the index WITHIN the
       row, column or range (argmax gives the column of a row's maximum); R is f's result type.
       g(r, k) turns the finished result r (an R) of slice k into what is stored in out[k]
       (mean = sum / cols, say); warpred_fin_identity() stores r as it is.
     - An empty slice (cols == 0, rows == 0 for columns, an empty range) stores g(identity)
       (an empty float sum +0). As in warpred_device_reduce: a sum of only -0 is -0, and every
       element goes through op, so a NaN result is the canonical NaN, in slices of one element
       too.
       rows == 0 for rows (cols == 0 for columns, count == 0 for ranges) stores nothing.

   STRATEGIES  where a slice lives, chosen from its length (AUTO, the default), or forced with
   plan.strategy (and plan.lanes) for tests and benchmarks. Rows (n = cols, in 16-byte loads
   where in and ld * sizeof(T) are 16-byte aligned and T is 1, 2, 4, 8 or 16 bytes; else one
   element per load):
     WARPRED_ROWS_LANES     plan.lanes = 1, 2, 4, 8, 16 or 32 lanes per row (0: chosen from
                            what a tree step costs against a load: 1 lane for rows of 1-2 loads,
                            4 for 3-4, 8 up to 127, then 32; argmax and other 8-byte pairs over
                            smaller elements: two loads a lane or more up to 15 loads; 9-16 byte
                            accumulators: at most 16 loads a lane; over 16 bytes (warpred_rsum):
                            1 lane up to 15 loads, then as few lanes as leave at most two of
                            the groups the GPU holds for every row), four rows in flight per
                            group (accumulators over 8 bytes: two, two loads each; over 16: one,
                            four loads; over 16 with results of up to 8 bytes and rows of one or
                            two loads a lane each: the loads of four or two rows, then the rows
                            one by one); rows shorter than one load and back to back (ld ==
                            cols) are read several rows per load, their results stored
                            together. AUTO: rows under 32 loads, and rows up to 4096 loads
                            while they fill the GPU's warps (three quarters of them with
                            accumulators over 16 bytes).
     WARPRED_ROWS_BLOCK     a block of 256 per row, rows in turn, one barrier per row (a block
                            reducer). AUTO: while there are at least as many rows as SMs.
     WARPRED_ROWS_CLUSTER   a cluster of 8 blocks per row (sm_90 and newer; elsewhere the call
                            returns cudaErrorNotSupported); DSMEM, no global scratch. AUTO:
                            fewer rows than SMs, but at least half a wave of clusters
                            (accumulators over 16 bytes: SPLIT instead).
     WARPRED_ROWS_SPLIT     chunks of a row over several blocks (about eight per resident
                            block in all; accumulators over 16 bytes: at most one); each block
                            stores its chunk's partial and takes the row's ticket, the row's
                            last block folds the partials in chunk order. AUTO: fewer rows
                            still. At most WARPRED_ROWS_TICKETS rows.
   Columns take no strategy (plan.strategy and plan.lanes are ignored): a column (16 bytes of
   columns where aligned) per thread, a block a tile of up to 32 such groups (16 for 1-byte
   elements; tiles as even as they can be) and Y = 256 / (the tile's groups) row lanes, rounded
   down (the threads left over idle), meeting in a shared-memory tree;
   tall matrices are cut in parts over blocks, whose partials are folded in runs of 16 parts,
   then the runs (a folding block's row lanes each every Y-th part in order, then the same
   tree; tickets in the scratch).
   Ranges take AUTO only (plan.strategy WARPRED_ROWS_AUTO; plan.lanes is not read): a warp takes
   128 ranges at a time (fewer for large accumulators, and 32 when there are fewer such tiles
   than the GPU's resident warps, or 8 where tiles of 32 would be 1 to 2 a warp or fewer than a
   quarter of the warps); those of up to WARPRED_ROWS_RANGE_CHUNK elements (with fewer
   tiles than warps: up to 32 J, J = 16 up to 4-byte types, 64 / sizeof(T) for larger ones)
   are read together as one sequence, 32 J elements at a time, coalesced, through shared
   memory, each lane folding J elements in order and the lanes meeting in a segmented scan, so
   a tile of tiny ranges costs about what its elements cost; a longer range is cut in chunks
   that every warp takes from a queue in the scratch (RANGES in device_rows_kernel.cuh), so one
   huge range among tiny ones, or a few long ones, do not leave the GPU idle.
   Figures for every strategy and length: docs/BENCHMARKS.md (bench_segmented).

   DETERMINISM  The strategy depends only on the shape (rows, cols, ld, count), the plan and the
   GPU model; within a strategy which thread takes which element depends only on the shape and
   on the address of in modulo 16 (ranges: the tiles of 128, 32 or 8 ranges are chosen like a
   strategy, from count and the GPU's resident warps). So a call gives the same bits every time.
   The reproducible sum (warpred_op_rsum) gives the same bits under every strategy, and a slice's
   result equals warpred_device_reduce's over the same elements. Other float results may change
   in the last bits between strategies.

   ERRORS  cudaErrorInvalidValue (with a message) for: plan or out NULL, a plan not created,
   in NULL with elements to read (ranges: with count > 0, whatever the ranges), in not aligned to its type, ld < cols, begin or end NULL with
   count > 0, the accumulator larger than plan.value_bytes, a forced strategy or lane count that
   does not exist. cudaErrorInvalidDevice: the current device is not the plan's. Nothing is
   launched on an error.

   LIMITS  ranges: input elements of at most 64 bytes, and with elements of more than 48 bytes an
   accumulator of at most 48 bytes (a compile-time error beyond: the tiles' shared memory). rows, cols
   and count up to 2^31 (size_t arithmetic for offsets: rows * ld may exceed 2^32); the input is
   read through the read-only cache and must not change during the call. Ranges: the queue that
   lets every warp share long ranges holds WARPRED_ROWS_PARTIALS chunks of
   WARPRED_ROWS_RANGE_CHUNK elements (2^29 elements) a call; a long range it has no room left for
   is reduced by the warp that found it alone (the same bits, at one warp's speed: a single range
   of more than 2^29 elements is slow).

   This header needs device_rows_kernel.cuh, device_reduce_kernel.cuh, cluster_reduce.cuh,
   block_reducer.cuh, grid_reduce.cuh, grid_scratch.h, block_reduce.cuh, warp_reduce.cuh,
   transforms.cuh, ops.cuh and its base beside it.
*/
#ifndef WARPRED_DEVICE_ROWS_CUH
#define WARPRED_DEVICE_ROWS_CUH

#include "device_rows_kernel.cuh"

#ifndef __CUDACC_RTC__
#    include <stddef.h>
#    include <string.h>
#    include <cuda_runtime.h>

typedef enum warpred_rows_strategy {
    WARPRED_ROWS_AUTO = 0, /* chosen from the shape (the default) */
    WARPRED_ROWS_LANES,    /* plan.lanes lanes per slice (0: chosen from the length) */
    WARPRED_ROWS_BLOCK,    /* a block per slice */
    WARPRED_ROWS_CLUSTER,  /* a cluster of blocks per slice (sm_90+) */
    WARPRED_ROWS_SPLIT     /* several blocks per slice */
} warpred_rows_strategy;

enum {
    WARPRED_ROWS_CLUSTER_BLOCKS = 8, /* blocks per cluster of WARPRED_ROWS_CLUSTER */
    WARPRED_ROWS_PARTIALS = 1 << 16, /* partials in a plan's scratch */
    WARPRED_ROWS_TICKETS = 1 << 16   /* tickets: rows split over blocks, column tiles and their runs of parts */
};

static_assert((int)WARPRED_ROWS_PARTIALS <= (int)WARPRED_ROWS_QUEUE,
              "warpred_rows_plan: the ranges queue holds an entry for each partial (WARPRED_ROWS_QUEUE)");

typedef struct warpred_rows_plan {
    warpred__rows_scratch scratch; /* partials, tickets and the ranges queue */
    unsigned value_bytes;          /* the largest accumulator this plan serves */
    int device;                    /* the device the scratch lives on */
    unsigned sms;                  /* its multiprocessors */
    int clusters;                  /* 1 where the device has thread-block clusters (sm_90+) */
    int strategy;                  /* a warpred_rows_strategy: AUTO unless forced */
    int lanes;                     /* lanes per slice for WARPRED_ROWS_LANES: 1..32, 0: chosen */
} warpred_rows_plan;

static inline cudaError_t warpred_rows_plan_destroy(warpred_rows_plan *plan)
{
    cudaError_t a, b, c;
    if (!plan) return cudaErrorInvalidValue;
    a = cudaFree(plan->scratch.partials);
    b = cudaFree(plan->scratch.counters);
    c = cudaFree(plan->scratch.queue);
    memset(plan, 0, sizeof *plan);
    return a != cudaSuccess ? a : b != cudaSuccess ? b : c;
}

/* The plan's scratch for the current device, zeroed. value_bytes 0 means 64. On error *plan is
   zeroed and nothing stays allocated. */
static inline cudaError_t warpred_rows_plan_create(warpred_rows_plan *plan, unsigned value_bytes, const char **why)
{
    const char *ignored;
    int device = 0, sms = 0;
    cudaError_t err;
    if (!why) why = &ignored;
    *why = "no error";
    if (!plan) {
        *why = "warpred_rows_plan_create: plan is NULL";
        return cudaErrorInvalidValue;
    }
    memset(plan, 0, sizeof *plan);
    plan->value_bytes = value_bytes ? value_bytes : 64;
    const size_t words = WARPRED_ROWS_TICKETS + WARPRED__ROWS_WORDS;
    const size_t queue = WARPRED_ROWS_QUEUE * sizeof(warpred__rows_entry);
    err = cudaGetDevice(&device);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (err == cudaSuccess)
        err = cudaMalloc(&plan->scratch.partials, (size_t)WARPRED_ROWS_PARTIALS * plan->value_bytes);
    if (err == cudaSuccess) err = cudaMalloc((void **)&plan->scratch.counters, words * sizeof(unsigned));
    if (err == cudaSuccess) err = cudaMalloc((void **)&plan->scratch.queue, queue);
    if (err == cudaSuccess) err = cudaMemset(plan->scratch.counters, 0, words * sizeof(unsigned));
    if (err == cudaSuccess) err = cudaMemset(plan->scratch.queue, 0, queue);
    /* the zeroing runs in the default stream: wait, so that a launch into a non-blocking stream
       cannot read the tickets before */
    if (err == cudaSuccess) err = cudaStreamSynchronize(0);
    if (err != cudaSuccess) {
        *why = cudaGetErrorString(err);
        warpred_rows_plan_destroy(plan);
        return err;
    }
    plan->scratch.capacity = WARPRED_ROWS_PARTIALS;
    plan->scratch.tickets = WARPRED_ROWS_TICKETS;
    plan->device = device;
    plan->sms = (unsigned)(sms > 0 ? sms : 1);
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess)
        plan->clusters = major >= 9;
    return cudaSuccess;
}

/* Blocks of this kernel resident on the plan's device, asked once per kernel and device. */
template <auto Kernel> static inline unsigned warpred__rows_resident(const warpred_rows_plan *plan)
{
    enum { DEVICES = 64 };
    static int cached[DEVICES];
    int per_sm = plan->device >= 0 && plan->device < DEVICES ? cached[plan->device] : 0;
    if (per_sm == 0) {
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, WARPRED_ROWS_THREADS, 0) != cudaSuccess ||
            per_sm < 1) {
            cudaGetLastError(); /* not sticky; one block per SM, and ask again next time */
            return plan->sms;
        }
        if (plan->device >= 0 && plan->device < DEVICES) cached[plan->device] = per_sm;
    }
    return plan->sms * (unsigned)per_sm;
}

static inline unsigned warpred__rows_min(size_t a, size_t b) { return (unsigned)(a < b ? a : b); }

/* cudaLaunchKernel with the arguments' addresses: its result is this launch's own. */
template <typename... Args>
static inline cudaError_t warpred__rows_launch(const void *kernel, dim3 grid, Args... args, cudaStream_t stream)
{
    void *list[] = {(void *)&args...};
    return cudaLaunchKernel(kernel, grid, dim3(WARPRED_ROWS_THREADS), list, 0, stream);
}

/* The checks every entry point shares: NULL when the call may go ahead, else the message
   (*err set). */
static inline const char *warpred__rows_check(const warpred_rows_plan *plan, const void *in, bool reads,
                                              size_t in_align, const void *out, size_t state_bytes, const char *shape,
                                              cudaError_t *err)
{
    int device = -1;
    *err = cudaErrorInvalidValue;
    if (!plan) return "warpred_device_reduce_rows/_columns/_ranges: plan is NULL";
    if (!out) return "warpred_device_reduce_rows/_columns/_ranges: out is NULL";
    if (!plan->scratch.partials || !plan->scratch.counters || !plan->scratch.queue)
        return "warpred_device_reduce_rows/_columns/_ranges: the plan was not created (or was destroyed): call "
               "warpred_rows_plan_create";
    if (!in && reads) return "warpred_device_reduce_rows/_columns/_ranges: in is NULL and there are elements to read";
    if ((size_t)in % in_align != 0)
        return "warpred_device_reduce_rows/_columns/_ranges: in is not aligned to its type (alignof(T))";
    if (state_bytes > plan->value_bytes)
        return "warpred_device_reduce_rows/_columns/_ranges: the result (or the operation's accumulator) is larger "
               "than the plan's value_bytes (create the plan with value_bytes >= its size; 0 means 64)";
    if (plan->strategy < WARPRED_ROWS_AUTO || plan->strategy > WARPRED_ROWS_SPLIT)
        return "warpred_device_reduce_rows/_columns/_ranges: plan.strategy is not a warpred_rows_strategy";
    if (plan->lanes != 0 && plan->lanes != 1 && plan->lanes != 2 && plan->lanes != 4 && plan->lanes != 8 &&
        plan->lanes != 16 && plan->lanes != 32)
        return "warpred_device_reduce_rows/_columns/_ranges: plan.lanes must be 0, 1, 2, 4, 8, 16 or 32";
    if (shape) return shape;
    *err = cudaGetDevice(&device);
    if (*err != cudaSuccess) return cudaGetErrorString(*err);
    if (device != plan->device) {
        *err = cudaErrorInvalidDevice;
        return "warpred_device_reduce_rows/_columns/_ranges: the current device is not the one the plan was created "
               "on";
    }
    *err = cudaSuccess;
    return NULL;
}

/* The launch's result into *why and the return value. */
static inline cudaError_t warpred__rows_done(cudaError_t err, const char **why)
{
    if (err != cudaSuccess) {
        cudaGetLastError(); /* the failed launch also set the runtime's last error: returned here instead */
        *why = cudaGetErrorString(err);
        return err;
    }
    *why = "no error";
    return cudaSuccess;
}

/* g(identity) into out[0 .. count). */
template <typename R, typename Op, typename O, typename G>
static inline cudaError_t warpred__rows_identities(const warpred_rows_plan *plan, size_t count, O *out, Op op, G g,
                                                   cudaStream_t stream)
{
    const size_t blocks = (count + WARPRED_ROWS_THREADS - 1) / WARPRED_ROWS_THREADS;
    return warpred__rows_launch<size_t, O *, Op, G>((const void *)warpred__slices_identity_kernel<R, Op, O, G>,
                                                    dim3(warpred__rows_min(blocks, 4 * plan->sms)), count, out, op, g,
                                                    stream);
}

/* What a tree step costs against a load, for the choice of lanes per row. */
enum {
    WARPRED__ROWS_PLAIN, /* an accumulator the size of an element or a scalar (sums, max, floats summed in double) */
    WARPRED__ROWS_PAIR,  /* a struct of 8 bytes over smaller elements (argmax, softmax pairs) */
    WARPRED__ROWS_TWO,   /* two rows in flight, 9 to 16 bytes (float Welford) */
    WARPRED__ROWS_ONE    /* one row in flight, over 16 bytes (warpred_rsum, double Welford) */
};

template <typename T, typename A> static inline int warpred__rows_cost(void)
{
    switch ((int)warpred__rows_in_flight<A>::value) {
    case 1: return WARPRED__ROWS_ONE;
    case 2: return WARPRED__ROWS_TWO;
    default: return __is_class(A) && sizeof(A) == 8 && sizeof(T) < 8 ? WARPRED__ROWS_PAIR : WARPRED__ROWS_PLAIN;
    }
}

/* Lanes per row for rows of nv loads (measured on an H200 over 2^26 floats or doubles, every
   lane count forced; us against the old rule's in parentheses):
   - PLAIN: one lane for rows of one or two loads; a load per lane up to 8 lanes (a group reads
     its row in one coalesced step, four rows in flight); 8 lanes up to 127 loads (a warp a
     row: 2-3% slower at 64 loads); then a warp;
   - PAIR: two loads a lane or more up to 8 lanes, then as PLAIN (argmax rows of 16, 32, 128,
     256 floats: 84.8, 86.5, 76.5, 73.2 (92.8, 104.4, 97.4, 80.6));
   - TWO: one lane up to 4 loads, then as few lanes (2 or more) as leave 16 loads a lane or
     fewer (float Welford rows of 32 to 1024 floats 90-106 (105-280));
   - ONE: one lane up to 15 loads, then as few lanes (2 or more) as leave at most two of the
     groups the GPU holds (resident_threads / W) for every row (reproducible sums of rows of 128
     to 4096 floats 73-83 (92-105)). */
static inline int warpred__rows_lanes_for(size_t nv, size_t rows, size_t resident_threads, int cost)
{
    int w = 2;
    switch (cost) {
    case WARPRED__ROWS_ONE:
        if (nv < 16) return 1;
        while (w < 32 && (size_t)w * 2 * rows < resident_threads) w *= 2;
        return w;
    case WARPRED__ROWS_TWO:
        if (nv <= 4) return 1;
        while (w < 32 && (size_t)w * 16 < nv) w *= 2;
        return w;
    case WARPRED__ROWS_PAIR:
        if (nv <= 2) return 1;
        if (nv >= 16) break;
        while (w < 8 && (size_t)w * 4 <= nv) w *= 2;
        return w;
    default: break;
    }
    if (nv <= 2) return 1;
    if (nv <= 4) return 4;
    if (nv < 128) return 8;
    return 32;
}

/* The short rows' kernel for rows of S (1 or 2) 16-byte loads. */
template <int S, typename T, typename R, typename Op, typename F, typename O, typename G>
static inline cudaError_t warpred__rows_short(const warpred_rows_plan *plan, const T *in, size_t rows, size_t cols,
                                              size_t ld, O *out, Op op, F f, G g, cudaStream_t stream)
{
    constexpr auto kernel = warpred__rows_short_kernel<S, T, R, Op, F, O, G>;
    const size_t blocks = (rows + 4 * WARPRED_ROWS_THREADS - 1) / (4 * WARPRED_ROWS_THREADS);
    return warpred__rows_launch<const T *, size_t, size_t, size_t, O *, Op, F, G>(
        (const void *)kernel, dim3(warpred__rows_min(blocks, warpred__rows_resident<kernel>(plan))), in, rows, cols, ld,
        out, op, f, g, stream);
}

template <int W, typename T, typename R, typename Op, typename F, typename O, typename G>
static inline cudaError_t warpred__rows_lanes(const warpred_rows_plan *plan, const T *in, size_t rows, size_t cols,
                                              size_t ld, bool aligned, O *out, Op op, F f, G g, cudaStream_t stream)
{
    typedef typename warpred_op_accumulator<Op, R>::type A;
    enum { K = warpred__per_vector<T>::value };
    /* the short rows' kernel where it measured faster (H200, 2^26 elements): for one row in
       flight with results of up to 8 bytes (reproducible sums of rows of 4 and 8 floats 155 and
       112 us -> 115 and 94); not for wider results (double Welford rows of 2 and 4 doubles 363
       and 241 -> 396 and 262 us) nor two rows in flight (float Welford: as fast or slower) */
    if constexpr (W == 1 && warpred__rows_in_flight<A>::value == 1 && sizeof(O) <= 8 && K != 0)
        if (aligned && cols >= K && cols < 3 * K)
            return cols < 2 * K ? warpred__rows_short<1, T, R>(plan, in, rows, cols, ld, out, op, f, g, stream)
                                : warpred__rows_short<2, T, R>(plan, in, rows, cols, ld, out, op, f, g, stream);
    const size_t rows_per_block = (size_t)(WARPRED_ROWS_THREADS / W) * warpred__rows_in_flight<A>::value;
    const size_t blocks = (rows + rows_per_block - 1) / rows_per_block;
    constexpr auto kernel = warpred__rows_lanes_kernel<W, T, R, Op, F, O, G>;
    return warpred__rows_launch<const T *, size_t, size_t, size_t, bool, O *, Op, F, G>(
        (const void *)kernel, dim3(warpred__rows_min(blocks, warpred__rows_resident<kernel>(plan))), in, rows, cols, ld,
        aligned, out, op, f, g, stream);
}

/* fn(warpred__lanes<W>()) with W = w (1, 2, 4, 8, 16; anything else: 32): the lanes per slice
   of the rows' and the ranges' kernels are a template argument, chosen here from a run-time
   count. */
template <int W> struct warpred__lanes {
    enum { value = W };
};

template <typename Fn> static inline cudaError_t warpred__with_lanes(int w, Fn fn)
{
    switch (w) {
    case 1: return fn(warpred__lanes<1>());
    case 2: return fn(warpred__lanes<2>());
    case 4: return fn(warpred__lanes<4>());
    case 8: return fn(warpred__lanes<8>());
    case 16: return fn(warpred__lanes<16>());
    default: return fn(warpred__lanes<32>());
    }
}

/* Rows of P elements packed in 16-byte loads, or an error when this T has no such form. */
template <int P, typename T, typename R, typename Op, typename F, typename O, typename G>
static inline cudaError_t warpred__rows_packed(const warpred_rows_plan *plan, const T *in, size_t rows, O *out, Op op,
                                               F f, G g, cudaStream_t stream)
{
    enum { K = warpred__per_vector<T>::value };
    if constexpr (K == 0 || K % P != 0 || K == P) {
        return cudaErrorInvalidValue;
    } else {
        constexpr auto kernel = warpred__rows_packed_kernel<P, T, R, Op, F, O, G>;
        const size_t blocks = (rows / (K / P) + WARPRED_ROWS_THREADS) / WARPRED_ROWS_THREADS;
        return warpred__rows_launch<const T *, size_t, O *, Op, F, G>(
            (const void *)kernel, dim3(warpred__rows_min(blocks, 4 * warpred__rows_resident<kernel>(plan))), in, rows,
            out, op, f, g, stream);
    }
}

/* The strategy AUTO picks for rows (measured on an H200 over 2^26 floats, docs: bench_segmented):
   lanes for rows of fewer than 32 loads; a warp per row while the rows fill the GPU's warps;
   a block per row while they fill its blocks; a cluster per row while the clusters fill half
   of them; several blocks per row below that, and in place of clusters for accumulators over
   16 bytes. */
static inline int warpred__rows_auto(const warpred_rows_plan *plan, size_t rows, size_t nv, unsigned resident_blocks,
                                     bool large)
{
    const size_t warps = (size_t)resident_blocks * (WARPRED_ROWS_THREADS / 32);
    if (nv < 32) return WARPRED_ROWS_LANES;
    /* a warp a row with one row in flight (warpred_rsum): rows of 16384 floats, nearly a row a
       resident warp, 74 us against 92 in a block a row */
    if (nv <= 4096 && (rows >= warps || (large && 4 * rows >= 3 * warps))) return WARPRED_ROWS_LANES;
    /* a row per SM or more keeps every SM streaming through a block per row (measured faster
       than clusters from one row per SM up) */
    if (rows >= resident_blocks || rows >= plan->sms) return WARPRED_ROWS_BLOCK;
    /* accumulators over 16 bytes: several blocks a row, each with one chunk, rather than a
       cluster (H200, 2^26 floats in 64 rows: the reproducible sum 95.5 -> 83.5 us; doubles,
       double Welford 202 -> 150) */
    if (plan->clusters && 2 * rows * WARPRED_ROWS_CLUSTER_BLOCKS >= resident_blocks &&
        !(large && rows <= plan->scratch.tickets))
        return WARPRED_ROWS_CLUSTER;
    if (rows > plan->scratch.tickets) return WARPRED_ROWS_BLOCK;
    return WARPRED_ROWS_SPLIT;
}

template <typename T, typename R, typename Op, typename F, typename O, typename G>
static inline cudaError_t warpred__rows_split(const warpred_rows_plan *plan, const T *in, size_t rows, size_t cols,
                                              size_t ld, O *out, Op op, F f, G g, cudaStream_t stream)
{
    enum { K = warpred__per_vector<T>::value != 0 ? (int)warpred__per_vector<T>::value : 1 };
    constexpr auto kernel = warpred__rows_split_kernel<T, R, Op, F, O, G>;
    const unsigned resident = warpred__rows_resident<kernel>(plan);
    /* about eight items per resident block (fewer leave a tail of blocks with one item more
       than others), chunks a multiple of the block's loads, at least 4 loads per thread, and
       rows * chunks partials at most. Accumulators over 16 bytes (warpred_rsum, double
       Welford): one item per resident block at most, never a second wave, as each item's block
       tree and fold cost more there (H200, 2^26 floats in 4 rows, the reproducible sum 116 ->
       82 us; doubles, double Welford 201 -> 149) */
    typedef typename warpred_op_accumulator<Op, R>::type A;
    const size_t step = (size_t)WARPRED_ROWS_THREADS * K;
    size_t per_row = warpred__rows_in_flight<A>::value == 1 ? (resident > rows ? resident / rows : 1)
                                                            : (8 * (size_t)resident + rows - 1) / rows;
    size_t chunk = (cols + per_row - 1) / per_row;
    chunk = (chunk + step - 1) / step * step;
    if (chunk < 4 * step) chunk = 4 * step;
    size_t chunks = (cols + chunk - 1) / chunk;
    if (rows * chunks > plan->scratch.capacity) {
        chunks = plan->scratch.capacity / rows;
        chunk = ((cols + chunks - 1) / chunks + step - 1) / step * step;
        chunks = (cols + chunk - 1) / chunk;
    }
    const unsigned nchunks = (unsigned)chunks;
    return warpred__rows_launch<const T *, size_t, size_t, size_t, size_t, unsigned, warpred__rows_scratch, O *, Op, F,
                                G>((const void *)kernel, dim3(warpred__rows_min(rows * chunks, resident)), in, rows,
                                   cols, ld, chunk, nchunks, plan->scratch, out, op, f, g, stream);
}

/* Clusters of WARPRED_ROWS_CLUSTER_BLOCKS blocks, a row each in turn, at most a wave of them. */
template <typename T, typename R, typename Op, typename F, typename O, typename G>
static inline cudaError_t warpred__rows_cluster(const warpred_rows_plan *plan, const T *in, size_t rows, size_t cols,
                                                size_t ld, O *out, Op op, F f, G g, cudaStream_t stream)
{
    enum { C = WARPRED_ROWS_CLUSTER_BLOCKS };
    constexpr auto kernel = warpred__rows_cluster_kernel<C, T, R, Op, F, O, G>;
    const size_t resident = warpred__rows_resident<kernel>(plan) / C * C;
    const size_t blocks = rows * C < resident ? rows * C : (resident > 0 ? resident : (size_t)C);
    cudaLaunchAttribute cluster = {};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = C;
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((unsigned)blocks);
    config.blockDim = dim3(WARPRED_ROWS_THREADS);
    config.stream = stream;
    config.attrs = &cluster;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, kernel, in, rows, cols, ld, out, op, f, g);
}

template <typename T, typename R, typename Op, typename F, typename O, typename G>
static inline cudaError_t warpred__reduce_rows(const warpred_rows_plan *plan, const T *in, size_t rows, size_t cols,
                                               size_t ld, O *out, Op op, F f, G g, cudaStream_t stream,
                                               const char **why)
{
    typedef warpred_op_accumulator<Op, R> Acc;
    typedef typename Acc::type A;
    enum { K = warpred__per_vector<T>::value };
    cudaError_t err;
    if constexpr (!(warpred__value_ok<R>() && warpred__value_ok<A>() && warpred__identity_ok<Op, A>())) {
        *why = "warpred_device_reduce_rows: the value type or operation was rejected at compile time";
        return cudaErrorInvalidValue; /* not reached: the static_assert above stops the build */
    } else {
        const char *shape = NULL;
        if (ld < cols)
            shape = "warpred_device_reduce_rows: ld (elements from one row to the next) is smaller than cols";
        else if (plan && plan->strategy == WARPRED_ROWS_SPLIT && cols > 0 && rows > plan->scratch.tickets)
            shape = "warpred_device_reduce_rows: WARPRED_ROWS_SPLIT serves at most WARPRED_ROWS_TICKETS rows per call";
        *why = warpred__rows_check(plan, in, rows > 0 && cols > 0, alignof(T), out, sizeof(A), shape, &err);
        if (*why) return err;
        if (rows == 0) return warpred__rows_done(cudaSuccess, why);
        if (cols == 0) return warpred__rows_done(warpred__rows_identities<R>(plan, rows, out, op, g, stream), why);
        const bool aligned = K != 0 && (size_t)in % 16 == 0 && ld * sizeof(T) % 16 == 0;
        const size_t nv = aligned ? cols / K : cols;
        constexpr auto block_kernel = warpred__rows_block_kernel<T, R, Op, F, O, G>;
        const unsigned resident = warpred__rows_resident<block_kernel>(plan);
        const int cost = warpred__rows_cost<T, A>();
        const int strategy = plan->strategy == WARPRED_ROWS_AUTO
                                 ? warpred__rows_auto(plan, rows, nv, resident, cost == WARPRED__ROWS_ONE)
                                 : plan->strategy;
        /* rows shorter than a load, back to back: several rows per load */
        const bool packed = K > cols && K % cols == 0 && ld == cols && (size_t)in % 16 == 0;
        if (packed && strategy == WARPRED_ROWS_LANES && (plan->lanes == 0 || plan->lanes == 1)) {
            switch (cols) {
            case 1: err = warpred__rows_packed<1, T, R>(plan, in, rows, out, op, f, g, stream); break;
            case 2: err = warpred__rows_packed<2, T, R>(plan, in, rows, out, op, f, g, stream); break;
            case 4: err = warpred__rows_packed<4, T, R>(plan, in, rows, out, op, f, g, stream); break;
            default: err = warpred__rows_packed<8, T, R>(plan, in, rows, out, op, f, g, stream); break;
            }
            return warpred__rows_done(err, why);
        }
        switch (strategy) {
        case WARPRED_ROWS_LANES: {
            /* the lanes kernel's residency (its registers hardly change with W) */
            constexpr auto lanes_kernel = warpred__rows_lanes_kernel<2, T, R, Op, F, O, G>;
            const int w =
                plan->lanes
                    ? plan->lanes
                    : warpred__rows_lanes_for(
                          nv, rows, (size_t)warpred__rows_resident<lanes_kernel>(plan) * WARPRED_ROWS_THREADS, cost);
            err = warpred__with_lanes(w, [&](auto lanes) {
                return warpred__rows_lanes<decltype(lanes)::value, T, R>(plan, in, rows, cols, ld, aligned, out, op, f,
                                                                         g, stream);
            });
            break;
        }
        case WARPRED_ROWS_BLOCK:
            err = warpred__rows_launch<const T *, size_t, size_t, size_t, O *, Op, F, G>(
                (const void *)block_kernel, dim3(warpred__rows_min(rows, resident)), in, rows, cols, ld, out, op, f, g,
                stream);
            break;
        case WARPRED_ROWS_SPLIT:
            err = warpred__rows_split<T, R>(plan, in, rows, cols, ld, out, op, f, g, stream);
            break;
        default:
            if (!plan->clusters) {
                *why = "warpred_device_reduce_rows: WARPRED_ROWS_CLUSTER needs thread-block clusters (a GPU of "
                       "compute capability 9.0 or newer)";
                return cudaErrorNotSupported;
            }
            err = warpred__rows_cluster<T, R>(plan, in, rows, cols, ld, out, op, f, g, stream);
            break;
        }
        return warpred__rows_done(err, why);
    }
}

/* ---- the public calls: rows ---- */

template <typename T, typename O, typename Op, typename F, typename G>
static inline cudaError_t warpred_device_transform_reduce_rows(const warpred_rows_plan *plan, const T *in, size_t rows,
                                                               size_t cols, size_t ld, O *out, Op op, F f, G g,
                                                               cudaStream_t stream = 0, const char **why = NULL)
{
    typedef typename warpred__decay<decltype(f(*in, (size_t)0))>::type R;
    const char *ignored;
    if (!why) why = &ignored;
    *why = NULL;
    return warpred__reduce_rows<T, R>(plan, in, rows, cols, ld, out, op, f, g, stream, why);
}

template <typename T, typename O, typename Op>
static inline cudaError_t warpred_device_reduce_rows(const warpred_rows_plan *plan, const T *in, size_t rows,
                                                     size_t cols, size_t ld, O *out, Op op, cudaStream_t stream = 0,
                                                     const char **why = NULL)
{
    const char *ignored;
    if (!why) why = &ignored;
    *why = NULL;
    return warpred__reduce_rows<T, O>(plan, in, rows, cols, ld, out, op, warpred_xf_identity(), warpred_fin_identity(),
                                      stream, why);
}


/* ---- columns ---- */

/* Tiles of at most `widest` column groups, as even as they can be (a tile of a few groups beside
   full ones would leave most of its blocks' threads idle): X groups a tile, X <= widest. */
static inline unsigned warpred__columns_tile(size_t groups, unsigned widest)
{
    const size_t tiles = (groups + widest - 1) / widest;
    return (unsigned)((groups + tiles - 1) / tiles);
}

template <int XC, int C, typename T, typename R, typename Op, typename F, typename O, typename G>
static inline cudaError_t warpred__columns_launch(const warpred_rows_plan *plan, const T *in, size_t rows, size_t cols,
                                                  size_t ld, size_t groups, unsigned X, O *out, Op op, F f, G g,
                                                  cudaStream_t stream)
{
    constexpr auto kernel = warpred__columns_kernel<XC, C, T, R, Op, F, O, G>;
    const size_t Y = WARPRED_ROWS_THREADS / X, tiles = (groups + X - 1) / X;
    const size_t resident = warpred__rows_resident<kernel>(plan);
    /* parts of the rows: about one block per resident block in all, each part at least 64 rows
       per row lane; within the scratch the parts' partials, and beyond WARPRED__COLUMNS_FAN
       parts the runs' values (a run: FAN parts) and a ticket per run beside each tile's */
    size_t parts = (resident + tiles - 1) / tiles;
    const size_t most = rows / (Y * 64);
    if (parts > most) parts = most;
    const size_t stride = warpred__columns_stride<C>(cols), fan = WARPRED__COLUMNS_FAN;
    const auto runs_of = [fan](size_t p) { return (p + fan - 1) / fan; };
    const size_t room = plan->scratch.capacity / stride; /* partials and runs' values */
    if (parts > fan && parts + runs_of(parts) > room) parts = room > fan ? room * fan / (fan + 1) : room;
    else if (parts > room)
        parts = room;
    if (parts > 65535) parts = 65535;
    if (tiles > plan->scratch.tickets) parts = 1;
    else if (parts > fan) {
        const size_t per = plan->scratch.tickets / tiles; /* a tile's own ticket and its runs' */
        if (1 + runs_of(parts) > per) parts = per >= 2 ? fan * (per - 1) : fan;
    }
    if (parts < 1) parts = 1;
    const size_t part_rows = (rows + parts - 1) / parts;
    parts = (rows + part_rows - 1) / part_rows;
    if (tiles > 0x7fffffffu) return cudaErrorInvalidValue;
    return warpred__rows_launch<const T *, size_t, size_t, size_t, unsigned, size_t, warpred__rows_scratch, O *, Op, F,
                                G>((const void *)kernel, dim3((unsigned)tiles, (unsigned)parts), in, rows, cols, ld, X,
                                   part_rows, plan->scratch, out, op, f, g, stream);
}

template <typename T, typename R, typename Op, typename F, typename O, typename G>
static inline cudaError_t warpred__reduce_columns(const warpred_rows_plan *plan, const T *in, size_t rows, size_t cols,
                                                  size_t ld, O *out, Op op, F f, G g, cudaStream_t stream,
                                                  const char **why)
{
    typedef warpred_op_accumulator<Op, R> Acc;
    typedef typename Acc::type A;
    enum {
        K = warpred__per_vector<T>::value,
        /* K columns per thread while the row lanes' cells fit in 32 KiB of shared memory */
        C = K > 1 && (size_t)K * WARPRED_ROWS_THREADS * sizeof(A) <= 32768 ? K : 1
    };
    cudaError_t err;
    if constexpr (!(warpred__value_ok<R>() && warpred__value_ok<A>() && warpred__identity_ok<Op, A>())) {
        *why = "warpred_device_reduce_columns: the value type or operation was rejected at compile time";
        return cudaErrorInvalidValue;
    } else {
        *why = warpred__rows_check(
            plan, in, rows > 0 && cols > 0, alignof(T), out, sizeof(A),
            ld < cols ? "warpred_device_reduce_columns: ld (elements from one row to the next) is smaller than cols"
                      : NULL,
            &err);
        if (*why) return err;
        if (cols == 0) return warpred__rows_done(cudaSuccess, why);
        if (rows == 0) return warpred__rows_done(warpred__rows_identities<R>(plan, cols, out, op, g, stream), why);
        const bool vectors = C > 1 && (size_t)in % 16 == 0 && ld * sizeof(T) % 16 == 0;
        const size_t groups = vectors ? (cols + C - 1) / C : cols;
        enum { WIDE = 32 * C <= WARPRED_ROWS_THREADS ? 32 : WARPRED_ROWS_THREADS / C }; /* a tile: <= 256 columns */
        /* full tiles with X known at compile time; other widths (narrow matrices, uneven
           tiles) with X a run-time value */
        const unsigned X = warpred__columns_tile(groups, vectors ? WIDE : 32);
        if (vectors)
            err =
                X == WIDE
                    ? warpred__columns_launch<WIDE, C, T, R>(plan, in, rows, cols, ld, groups, X, out, op, f, g, stream)
                    : warpred__columns_launch<0, C, T, R>(plan, in, rows, cols, ld, groups, X, out, op, f, g, stream);
        else
            err = X == 32
                      ? warpred__columns_launch<32, 1, T, R>(plan, in, rows, cols, ld, groups, X, out, op, f, g, stream)
                      : warpred__columns_launch<0, 1, T, R>(plan, in, rows, cols, ld, groups, X, out, op, f, g, stream);
        return warpred__rows_done(err, why);
    }
}

template <typename T, typename O, typename Op, typename F, typename G>
static inline cudaError_t
warpred_device_transform_reduce_columns(const warpred_rows_plan *plan, const T *in, size_t rows, size_t cols, size_t ld,
                                        O *out, Op op, F f, G g, cudaStream_t stream = 0, const char **why = NULL)
{
    typedef typename warpred__decay<decltype(f(*in, (size_t)0))>::type R;
    const char *ignored;
    if (!why) why = &ignored;
    *why = NULL;
    return warpred__reduce_columns<T, R>(plan, in, rows, cols, ld, out, op, f, g, stream, why);
}

template <typename T, typename O, typename Op>
static inline cudaError_t warpred_device_reduce_columns(const warpred_rows_plan *plan, const T *in, size_t rows,
                                                        size_t cols, size_t ld, O *out, Op op, cudaStream_t stream = 0,
                                                        const char **why = NULL)
{
    const char *ignored;
    if (!why) why = &ignored;
    *why = NULL;
    return warpred__reduce_columns<T, O>(plan, in, rows, cols, ld, out, op, warpred_xf_identity(),
                                         warpred_fin_identity(), stream, why);
}

/* ---- ranges ---- */

template <typename T, typename R, typename Op, typename F, typename O, typename G>
static inline cudaError_t warpred__ranges_launch(const warpred_rows_plan *plan, const T *in, const size_t *begin,
                                                 const size_t *end, size_t count, O *out, Op op, F f, G g,
                                                 cudaStream_t stream)
{
    constexpr auto kernel = warpred__ranges_kernel<T, R, Op, F, O, G>;
    /* every resident block, however few the ranges: a few long ranges need every warp's help */
    return warpred__rows_launch<const T *, const size_t *, const size_t *, size_t, warpred__rows_scratch, O *, Op, F,
                                G>((const void *)kernel, dim3(warpred__rows_resident<kernel>(plan)), in, begin, end,
                                   count, plan->scratch, out, op, f, g, stream);
}

template <typename T, typename R, typename Op, typename F, typename O, typename G>
static inline cudaError_t warpred__reduce_ranges(const warpred_rows_plan *plan, const T *in, const size_t *begin,
                                                 const size_t *end, size_t count, O *out, Op op, F f, G g,
                                                 cudaStream_t stream, const char **why)
{
    typedef warpred_op_accumulator<Op, R> Acc;
    typedef typename Acc::type A;
    cudaError_t err;
    if constexpr (!(warpred__value_ok<R>() && warpred__value_ok<A>() && warpred__identity_ok<Op, A>())) {
        *why = "warpred_device_reduce_ranges: the value type or operation was rejected at compile time";
        return cudaErrorInvalidValue;
    } else {
        /* in may be NULL only when every range is empty, which the host cannot see: ask for it */
        const char *shape = NULL;
        if (count > 0 && (!begin || !end)) shape = "warpred_device_reduce_ranges: begin or end is NULL and count > 0";
        if (plan && plan->strategy != WARPRED_ROWS_AUTO)
            shape = "warpred_device_reduce_ranges: ranges take WARPRED_ROWS_AUTO only (each range's length chooses "
                    "how it is read)";
        *why = warpred__rows_check(plan, in, count > 0, alignof(T), out, sizeof(A), shape, &err);
        if (*why) return err;
        if (count == 0) return warpred__rows_done(cudaSuccess, why);
        err = warpred__ranges_launch<T, R>(plan, in, begin, end, count, out, op, f, g, stream);
        return warpred__rows_done(err, why);
    }
}

template <typename T, typename O, typename Op, typename F, typename G>
static inline cudaError_t warpred_device_transform_reduce_ranges(const warpred_rows_plan *plan, const T *in,
                                                                 const size_t *begin, const size_t *end, size_t count,
                                                                 O *out, Op op, F f, G g, cudaStream_t stream = 0,
                                                                 const char **why = NULL)
{
    typedef typename warpred__decay<decltype(f(*in, (size_t)0))>::type R;
    const char *ignored;
    if (!why) why = &ignored;
    *why = NULL;
    return warpred__reduce_ranges<T, R>(plan, in, begin, end, count, out, op, f, g, stream, why);
}

template <typename T, typename O, typename Op>
static inline cudaError_t warpred_device_reduce_ranges(const warpred_rows_plan *plan, const T *in, const size_t *begin,
                                                       const size_t *end, size_t count, O *out, Op op,
                                                       cudaStream_t stream = 0, const char **why = NULL)
{
    const char *ignored;
    if (!why) why = &ignored;
    *why = NULL;
    return warpred__reduce_ranges<T, O>(plan, in, begin, end, count, out, op, warpred_xf_identity(),
                                        warpred_fin_identity(), stream, why);
}
#endif /* __CUDACC_RTC__ */

#endif /* WARPRED_DEVICE_ROWS_CUH */
