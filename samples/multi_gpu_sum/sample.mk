# samples/multi_gpu_sum/sample.mk - where NCCL is; the Makefile includes this file.
# Looked for, in this order:
#   NCCL_HOME=DIR     DIR/include/nccl.h and libnccl in DIR/lib64, DIR/lib or DIR/lib/x86_64-linux-gnu
#   the CUDA toolkit  $(CUDA_HOME)/include/nccl.h and libnccl in $(CUDA_HOME)/lib64 or lib (NCCL shipped
#                     with the toolkit, as on the development machines)
#   the system        /usr/include/nccl.h and libnccl in the system library directory (libnccl-dev)
# Not found: the sample is skipped (SAMPLE_SKIP_multi_gpu_sum says why), never reported as passed.

multi_gpu_sum_libdir = $(firstword $(foreach d,$(1),$(if $(wildcard $(d)/libnccl.so $(d)/libnccl.so.*),$(d))))

ifdef NCCL_HOME
# asked for explicitly: no fallback
multi_gpu_sum_inc := $(if $(wildcard $(NCCL_HOME)/include/nccl.h),$(NCCL_HOME)/include)
multi_gpu_sum_lib := $(call multi_gpu_sum_libdir,$(NCCL_HOME)/lib64 $(NCCL_HOME)/lib $(NCCL_HOME)/lib/x86_64-linux-gnu)
multi_gpu_sum_where := NCCL_HOME=$(NCCL_HOME)
else
multi_gpu_sum_inc := $(if $(wildcard $(CUDA_HOME)/include/nccl.h),$(CUDA_HOME)/include)
multi_gpu_sum_lib := $(call multi_gpu_sum_libdir,$(CUDA_HOME)/lib64 $(CUDA_HOME)/lib $(wildcard $(CUDA_HOME)/targets/*/lib))
multi_gpu_sum_where := the CUDA toolkit ($(CUDA_HOME)) or the system (/usr/include, /usr/lib)
ifeq ($(and $(multi_gpu_sum_inc),$(multi_gpu_sum_lib)),)
multi_gpu_sum_multiarch := $(shell gcc -print-multiarch 2>/dev/null)
multi_gpu_sum_inc := $(if $(wildcard /usr/include/nccl.h),/usr/include)
multi_gpu_sum_lib := $(call multi_gpu_sum_libdir,$(if $(multi_gpu_sum_multiarch),/usr/lib/$(multi_gpu_sum_multiarch)) /usr/lib64 /usr/lib)
endif
endif

ifeq ($(and $(multi_gpu_sum_inc),$(multi_gpu_sum_lib)),)
SAMPLE_SKIP_multi_gpu_sum = NCCL not found in $(multi_gpu_sum_where): install libnccl-dev or set NCCL_HOME=DIR (DIR/include/nccl.h, DIR/lib/libnccl.so)
else
# link with libnccl.so, or with libnccl.so.2 where only the runtime package is there (no -dev symlink)
multi_gpu_sum_lflag := $(if $(wildcard $(multi_gpu_sum_lib)/libnccl.so),-lnccl,-l:$(notdir $(firstword $(wildcard $(multi_gpu_sum_lib)/libnccl.so.*))))
# the system's directories are searched anyway; elsewhere say where, at build and at run time
ifeq ($(multi_gpu_sum_inc),/usr/include)
SAMPLE_FLAGS_multi_gpu_sum =
SAMPLE_LIBS_multi_gpu_sum = $(multi_gpu_sum_lflag)
else
SAMPLE_FLAGS_multi_gpu_sum = -I$(multi_gpu_sum_inc)
SAMPLE_LIBS_multi_gpu_sum = -L$(multi_gpu_sum_lib) $(multi_gpu_sum_lflag) -Xlinker -rpath=$(multi_gpu_sum_lib)
endif
endif

# Under `make sanitize` the sample runs with quick sizes on every visible GPU; NCCL's own kernels and
# internal CUDA calls run under the sanitizer too. Measured on H200s (NCCL 2.28.3), one and two:
# memcheck finds no memory error, but reports CUDA API errors that NCCL makes and handles itself
# (cudaFuncGetAttributes on its kernels built for other archs: cudaErrorNoKernelImageForDevice, in
# ncclCommInitAll / ncclCommInitRank; with two GPUs also cudaErrorPeerAccessAlreadyEnabled). Every
# CUDA call of the sample is checked by the sample itself, so the sanitizer does not report API
# errors here. NCCL's own kernels are left out of the check: with two GPUs initcheck (which make
# sanitize does not run on samples; by hand it does) reports reads of uninitialized memory inside
# them (ncclDevKernel_*_RING_LL, ncclDevFunc_*: the low-latency protocol polls flags in buffers it
# never clears). The sample's and warpred's kernels are all checked:
SAMPLE_SANITIZE_FLAGS_multi_gpu_sum = --report-api-errors no --kernel-name-exclude kns=ncclDev
