/* samples/common/sample_util.h - the scaffolding the samples share, so that each samples/NAME/main.cu
   keeps only what it teaches. Host code in the plain CUDA C idiom (printf, static inline functions, a
   few macros). Not part of the library: the names start with su_ (the one exception is CHECK, kept
   short because every CUDA call of a sample goes through it).

   A sample includes it as "../common/sample_util.h": nvcc finds it next to the sample's main.cu, so
   the one-line nvcc commands in the samples' READMEs need nothing more. A sample copied out of the
   repository takes this file along. It includes <stdio.h>, <stdlib.h>, <string.h> and
   <cuda_runtime.h>.

   What it offers:
     CHECK(call)                   a CUDA runtime call that must succeed; on an error: "file:line:
                                   call: error text" on stderr, exit status 1
     su_require_gpu(name)          no usable GPU: "name: no usable CUDA GPU (why), so nothing was run."
                                   and exit status 1; otherwise the current device's properties
     su_wave_blocks(&prop, block)  how many blocks of `block` threads the GPU holds at once (one wave)
     su_skip(format, ...)          for a sample that cannot run here (a missing package, too few GPUs):
                                   prints "SKIPPED: ..." and returns 0, the exit status that goes with it
     su_env_flag(name)             an environment variable set to anything but "" or "0"
     su_quick()                    WARPRED_SAMPLE_QUICK=1 (make test, make sanitize): use small sizes
     su_warmups(quick), su_runs(quick)
                                   the repetitions of a timing: 3 warm-ups and 21 timed runs, quick 1 and 3
     su_timer_*                    CUDA-event timing: the median of the timed runs, after warm-ups
     su_median(values, count)      the median of `count` doubles (sorts them)
     su_malloc(bytes)              malloc, or "out of host memory" and exit status 1
     su_float_bits, su_bits_float  a float's bit pattern, and the float of a bit pattern
     su_lcg_next, su_random, su_random_unit
                                   a small deterministic random generator for the inputs
   (samples/python/main.py reads WARPRED_SAMPLE_QUICK the same way and times with events the same way.) */
#ifndef SAMPLE_UTIL_H
#define SAMPLE_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

/* ------------------------------------------------------------------ errors */

static inline void su_check_failed(cudaError_t err, const char *call, const char *file, int line)
{
    fprintf(stderr, "%s:%d: %s: %s\n", file, line, call, cudaGetErrorString(err));
    exit(1);
}

#define CHECK(call)                                                                      \
    do {                                                                                 \
        const cudaError_t su_err_ = (call);                                              \
        if (su_err_ != cudaSuccess) su_check_failed(su_err_, #call, __FILE__, __LINE__); \
    } while (0)

/* malloc that never returns NULL: without the memory the sample cannot go on. */
static inline void *su_malloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    return p;
}

/* ------------------------------------------------------------------ the GPU */

/* Run alone on a machine without a usable GPU, a sample says so in one sentence and fails (make test
   and make run ask tests/gpu_probe first, and do not run the samples there). Returns the properties
   of the current device. */
static inline cudaDeviceProp su_require_gpu(const char *sample)
{
    int count = 0, device = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        printf("%s: no usable CUDA GPU (%s), so nothing was run.\n", sample,
               err != cudaSuccess ? cudaGetErrorString(err) : "no device found");
        exit(1);
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaGetDeviceProperties(&prop, device));
    return prop;
}

/* Blocks of `block` threads resident on the whole GPU at once, when nothing else limits them: the
   grid of a kernel that loops over its data (grid-stride) and fills the GPU exactly once. */
static inline unsigned su_wave_blocks(const cudaDeviceProp *prop, int block)
{
    return (unsigned)(prop->multiProcessorCount * (prop->maxThreadsPerMultiProcessor / block));
}

/* A sample that cannot run here prints one line starting "SKIPPED:" and exits 0 (tests/run.sh counts
   it as skipped, never as passed):  return su_skip("NAME: why", ...);  */
static inline int su_skip(const char *format, ...) __attribute__((format(printf, 1, 2)));
static inline int su_skip(const char *format, ...)
{
    va_list args;
    printf("SKIPPED: ");
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    printf("\n");
    return 0;
}

/* ------------------------------------------------------------------ sizes */

/* 1 when the environment variable is set to anything but "" or "0". */
static inline int su_env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] && strcmp(v, "0") != 0;
}

/* WARPRED_SAMPLE_QUICK=1: small sizes and few repetitions (make test, make sanitize). Each sample
   picks its own sizes; the READMEs say which. */
