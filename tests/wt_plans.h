/* tests/wt_plans.h - the host objects of the grid and device reductions, owned by the running
   test like the buffers of wt.h: each is registered with wt_own when it is created, so that
   wt_teardown releases it when the test fails (fail_msg longjmps past the test's own frees).

   - wt_grid_scratch(capacity, value_bytes): a created warpred_grid_scratch (any failure to create
     it fails the test, with warpred's message); wt_grid_scratch_free destroys it, checked
   - wt_grid_scratch_ok(s, what): fails the test unless warpred_grid_scratch_status says that no
     launch overflowed s since the last check
   - wt_device_plan(value_bytes): a created warpred_device_plan; wt_device_plan_free destroys it,
     checked
   - wt_fake_device_plan(value_bytes): a plan that looks created, on device 0, whose scratch
     pointers any launch would fault on (for the calls that must be refused before anything is
     launched); it owns nothing */
#ifndef WT_PLANS_H
#define WT_PLANS_H

#include <warpred/device_reduce.cuh> /* warpred_device_plan; it brings grid_scratch.h */
#include "wt.h"

/* p: host memory (malloc) that a create call filled, returning err and why. On success p is owned
   by the running test (release frees it at teardown); else it is freed and the test fails. */
static inline void *wt_own_created(void *p, cudaError_t err, const char *why, const char *call, wt_release_fn release)
{
    if (err != cudaSuccess) {
        free(p);
        fail_msg("%s: %s (%s)", call, cudaGetErrorString(err), why ? why : "no message");
        return NULL; /* not reached */
    }
    return wt_own(p, release);
}

static inline void *wt_host_new(size_t bytes)
{
    void *p = malloc(bytes);
    if (p == NULL) fail_msg("out of host memory");
    return p;
}

/* The teardown's release of a created T (Destroy: its warpred destroy function), and the test's
   own, checked one. */
template <typename T, cudaError_t (*Destroy)(T *)> static void wt_release_created(void *p)
{
    Destroy((T *)p);
    free(p);
}

template <typename T> static void wt_destroy_owned(T *p, cudaError_t (*destroy)(T *))
{
    wt_disown(p);
    const cudaError_t err = destroy(p);
    free(p);
    WT_CUDA(err);
}

static inline warpred_grid_scratch *wt_grid_scratch(unsigned capacity, size_t value_bytes)
{
    warpred_grid_scratch *s = (warpred_grid_scratch *)wt_host_new(sizeof *s);
    const char *why = NULL;
    const cudaError_t err = warpred_grid_scratch_create(s, capacity, value_bytes, &why);
    return (warpred_grid_scratch *)wt_own_created(
        s, err, why, "warpred_grid_scratch_create",
        wt_release_created<warpred_grid_scratch, warpred_grid_scratch_destroy>);
}

static inline void wt_grid_scratch_free(warpred_grid_scratch *s) { wt_destroy_owned(s, warpred_grid_scratch_destroy); }

static inline void wt_grid_scratch_ok(const warpred_grid_scratch *s, const char *what)
{
    const char *why = NULL;
    if (warpred_grid_scratch_status(s, &why) != cudaSuccess) fail_msg("%s: grid scratch status: %s", what, why);
}

static inline warpred_device_plan *wt_device_plan(unsigned value_bytes)
{
    warpred_device_plan *plan = (warpred_device_plan *)wt_host_new(sizeof *plan);
    const char *why = NULL;
    const cudaError_t err = warpred_device_plan_create(plan, value_bytes, &why);
    return (warpred_device_plan *)wt_own_created(plan, err, why, "warpred_device_plan_create",
                                                 wt_release_created<warpred_device_plan, warpred_device_plan_destroy>);
}

static inline void wt_device_plan_free(warpred_device_plan *plan)
{
    wt_destroy_owned(plan, warpred_device_plan_destroy);
}

static inline warpred_device_plan wt_fake_device_plan(unsigned value_bytes)
{
    warpred_device_plan fake;
    memset(&fake, 0, sizeof fake);
    fake.scratch.partials = (void *)256;
    fake.scratch.counter = (unsigned *)512;
    fake.scratch.capacity = 1;
    fake.max_blocks = 1;
    fake.value_bytes = value_bytes;
    return fake;
}

#endif /* WT_PLANS_H */
