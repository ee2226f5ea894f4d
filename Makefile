# warpred - build, test, sanitize, benchmark.
#
#   make test       host checks + GPU tests (GPU tests report SKIPPED where there is no GPU)
#   make sanitize   GPU tests under compute-sanitizer memcheck, racecheck, synccheck, initcheck
#   make run        the main sample
#   make bench      benchmarks against CUB (needs a GPU)
#   make archs      the whole build for every arch in ALL_ARCHS, warnings as errors
#
# Variables: ARCHS (default "75 80 90": the test build is a fat binary for these),
# CUDA_HOME, NVCC, CMOCKA_PREFIX (cmocka unpacked somewhere other than the system).

NVCC ?= $(shell command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
ARCHS ?= 75 80 90
ALL_ARCHS = 75 80 90
empty :=
space := $(empty) $(empty)
# one build folder per arch set, so that changing ARCHS never reuses binaries built for others
BUILD ?= build/sm_$(subst $(space),_,$(strip $(ARCHS)))

gencode = $(foreach a,$(1),-gencode arch=compute_$(a),code=sm_$(a))
WARN = -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror
NVFLAGS = -std=c++17 -O2 -lineinfo -I. $(WARN)

ifdef CMOCKA_PREFIX
CMOCKA_LIBDIR = $(firstword $(wildcard $(CMOCKA_PREFIX)/lib/x86_64-linux-gnu $(CMOCKA_PREFIX)/lib64 $(CMOCKA_PREFIX)/lib))
CMOCKA_CFLAGS = -I$(CMOCKA_PREFIX)/include
CMOCKA_LIBS = -L$(CMOCKA_LIBDIR) -lcmocka -Xlinker -rpath=$(CMOCKA_LIBDIR)
else
CMOCKA_CFLAGS = $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)
endif
TEST_FLAGS = $(NVFLAGS) -Itests $(CMOCKA_CFLAGS)

HEADERS = $(wildcard warpred/*.cuh)
GPU_TESTS = $(BUILD)/test_warp_reduce $(BUILD)/test_warp_reduce_generic $(BUILD)/test_block_reduce \
            $(BUILD)/test_atomics $(BUILD)/test_grid_reduce
HOST_TESTS = $(BUILD)/test_host $(BUILD)/test_nvrtc
SAMPLES = $(BUILD)/demo $(BUILD)/device_sum
BENCHES = $(BUILD)/bench_atomics $(BUILD)/bench_reduce
SANITIZE_TOOLS = memcheck racecheck synccheck initcheck
SANITIZER ?= $(shell command -v compute-sanitizer 2>/dev/null || echo $(CUDA_HOME)/bin/compute-sanitizer)

.PHONY: all test sanitize run bench archs headers link clean check-cmocka
.DELETE_ON_ERROR:

all: $(GPU_TESTS) $(HOST_TESTS) $(SAMPLES) $(BENCHES)

check-cmocka:
	@printf '#include <stdarg.h>\n#include <stddef.h>\n#include <setjmp.h>\n#include <stdint.h>\n#include <cmocka.h>\n' \
	  | cc -E $(CMOCKA_CFLAGS) -x c - >/dev/null 2>&1 || { \
	  echo "cmocka is not installed. Install it with:  sudo apt-get install -y libcmocka-dev"; \
	  echo "(or point CMOCKA_PREFIX at an unpacked copy: make test CMOCKA_PREFIX=/path/to/usr)"; exit 1; }

$(BUILD):
	@mkdir -p $(BUILD)

# Every header compiles alone, in a translation unit that includes nothing else.
headers: | $(BUILD)
	@for h in $(HEADERS); do \
	  n=$$(basename $$h .cuh); printf '#include <warpred/%s.cuh>\n' $$n > $(BUILD)/alone_$$n.cu; \
	  $(NVCC) $(NVFLAGS) $(call gencode,$(ARCHS)) -c $(BUILD)/alone_$$n.cu -o $(BUILD)/alone_$$n.o || exit 1; \
	  echo "header alone: $$h ok"; done

# All headers in two translation units of one program: no duplicate symbols.
link: | $(BUILD)
	$(NVCC) $(NVFLAGS) $(call gencode,$(ARCHS)) tests/link_a.cu tests/link_b.cu -o $(BUILD)/link_whole
	$(NVCC) $(NVFLAGS) $(call gencode,$(ARCHS)) -rdc=true tests/link_a.cu tests/link_b.cu -o $(BUILD)/link_rdc
	@echo "two translation units link (whole-program and -rdc): ok"

$(BUILD)/test_%: tests/test_%.cu tests/wt.h tests/wt_types.h $(HEADERS) $(wildcard samples/*/*.cuh) | check-cmocka $(BUILD)
	$(NVCC) $(TEST_FLAGS) $(call gencode,$(ARCHS)) $< -o $@ $(CMOCKA_LIBS)

