/* tests/wt.h - shared helpers for warpred's cmocka tests (host side).

   - cmocka include with the extern "C" guard cmocka 1.1.5 lacks
   - WT_CUDA(call): fail the test with the CUDA error string unless call returns cudaSuccess
   - WT_LAUNCHED(): check cudaGetLastError() and the kernel's completion after a launch
   - wt_group_setup / WT_NEED_GPU: probe the GPU once per group; GPU tests skip without one
   - wt_rand*: fresh random numbers each run (seed printed; WARPRED_SEED=n repeats a run)
   - wt_quick(): true under `make sanitize` (WARPRED_TEST_QUICK=1), where tests shrink sizes;
     wt_quick_level() 2 under racecheck, the slowest tool, where the longest tests take fewer shapes
   - wt_dev_alloc / wt_dev_free, wt_host_alloc / wt_host_free: buffers owned by the running test,
     so that a failing test (fail_msg longjmps out of it) leaks nothing: WT_TEST(f) registers the
     test with wt_teardown, which frees whatever the test did not. Device buffers start poisoned;
     wt_dev_copy makes one holding a copy of host data. (Grid scratches and device plans owned
     the same way: wt_plans.h.)
   - wt_read_file: a whole file as a string owned by the running test
   - wt_launch_into: poison an output, launch, wait, copy the output back
   - WT_GPU_TEST(name, body): a test that skips without a GPU and otherwise runs body;
     WT_GPU_TESTS_EACH_TYPE: one such test for each value type
*/
#ifndef WT_H
#define WT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
extern "C" {
#include <cmocka.h>
}
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define WT_CUDA(call)                                                                            \
    do {                                                                                         \
        cudaError_t wt_err_ = (call);                                                            \
        if (wt_err_ != cudaSuccess)                                                              \
            fail_msg("%s:%d: %s -> %s", __FILE__, __LINE__, #call, cudaGetErrorString(wt_err_)); \
    } while (0)

#define WT_LAUNCHED()                     \
    do {                                  \
        WT_CUDA(cudaGetLastError());      \
        WT_CUDA(cudaDeviceSynchronize()); \
    } while (0)

/* The probe's answer lives in the group state; skip() only works inside a test body. */
static int wt_has_gpu;

static inline int wt_group_setup(void **state)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n); /* no driver: error 35, not 100 - any error means none */
    wt_has_gpu = err == cudaSuccess && n > 0;
    if (!wt_has_gpu) {
        printf("[ INFO     ] no usable GPU (%s): GPU tests will be SKIPPED\n",
               err == cudaSuccess ? "0 devices" : cudaGetErrorString(err));
        cudaGetLastError();
    }
    *state = &wt_has_gpu;
    return 0;
}

#define WT_NEED_GPU(state)             \
    do {                               \
        if (!*(int *)*(state)) skip(); \
    } while (0)

static inline int wt_quick(void)
{
    const char *q = getenv("WARPRED_TEST_QUICK");
    return q != NULL && q[0] != '\0' && q[0] != '0';
}

/* 0 outside the sanitizer, 1 under it, 2 under racecheck (WARPRED_TEST_QUICK=2). */
static inline int wt_quick_level(void)
{
    const char *q = getenv("WARPRED_TEST_QUICK");
    return !wt_quick() ? 0 : q[0] == '2' ? 2 : 1;
}

/* The element count of the large tests (contention, histograms): 2^24, 2^18 under the sanitizer. */
static inline size_t wt_large_n(void) { return wt_quick() ? (size_t)1 << 18 : (size_t)1 << 24; }

/* qsort / bsearch order of uint64_t values. */
static inline int wt_cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* xorshift64*; seeded once per process from the clock unless WARPRED_SEED is set. */
static uint64_t wt_state;

static inline uint64_t wt_rand64(void)
{
    if (wt_state == 0) {
        const char *s = getenv("WARPRED_SEED");
        wt_state = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)clock();
        if (wt_state == 0) wt_state = 1;
        printf("[ INFO     ] random seed %llu (set WARPRED_SEED to repeat)\n", (unsigned long long)wt_state);
    }
    wt_state ^= wt_state >> 12;
    wt_state ^= wt_state << 25;
    wt_state ^= wt_state >> 27;
    return wt_state * 0x2545F4914F6CDD1Dull;
}

static inline uint32_t wt_rand32(void) { return (uint32_t)(wt_rand64() >> 32); }
static inline int wt_rand_below(int n) { return (int)(wt_rand32() % (uint32_t)n); }
static inline double wt_rand_unit(void) { return (double)(wt_rand64() >> 11) * (1.0 / 9007199254740992.0); }

/* Bytes that make an unwritten output obvious (not NaN, not zero, not a small integer). */
#define WT_POISON 0xA5

/* What the running test owns: fail_msg leaves the test by longjmp, past its own frees, so
   every buffer is recorded here and wt_teardown releases what is left. */
typedef void (*wt_release_fn)(void *);
typedef struct {
    void *p;
    wt_release_fn release;
} wt_owned;
#define WT_MAX_OWNED 64
static wt_owned wt_owned_now[WT_MAX_OWNED];
static int wt_owned_count;

/* Records p as owned by the running test (released by release at teardown unless wt_disown
   takes it back first); p is released at once if the table is full. */