static inline int su_quick(void) { return su_env_flag("WARPRED_SAMPLE_QUICK"); }

/* The repetitions of a timing: 3 untimed warm-up runs, then the median of 21 timed ones; 1 and 3
   when quick (the figures then mean little: the run only checks). */
static inline int su_warmups(int quick) { return quick ? 1 : 3; }
static inline int su_runs(int quick) { return quick ? 3 : 21; }

/* ------------------------------------------------------------------ timing */

static inline int su_cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of count values (the upper one of the middle two when count is even); sorts them. */
static inline double su_median(double *values, int count)
{
    qsort(values, (size_t)count, sizeof values[0], su_cmp_double);
    return values[count / 2];
}

/* Timing with CUDA events on the default stream. Each run is the work between su_timer_next and the
   next su_timer_next (or su_timer_stop); su_timer_next waits for the run before it, so runs never
   overlap. The first `warmups` runs are not counted.

       su_timer t = su_timer_create(warmups, runs);
       while (su_timer_next(&t)) work();                 every call of work() one run
       const double us = su_timer_median_us(&t);

   Work that must stay out of the time (resetting an output, say) goes after su_timer_stop:

       while (su_timer_next(&t)) { work(); su_timer_stop(&t); reset(); }                           */
enum { SU_MAX_RUNS = 32 };

typedef struct su_timer {
    cudaEvent_t start, stop;
    int warmups, runs;
    int started;            /* runs started so far, warm-ups included */
    int open;               /* the last run started has not been stopped yet */
    double us[SU_MAX_RUNS]; /* the timed runs, in microseconds */
} su_timer;

static inline su_timer su_timer_create(int warmups, int runs)
{
    su_timer t;
    memset(&t, 0, sizeof t);
    if (warmups < 0 || runs < 1 || runs > SU_MAX_RUNS) {
        fprintf(stderr, "su_timer_create: %d warm-ups and %d timed runs (1 to %d)\n", warmups, runs, SU_MAX_RUNS);
        exit(1);
    }
    t.warmups = warmups;
    t.runs = runs;
    CHECK(cudaEventCreate(&t.start));
    CHECK(cudaEventCreate(&t.stop));
    return t;
}

/* Ends the open run, if any: waits for it and, past the warm-ups, keeps its time. */
static inline void su_timer_stop(su_timer *t)
{
    if (!t->open) return;
    t->open = 0;
    CHECK(cudaEventRecord(t->stop));
    CHECK(cudaEventSynchronize(t->stop));
    const int timed = t->started - 1 - t->warmups; /* this run's place among the timed ones */
    if (timed >= 0) {
        float ms;
        CHECK(cudaEventElapsedTime(&ms, t->start, t->stop));
        t->us[timed] = 1000.0 * ms;
    }
}

/* Ends the open run (su_timer_stop), then starts the next one and returns 1; 0 after the last. */
static inline int su_timer_next(su_timer *t)
{
    su_timer_stop(t);
    if (t->started == t->warmups + t->runs) return 0;
    t->started++;
    t->open = 1;
    CHECK(cudaEventRecord(t->start));
    return 1;
}

/* After the last run: the median time of the timed runs, in microseconds; frees the events. */
static inline double su_timer_median_us(su_timer *t)
{
    su_timer_stop(t);
    CHECK(cudaEventDestroy(t->start));
    CHECK(cudaEventDestroy(t->stop));
    return su_median(t->us, t->runs);
}

/* ------------------------------------------------------------------ data */

/* A float's bit pattern, and back (memcpy: the portable way to reinterpret). */
static inline unsigned su_float_bits(float x)
{
    unsigned b;
    memcpy(&b, &x, sizeof b);
    return b;
}
static inline float su_bits_float(unsigned b)
{
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* A small deterministic generator for the inputs, so that every run sees the same data: a 64-bit
   linear congruential step (multiplier and increment from Knuth's MMIX). Its low bits are weak:
   use the high ones, as su_random and su_random_unit do. The state is the caller's, seeded by it. */
static inline unsigned long long su_lcg_next(unsigned long long *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state;
}

/* A pseudo-random integer in [0, 2^31). */
static inline unsigned su_random(unsigned long long *state) { return (unsigned)(su_lcg_next(state) >> 33); }

/* A pseudo-random double in [0, 1), on the grid of 2^-53. */
static inline double su_random_unit(unsigned long long *state) { return (double)(su_lcg_next(state) >> 11) * 0x1p-53; }

#endif /* SAMPLE_UTIL_H */
