/* The host side of the consumer, in a plain C++ file (scratch.cpp, compiled by the host compiler). */
#ifndef WARPRED_CONSUMER_H
#define WARPRED_CONSUMER_H
#include <warpred/grid_scratch.h>

/* Creates scratch for `blocks` blocks of unsigned long long partials; 0, or 1 after printing why. */
int consumer_scratch_create(warpred_grid_scratch *s, unsigned blocks);
/* 0 when no launch overflowed the scratch, else 1 after printing why; then frees it. */
int consumer_scratch_finish(warpred_grid_scratch *s);
#endif