static inline void *wt_own(void *p, wt_release_fn release)
{
    if (wt_owned_count == WT_MAX_OWNED) {
        release(p);
        fail_msg("a test owns more than %d buffers at once: raise WT_MAX_OWNED", WT_MAX_OWNED);
        return NULL; /* not reached: fail_msg does not return (cmocka does not declare it noreturn) */
    }
    wt_owned_now[wt_owned_count].p = p;
    wt_owned_now[wt_owned_count].release = release;
    wt_owned_count++;
    return p;
}

/* Forgets p (its owner frees it now); fails the test if the test did not own p. */
static inline void wt_disown(void *p)
{
    for (int i = wt_owned_count - 1; i >= 0; i--) {
        if (wt_owned_now[i].p != p) continue;
        memmove(&wt_owned_now[i], &wt_owned_now[i + 1], (size_t)(wt_owned_count - i - 1) * sizeof(wt_owned));
        wt_owned_count--;
        return;
    }
    fail_msg("%p was freed but not allocated by this test (or freed twice)", p);
}

/* The per-test teardown: releases, newest first, whatever the test still owns. Errors are
   ignored here: after a failed kernel the context may refuse every call, and the test has
   already reported the failure. */
static inline int wt_teardown(void **state)
{
    (void)state;
    while (wt_owned_count > 0) {
        wt_owned_count--;
        wt_owned_now[wt_owned_count].release(wt_owned_now[wt_owned_count].p);
    }
    cudaGetLastError(); /* a failed cudaFree must not be reported by the next test */
    return 0;
}

/* Every test program registers its tests this way (the group setup is wt_group_setup). */
#define WT_TEST(f) cmocka_unit_test_teardown(f, wt_teardown)

static inline void wt_release_dev(void *p) { cudaFree(p); }
static inline void wt_release_host(void *p) { free(p); }

static inline void *wt_dev_alloc(size_t bytes)
{
    void *p = NULL;
    WT_CUDA(cudaMalloc(&p, bytes ? bytes : 1));
    wt_own(p, wt_release_dev);
    WT_CUDA(cudaMemset(p, WT_POISON, bytes ? bytes : 1));
    return p;
}

static inline void wt_dev_free(void *p)
{
    wt_disown(p);
    WT_CUDA(cudaFree(p));
}

static inline void *wt_host_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) fail_msg("out of host memory (%zu bytes)", bytes);
    return wt_own(p, wt_release_host);
}

static inline void *wt_host_alloc_zeroed(size_t bytes)
{
    void *p = wt_host_alloc(bytes);
    memset(p, 0, bytes ? bytes : 1);
    return p;
}

static inline void wt_host_free(void *p)
{
    wt_disown(p);
    free(p);
}

/* A whole file as a NUL-terminated string owned by the running test (a file that cannot be opened
   fails the test). */
static inline char *wt_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = (char *)wt_host_alloc((size_t)size + 1);
    size_t got = fread(text, 1, (size_t)size, f);
    fclose(f);
    text[got] = '\0';
    return text;
}

static inline void wt_to_dev(void *dst, const void *src, size_t bytes)
{
    WT_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}

static inline void wt_to_host(void *dst, const void *src, size_t bytes)
{
    WT_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}

/* A device copy of the host bytes src[0..bytes), owned by the running test (wt_dev_free). */
static inline void *wt_dev_copy(const void *src, size_t bytes)
{
    void *p = wt_dev_alloc(bytes);
    wt_to_dev(p, src, bytes);
    return p;
}

static inline void wt_poison(void *dev, size_t bytes) { WT_CUDA(cudaMemset(dev, WT_POISON, bytes)); }

/* Poisons the device output d_out[0..bytes), runs launch() (a kernel launch), waits for it and
   copies the output back into out. */
template <typename Launch> static void wt_launch_into(void *out, void *d_out, size_t bytes, Launch launch)
{
    wt_poison(d_out, bytes);
    launch();
    WT_LAUNCHED();
    wt_to_host(out, d_out, bytes);
}

/* A GPU test whose body is the statements after its name (skipped when there is no GPU). */
#define WT_GPU_TEST(name, ...)     \
    static void name(void **state) \
    {                              \
        WT_NEED_GPU(state);        \
        __VA_ARGS__;               \
    }

/* The eight GPU tests prefix##int ... prefix##bfloat16, one a value type: run_int<T>() for the
   four integer types, run_float<T>() for float, double, __half and __nv_bfloat16. */
#define WT_GPU_TESTS_EACH_TYPE(prefix, run_int, run_float)                 \
    WT_GPU_TEST(prefix##int, run_int<int>())                               \
    WT_GPU_TEST(prefix##unsigned, run_int<unsigned>())                     \
    WT_GPU_TEST(prefix##long_long, run_int<long long>())                   \
    WT_GPU_TEST(prefix##unsigned_long_long, run_int<unsigned long long>()) \
    WT_GPU_TEST(prefix##float, run_float<float>())                         \
    WT_GPU_TEST(prefix##double, run_float<double>())                       \
    WT_GPU_TEST(prefix##half, run_float<__half>())                         \
    WT_GPU_TEST(prefix##bfloat16, run_float<__nv_bfloat16>())

#endif /* WT_H */
