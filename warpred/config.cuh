/* warpred/config.cuh - what every warpred device header starts with.      MIT licensed, see LICENSE.

   The compiler check, the version and the configuration macros. Every other .cuh includes
   this one; you need not.

   COMPILERS  nvcc or NVRTC. A host compiler (gcc, clang) stops at the first line with one
   error saying so; host .c/.cpp files include warpred/grid_scratch.h instead. Under nvcc this
   header includes <assert.h>, <cuda_fp16.h> and <cuda_bf16.h>; under NVRTC it includes nothing
   (include cuda_fp16.h / cuda_bf16.h first, with the toolkit's include/ on NVRTC's path, to
   reduce __half / __nv_bfloat16).

   CONFIGURATION (define before including any warpred header; the same in every file of a program)
     WARPRED_ASSERT(cond)    device-side precondition check; default assert(cond), which
                             NDEBUG turns off.
     WARPRED_NO_REDUX        never use the redux.sync instruction (see warp_reduce.cuh).
     WARPRED_NO_NAN_MINMAX   never use the sm_80 max.NaN/min.NaN instructions (the portable
                             path older GPUs take; the tests run both).
   block_reduce.cuh and device_reduce.cuh have a few more, in their manuals.

   This header needs version.h beside it.
*/
#ifndef WARPRED_CONFIG_CUH
#define WARPRED_CONFIG_CUH

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
/* gcc and clang go on after an #error, with pages of unrelated errors; a missing include stops
   them at once, so its name is the message */
#    include "warpred: these are CUDA device headers: compile with nvcc or NVRTC (host .c/.cpp files: include warpred/grid_scratch.h)"
#endif

#include "version.h"

#ifndef WARPRED_ASSERT
#    ifndef __CUDACC_RTC__
#        include <assert.h>
#    endif
#    define WARPRED_ASSERT(cond) assert(cond)
#endif
#if !defined(__CUDACC_RTC__)
#    include <cuda_fp16.h>
#    include <cuda_bf16.h>
#endif

#endif /* WARPRED_CONFIG_CUH */