$(BUILD)/test_warp_reduce_generic: tests/test_warp_reduce.cu tests/wt.h tests/wt_types.h $(HEADERS) | check-cmocka $(BUILD)
	$(NVCC) $(TEST_FLAGS) -DWARPRED_NO_REDUX -DWARPRED__NO_NAN_MINMAX --use_fast_math $(call gencode,$(ARCHS)) $< -o $@ $(CMOCKA_LIBS)

$(BUILD)/test_nvrtc: tests/test_nvrtc.cu tests/wt.h | check-cmocka $(BUILD)
	$(NVCC) $(TEST_FLAGS) -DWT_REPO_DIR='"$(CURDIR)"' -DWT_CUDA_INCLUDE='"$(CUDA_HOME)/include"' $< -o $@ \
	  $(CMOCKA_LIBS) -lnvrtc

$(BUILD)/demo: samples/demo/demo.cu $(HEADERS) | $(BUILD)
	$(NVCC) $(NVFLAGS) $(call gencode,$(ARCHS)) $< -o $@

test: headers link $(GPU_TESTS) $(HOST_TESTS)
	@tests/run.sh $(HOST_TESTS) $(GPU_TESTS)

sanitize: $(GPU_TESTS)
	@ok=1; for tool in $(SANITIZE_TOOLS); do \
	  WARPRED_TEST_QUICK=1 tests/run.sh --wrap "$(SANITIZER) --tool $$tool --error-exitcode 99" $(GPU_TESTS) \
	    > $(BUILD)/sanitize_$$tool.log 2>&1; rc=$$?; \
	  grep -h "SUMMARY" $(BUILD)/sanitize_$$tool.log | sort | uniq -c | sed "s/^/$$tool: /"; \
	  tail -n 1 $(BUILD)/sanitize_$$tool.log | sed "s/^/$$tool: /"; \
	  [ $$rc -eq 0 ] || ok=0; done; \
	[ $$ok -eq 1 ] && echo "sanitize: all tools clean" || { echo "sanitize: FAILED (logs in $(BUILD)/sanitize_*.log)"; exit 1; }

BENCH_FLAGS = -std=c++17 -O3 -DNDEBUG -lineinfo -I. -Ibench $(WARN)
$(BUILD)/bench_%: bench/bench_%.cu bench/bench_util.h $(HEADERS) $(wildcard samples/*/*.cuh) | $(BUILD)
	$(NVCC) $(BENCH_FLAGS) $(call gencode,$(ARCHS)) $< -o $@

# Tables on stdout, CSVs and the bandwidth plot in $(BUILD) (the plot needs python3 + matplotlib).
bench: $(BENCHES)
	$(BUILD)/bench_reduce $(BUILD)/bench_reduce.csv
	$(BUILD)/bench_atomics $(BUILD)/bench_atomics.csv
	python3 bench/plot_bandwidth.py $(BUILD)/bench_reduce.csv $(BUILD)/bench_sum_bandwidth.png

$(BUILD)/device_sum: samples/device_sum/main.cu samples/device_sum/device_sum.cuh $(HEADERS) | $(BUILD)
	$(NVCC) $(NVFLAGS) $(call gencode,$(ARCHS)) $< -o $@

run: $(SAMPLES)
	$(BUILD)/demo
	$(BUILD)/device_sum

# The whole build for every supported arch with warnings as errors (CI runs this).
archs:
	$(MAKE) ARCHS="$(ALL_ARCHS)" all headers link

clean:
	rm -rf $(BUILD)
