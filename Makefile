# warpred - build, test, sanitize, benchmark, install.  `make help` lists the targets.
#
# Variables: ARCHS (default "75 80 90": every program is a fat binary for these; ARCHS=90 builds
# for one arch, the quick first run), JOBS (parallel compiles, default: every core; a -j of yours
# wins), V=1 (print each full command instead of one line per program), CUDA_HOME, NVCC,
# CMOCKA_PREFIX (cmocka unpacked somewhere other than the system), PREFIX / DESTDIR (make install),
# REQUIRE_GPU=1 (no usable GPU is an error, not a skip: for GPU machines), SANITIZE_TOOLS (the
# compute-sanitizer tools of make sanitize, default all four: one at a time where a call is short),
# SANITIZE_SHARDS (the groups each tool's programs are dealt into, run at the same time; default
# JOBS / the number of tools, at least 1), SANITIZE_ONLY / SANITIZE_SKIP (the tests and samples
# make sanitize runs, by name: test_NAME, sample_NAME, % as a wildcard; default all, none: a long
# run split into parts, e.g. SANITIZE_SKIP=test_device_rows, then SANITIZE_ONLY=test_device_rows;
# only the chosen programs are built).
# Tests read WARPRED_SEED=n (repeat a run's random inputs), WARPRED_TEST_QUICK (1: small sizes, set
# by make sanitize; 2: fewer shapes still, set for racecheck) and, in test_device_rows,
# WARPRED_TEST_FILTER (a test name or pattern).
#
# What is built is found by name, so a new file needs no edit here:
#   tests/test_NAME.cu     a cmocka test program, $(BUILD)/test_NAME (test_host and test_nvrtc run
#                          without a GPU; the others skip their GPU tests there); a test that
#                          includes "snippets/HEADER.inc" gets the USAGE code of warpred/HEADER.cuh
#                          (scripts/snippets.py extracts it; "snippets/README.inc": the README's
#                          quick start, tests/test_readme.cu)
#   samples/NAME/main.cu   a sample, $(BUILD)/sample_NAME; it checks its own results and exits
#                          non-zero when a check fails. samples/NAME/main.py: a Python sample, run
#                          with python3. Both read WARPRED_SAMPLE_QUICK=1 (small sizes: make test,
#                          make sanitize). A sample that cannot run here (a missing package, too few
#                          GPUs) prints a line starting with "SKIPPED:" and exits 0.
#   samples/NAME/sample.mk optional, included here; it may set
#                            SAMPLE_FLAGS_NAME        extra nvcc flags for main.cu (e.g. -I...)
#                            SAMPLE_LIBS_NAME         extra link flags (e.g. -lnccl)
#                            SAMPLE_SKIP_NAME         a reason not to build or run it on this machine
#                                                     (e.g. "NCCL is not installed"): reported as
#                                                     skipped, never as passed
#                            SAMPLE_NO_SANITIZE_NAME  a reason not to run it under compute-sanitizer
#                          and add rules of its own.
#   bench/bench_NAME.cu    a benchmark, $(BUILD)/bench_NAME; `make bench` runs it with one argument,
#                          the CSV file to write ($(BUILD)/bench_NAME.csv). BENCH_FLAGS_NAME /
#                          BENCH_LIBS_NAME: extra compile / link flags.

NVCC ?= $(shell command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
ARCHS ?= 75 80 90
ALL_ARCHS = 75 80 90
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# Parallel by default, only in the top-level make and only when no -j was given: a sub-make shares
# its parent's jobserver (adding -j there makes make warn "-jN forced in makefile").
ifeq ($(MAKELEVEL),0)
ifeq ($(filter -j%,$(MAKEFLAGS))$(filter j%,$(firstword $(MAKEFLAGS))),)
MAKEFLAGS += -j$(JOBS)
endif
endif
# One line per program built (V=1: the full commands). $(call quiet,WHAT,TARGET) starts a recipe line.
ifeq ($(V),1)
quiet =
else
quiet = @printf '  %-8s %s\n' '$(1)' '$(2)';
endif
PREFIX ?= /usr/local
empty :=
space := $(empty) $(empty)
# one build folder per arch set, so that changing ARCHS never reuses binaries built for others
BUILD ?= build/sm_$(subst $(space),_,$(strip $(ARCHS)))

gencode = $(foreach a,$(1),-gencode arch=compute_$(a),code=sm_$(a))
WARN = -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror
NVFLAGS = -std=c++17 -O2 -lineinfo -I. $(WARN)
# header dependencies: each compile writes $@.d, so a program rebuilds only when a file it includes changed
DEPFLAGS = -MMD -MP -MF $@.d -MT $@

ifdef CMOCKA_PREFIX
CMOCKA_LIBDIR = $(firstword $(foreach d,$(CMOCKA_PREFIX)/lib/x86_64-linux-gnu $(CMOCKA_PREFIX)/lib64 $(CMOCKA_PREFIX)/lib,$(if $(wildcard $(d)/libcmocka.so*),$(d))))
CMOCKA_CFLAGS = -I$(CMOCKA_PREFIX)/include
CMOCKA_LIBS = -L$(CMOCKA_LIBDIR) -lcmocka -Xlinker -rpath=$(CMOCKA_LIBDIR)
else
CMOCKA_CFLAGS = $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)
endif
TEST_FLAGS = $(NVFLAGS) -Itests -I$(BUILD) $(CMOCKA_CFLAGS) -DWT_REPO_DIR='"$(CURDIR)"'

# ---- what there is ----
HEADERS = $(wildcard warpred/*.cuh warpred/*.h)
HOST_TEST_NAMES = test_host test_nvrtc
GPU_TESTS = $(filter-out $(addprefix $(BUILD)/,$(HOST_TEST_NAMES)),$(patsubst tests/%.cu,$(BUILD)/%,$(wildcard tests/test_*.cu))) \
            $(BUILD)/test_warp_reduce_generic
HOST_TESTS = $(addprefix $(BUILD)/,$(HOST_TEST_NAMES))
BENCHES = $(patsubst bench/%.cu,$(BUILD)/%,$(wildcard bench/bench_*.cu))
GPU_PROBE = $(BUILD)/gpu_probe

-include $(wildcard samples/*/sample.mk)
SAMPLE_CU_NAMES = $(patsubst samples/%/main.cu,%,$(wildcard samples/*/main.cu))
SAMPLE_PY_NAMES = $(patsubst samples/%/main.py,%,$(wildcard samples/*/main.py))
SAMPLE_NAMES = $(sort $(SAMPLE_CU_NAMES) $(SAMPLE_PY_NAMES))
skipped = $(if $(strip $(SAMPLE_SKIP_$(1))),$(1))
SAMPLES_SKIPPED = $(foreach n,$(SAMPLE_NAMES),$(call skipped,$(n)))
SAMPLES = $(addprefix $(BUILD)/sample_,$(filter-out $(SAMPLES_SKIPPED),$(SAMPLE_CU_NAMES)))
# the items tests/run.sh runs for one sample: gpu:PROGRAM, or skip:sample_NAME:VARIABLE (the variable holds the reason)
sample_item = $(if $(call skipped,$(1)),skip:sample_$(1):SAMPLE_SKIP_$(1),gpu:$(if $(filter $(1),$(SAMPLE_CU_NAMES)),$(BUILD)/sample_$(1),samples/$(1)/main.py))
sanitize_item = $(if $(strip $(SAMPLE_NO_SANITIZE_$(1))),skip:sample_$(1):SAMPLE_NO_SANITIZE_$(1),$(call sample_item,$(1)))
SAMPLE_ITEMS = $(foreach n,$(SAMPLE_NAMES),$(call sample_item,$(n)))
SANITIZE_ONLY ?= %
SANITIZE_SKIP ?=
sanitize_pick = $(filter-out $(SANITIZE_SKIP),$(filter $(SANITIZE_ONLY),$(1)))
SANITIZE_TESTS = $(addprefix $(BUILD)/,$(call sanitize_pick,$(notdir $(GPU_TESTS))))
SANITIZE_SAMPLE_NAMES = $(patsubst sample_%,%,$(call sanitize_pick,$(addprefix sample_,$(SAMPLE_NAMES))))
SANITIZE_SAMPLES = $(filter $(addprefix $(BUILD)/sample_,$(SANITIZE_SAMPLE_NAMES)),$(SAMPLES))
SAMPLE_SANITIZE_ITEMS = $(foreach n,$(SANITIZE_SAMPLE_NAMES),$(call sanitize_item,$(n)))
SANITIZE_PART = $(strip $(subst %,,$(SANITIZE_ONLY)) $(SANITIZE_SKIP))
# the reasons travel to tests/run.sh in the environment
export $(foreach n,$(SAMPLE_NAMES),SAMPLE_SKIP_$(n) SAMPLE_NO_SANITIZE_$(n) SAMPLE_SANITIZE_FLAGS_$(n))

SANITIZE_TOOLS = memcheck racecheck synccheck initcheck
SANITIZE_SHARDS ?= $(shell n=$$(( $(JOBS) / $(words $(SANITIZE_TOOLS)) )); [ $$n -ge 1 ] && echo $$n || echo 1)
SAMPLE_SANITIZE_TOOLS = memcheck racecheck synccheck
SANITIZER ?= $(shell command -v compute-sanitizer 2>/dev/null || echo $(CUDA_HOME)/bin/compute-sanitizer)
RUN_OPTS = --gpu-probe $(GPU_PROBE) $(if $(filter 1,$(REQUIRE_GPU)),--require-gpu)
RUN = tests/run.sh $(RUN_OPTS)

.PHONY: all test sanitize run run-% bench bench-doc api docs doc-check python-check format format-check archs headers link clean help install uninstall
.DELETE_ON_ERROR:
.SECONDEXPANSION:

all: $(GPU_TESTS) $(HOST_TESTS) $(SAMPLES) $(BENCHES) $(GPU_PROBE)

help:
	@echo "make test        every check: headers alone, two-TU link, docs, host tests, NVRTC, GPU tests,"
	@echo "                 every sample at a small size (GPU parts report SKIPPED without a GPU);"
	@echo "                 make test ARCHS=90: the same for one arch, the quick first run"
	@echo "make sanitize    GPU tests and samples under compute-sanitizer (memcheck, racecheck, synccheck, initcheck);"
	@echo "                 SANITIZE_ONLY= / SANITIZE_SKIP= (test_NAME, sample_NAME, %) run a part"
	@echo "make run         build every sample, run each, one line per sample and a total"
	@echo "make run-NAME    build and run samples/NAME"
	@echo "make bench       the benchmarks (GPU); CSVs and a plot in $(BUILD)"
	@echo "make archs       the whole build for sm_$(subst $(space),$(comma)sm_,$(ALL_ARCHS)), warnings as errors (CI)"
	@echo "make install     headers, LICENSE, pkg-config and CMake files under PREFIX (now $(PREFIX)), DESTDIR honoured"
	@echo "make uninstall   remove what make install put under PREFIX"
	@echo "make bench-doc   docs/BENCHMARKS.md and the README figure blocks from the bench CSVs under docs/"
	@echo "make api         docs/api/ (the API reference) from the header manuals"
	@echo "make docs        make api, then every Markdown file as HTML in build/docs, links checked"
	@echo "make doc-check   the documentation checks of make test alone (CSVs, figures, API pages, links)"
	@echo "make python-check  pip install . into a venv (offline) and check warpred.get_include()"
	@echo "make format      clang-format the .cu/.cuh/.h files under warpred/ tests/ bench/ samples/ (.clang-format)"
	@echo "make format-check  list the files whose formatting differs from .clang-format (CI)"
	@echo "make clean       remove $(BUILD)"
	@echo "variables: ARCHS=\"$(ARCHS)\" JOBS=$(JOBS) CMOCKA_PREFIX=... CUDA_HOME=$(CUDA_HOME) REQUIRE_GPU=1 PREFIX=... DESTDIR=... CCCL_DIR=... NCCL_HOME=..."
	@echo "samples: $(SAMPLE_NAMES)"
comma := ,

# ---- cmocka: checked before anything is compiled, for the goals that need it ----
CMOCKA_GOALS = all test sanitize archs $(BUILD)/test_%
ifneq ($(if $(MAKECMDGOALS),$(filter $(CMOCKA_GOALS),$(MAKECMDGOALS)),all),)
ifdef CMOCKA_PREFIX
ifeq ($(wildcard $(CMOCKA_PREFIX)/include/cmocka.h),)
$(error CMOCKA_PREFIX=$(CMOCKA_PREFIX) has no include/cmocka.h (point it at the folder holding include/ and lib/))
endif
ifeq ($(CMOCKA_LIBDIR),)
$(error CMOCKA_PREFIX=$(CMOCKA_PREFIX) has no libcmocka.so in lib/, lib64/ or lib/x86_64-linux-gnu/)
endif
endif
CMOCKA_FOUND := $(shell printf '\043include <stdarg.h>\n\043include <stddef.h>\n\043include <setjmp.h>\n\043include <stdint.h>\n\043include <cmocka.h>\n' \
  | $(CC) -E $(CMOCKA_CFLAGS) -x c - >/dev/null 2>&1 && echo yes)
ifneq ($(CMOCKA_FOUND),yes)
$(info cmocka is not installed. Install it with:  sudo apt-get install -y libcmocka-dev)
$(info (or point CMOCKA_PREFIX at an unpacked copy: make test CMOCKA_PREFIX=/path/to/usr))
$(error cmocka missing)
endif
endif

$(BUILD) $(BUILD)/alone:
	@mkdir -p $@

# ---- header and link checks (each rebuilds only when a file it includes changed) ----
# Every header compiles alone, in a translation unit that includes nothing else.
ALONE = $(patsubst warpred/%,$(BUILD)/alone/%.o,$(HEADERS))
$(BUILD)/alone/%.o: warpred/% | $(BUILD)/alone
	@printf '#include <warpred/%s>\n' $* > $(@:.o=.cu)
	$(call quiet,nvcc,$@)$(NVCC) $(NVFLAGS) $(DEPFLAGS) $(call gencode,$(ARCHS)) -c $(@:.o=.cu) -o $@
# Host compilers: warpred/*.h compile with gcc (C) and g++ (C++) given only the CUDA include path;
# warpred/*.cuh under g++ stop, and the first error is the header's own #error naming nvcc/NVRTC.
HOST_CC_CHECKS = $(patsubst warpred/%,$(BUILD)/alone/%.host,$(HEADERS))
$(BUILD)/alone/%.h.host: warpred/%.h | $(BUILD)/alone
	$(call quiet,gcc g++,$<)$(CC) -std=c99 -Wall -Wextra -Werror -fsyntax-only -I$(CUDA_HOME)/include -x c $< && \
	$(CXX) -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I$(CUDA_HOME)/include -x c++ $<
	@touch $@
$(BUILD)/alone/%.cuh.host: warpred/%.cuh $(HEADERS) | $(BUILD)/alone
	@if $(CXX) -std=c++17 -fsyntax-only -I. -I$(CUDA_HOME)/include -x c++ $< > $@.log 2>&1; then \
	  echo "$<: g++ compiled a device header without a word"; exit 1; fi; \
	if [ "$$(grep -c "error" $@.log)" != 1 ] || ! grep -q "nvcc or NVRTC" $@.log; then \
	  echo "$<: under g++ the only error must be warpred's, naming nvcc or NVRTC:"; head -n 5 $@.log; exit 1; fi
	@touch $@
headers: $(ALONE) $(HOST_CC_CHECKS)
	@echo "every header compiles alone under nvcc: ok ($(words $(ALONE)) headers); host compilers: the .h compile, the .cuh stop with warpred's #error"

# All headers in two translation units of one program: no duplicate symbols.
LINKS = $(BUILD)/link_whole $(BUILD)/link_rdc
$(BUILD)/link_whole: tests/link_a.cu tests/link_b.cu $(HEADERS) | $(BUILD)
	$(call quiet,nvcc,$@)$(NVCC) $(NVFLAGS) $(call gencode,$(ARCHS)) tests/link_a.cu tests/link_b.cu -o $@
$(BUILD)/link_rdc: tests/link_a.cu tests/link_b.cu $(HEADERS) | $(BUILD)
	$(call quiet,nvcc,$@)$(NVCC) $(NVFLAGS) $(call gencode,$(ARCHS)) -rdc=true tests/link_a.cu tests/link_b.cu -o $@
link: $(LINKS)
	@echo "two translation units link (whole-program and -rdc): ok"

# Misuses that must stop the build with exactly one error saying what to do (tests/compile_fail/).
$(BUILD)/compile_fail.ok: tests/compile_fail.sh $(wildcard tests/compile_fail/*.cu) $(HEADERS) | $(BUILD)
	@tests/compile_fail.sh $(NVCC) $(firstword $(ARCHS)) $(BUILD)/compile_fail && touch $@

# The CSV files under docs/ parse as CSV, every row as wide as the header (needs python3).
$(BUILD)/docs_csv.ok: $(wildcard docs/*.csv docs/*/*.csv) tests/check_csv.py | $(BUILD)
	@python3 tests/check_csv.py $(wildcard docs/*.csv docs/*/*.csv) && echo "docs/**.csv parse as CSV: ok" && touch $@

# docs/BENCHMARKS.md is generated from those CSV files and each folder's RUN.txt (GPU, date):
# make bench-doc writes it; make test regenerates it into $(BUILD) and fails when the two differ.
BENCH_DOC_INPUTS = $(wildcard docs/*.csv docs/*/*.csv docs/RUN.txt docs/*/RUN.txt) scripts/bench_doc.py
bench-doc:
	python3 scripts/bench_doc.py --docs docs -o docs/BENCHMARKS.md
	python3 scripts/bench_doc.py --readmes $(FIGURE_READMES) --pending $(FIGURES_PROSE_PENDING)
$(BUILD)/bench_doc.ok: $(BENCH_DOC_INPUTS) $(wildcard docs/BENCHMARKS.md) | $(BUILD)
	@python3 scripts/bench_doc.py --docs docs -o $(BUILD)/BENCHMARKS.md
	@cmp -s $(BUILD)/BENCHMARKS.md docs/BENCHMARKS.md || { echo "docs/BENCHMARKS.md is stale: run make bench-doc"; exit 1; }
	@echo "docs/BENCHMARKS.md matches the bench CSVs: ok" && touch $@

# The API reference (docs/api/) is generated from the header manuals: make api writes it; make test
# regenerates it into $(BUILD) and fails when the two differ. make docs renders every Markdown file
# to HTML in build/docs (Python-Markdown or pandoc, both Debian packages) and checks its links.
API_INPUTS = $(HEADERS) scripts/api_doc.py scripts/snippets.py
api:
	python3 scripts/api_doc.py --headers warpred -o docs/api
$(BUILD)/api_doc.ok: $(API_INPUTS) $(wildcard docs/api/*.md) | $(BUILD)
	@rm -rf $(BUILD)/api && python3 scripts/api_doc.py --headers warpred -o $(BUILD)/api
	@diff -r -q $(BUILD)/api docs/api > /dev/null || { diff -r -u docs/api $(BUILD)/api | head -n 40; \
	  echo "docs/api is stale (a header manual changed): run make api"; exit 1; }
	@echo "docs/api matches the header manuals: ok ($$(ls docs/api | wc -l) pages)" && touch $@
# Every link and anchor in README.md, CHANGELOG.md, docs/ and the sample READMEs resolves.
MARKDOWN_FILES = $(wildcard README.md CHANGELOG.md docs/*.md docs/*/*.md samples/*/README.md)
$(BUILD)/links.ok: $(MARKDOWN_FILES) scripts/check_links.py scripts/api_doc.py | $(BUILD)
	@python3 scripts/check_links.py . && touch $@
# A Python with Python-Markdown (the Debian package installs it for /usr/bin/python3), else pandoc.
DOCS_PYTHON ?= $(firstword $(foreach p,python3 /usr/bin/python3,$(shell $(p) -c 'import markdown' >/dev/null 2>&1 && echo $(p))) python3)
docs: api
	@rm -rf build/docs
	$(DOCS_PYTHON) scripts/render_docs.py . build/docs
	@python3 scripts/check_links.py --html build/docs
	@echo "open build/docs/README.html"

# Figures in the READMEs come from the CSVs (and recorded sample outputs) under docs/: make bench-doc
# renders their blocks, make test fails when a block is stale or a figure stands outside one.
# FIGURES_PENDING: READMEs not yet under the check (being rewritten by others; listed on every run).
# FIGURES_PROSE_PENDING: READMEs whose blocks are checked but whose prose still quotes figures
# outside blocks (counted in a note, not failed): remove a file from it once it is converted.
FIGURES_PENDING = samples/multi_gpu_sum/README.md
FIGURES_PROSE_PENDING =
FIGURE_READMES = $(filter-out $(FIGURES_PENDING),$(wildcard README.md samples/*/README.md))
$(BUILD)/figures.ok: $(FIGURE_READMES) $(BENCH_DOC_INPUTS) $(wildcard docs/*/*.txt) | $(BUILD)
	@python3 scripts/bench_doc.py --check-readmes $(FIGURE_READMES) --pending $(FIGURES_PROSE_PENDING)
	@echo "README figures match their CSVs and recorded outputs: ok$(if $(strip $(FIGURES_PENDING)), (not yet checked: $(FIGURES_PENDING)))" && touch $@

# ---- programs ----
# The manuals' USAGE code: scripts/snippets.py copies it from warpred/NAME.cuh (or .h) to
# $(BUILD)/snippets/NAME.inc, with #line directives into the header (its top comment says how it
# reads a manual). A test that writes #include "snippets/NAME.inc" compiles and runs the manual's
# own code, and depends on that file (snippets_of: the snippets a source includes).
$(BUILD)/snippets/%.inc: warpred/%.cuh scripts/snippets.py
	@mkdir -p $(@D)
	$(call quiet,snippets,$@)python3 scripts/snippets.py $< $@
$(BUILD)/snippets/%.inc: warpred/%.h scripts/snippets.py
	@mkdir -p $(@D)
	$(call quiet,snippets,$@)python3 scripts/snippets.py $< $@
# the README's quick start (the code block after "<!-- snippet: quickstart -->"), for tests/test_readme.cu
$(BUILD)/snippets/README.inc: README.md scripts/snippets.py
	@mkdir -p $(@D)
	$(call quiet,snippets,$@)python3 scripts/snippets.py --markdown README.md $@
snippets_of = $(addprefix $(BUILD)/,$(shell sed -n 's/^[[:space:]]*\#[[:space:]]*include[[:space:]]*"\(snippets\/[A-Za-z0-9_]*\.inc\)".*/\1/p' $(1) 2>/dev/null))
.PRECIOUS: $(BUILD)/snippets/%.inc

$(BUILD)/test_%: tests/test_%.cu $$(call snippets_of,tests/test_$$*.cu) | $(BUILD)
	$(call quiet,nvcc,$@)$(NVCC) $(TEST_FLAGS) $(DEPFLAGS) $(call gencode,$(ARCHS)) $< -o $@ $(CMOCKA_LIBS)

$(BUILD)/test_warp_reduce_generic: tests/test_warp_reduce.cu $$(call snippets_of,tests/test_warp_reduce.cu) | $(BUILD)
	$(call quiet,nvcc,$@)$(NVCC) $(TEST_FLAGS) $(DEPFLAGS) -DWARPRED_NO_REDUX -DWARPRED_NO_NAN_MINMAX --use_fast_math \
	  $(call gencode,$(ARCHS)) $< -o $@ $(CMOCKA_LIBS)

$(BUILD)/test_nvrtc: tests/test_nvrtc.cu | $(BUILD)
	$(call quiet,nvcc,$@)$(NVCC) $(TEST_FLAGS) $(DEPFLAGS) -DWT_CUDA_INCLUDE='"$(CUDA_HOME)/include"' \
	  $(call gencode,$(ARCHS)) $< -o $@ $(CMOCKA_LIBS) -lnvrtc

$(GPU_PROBE): tests/gpu_probe.cu | $(BUILD)
	$(call quiet,nvcc,$@)$(NVCC) $(NVFLAGS) $(call gencode,$(ARCHS)) $< -o $@

$(BUILD)/sample_%: samples/%/main.cu | $(BUILD)
	$(call quiet,nvcc,$@)$(NVCC) $(NVFLAGS) $(DEPFLAGS) $(SAMPLE_FLAGS_$*) $(call gencode,$(ARCHS)) $< -o $@ $(SAMPLE_LIBS_$*)

BENCH_FLAGS = -std=c++17 -O3 -DNDEBUG -lineinfo -I. -Ibench $(WARN)
# bench_cub36 compares with CUB 3.6: CCCL_DIR=DIR (DIR/cub, DIR/libcudacxx/include, DIR/thrust, as unpacked
# from ../shared/third_party); without it the program says so and exits 0. (Changing CCCL_DIR does not
# rebuild it by itself: touch bench/bench_cub36.cu or make clean.)
BENCH_FLAGS_cub36 = $(if $(CCCL_DIR),-I$(CCCL_DIR)/cub -I$(CCCL_DIR)/libcudacxx/include -I$(CCCL_DIR)/thrust)
# bench_segmented_cub36 (CUB 3.6's fixed-size DeviceSegmentedReduce) likewise
BENCH_FLAGS_segmented_cub36 = $(BENCH_FLAGS_cub36)
$(BUILD)/bench_%: bench/bench_%.cu | $(BUILD)
	$(call quiet,nvcc,$@)$(NVCC) $(BENCH_FLAGS_$*) $(BENCH_FLAGS) $(DEPFLAGS) $(call gencode,$(ARCHS)) $< -o $@ $(BENCH_LIBS_$*)

-include $(wildcard $(BUILD)/*.d $(BUILD)/alone/*.d)

# ---- running ----
DOC_CHECKS = $(BUILD)/docs_csv.ok $(BUILD)/bench_doc.ok $(BUILD)/figures.ok $(BUILD)/api_doc.ok $(BUILD)/links.ok
doc-check: $(DOC_CHECKS)
test: $(ALONE) $(HOST_CC_CHECKS) $(LINKS) $(BUILD)/compile_fail.ok $(DOC_CHECKS) $(HOST_TESTS) $(GPU_TESTS) $(SAMPLES) $(GPU_PROBE) $$(CONSUMER_CHECKS)
	@WARPRED_SAMPLE_QUICK=1 $(RUN) $(HOST_TESTS) $(GPU_TESTS) $(SAMPLE_ITEMS) $(CONSUMER_ITEMS)

# tests/sanitize.sh runs the tools at the same time, each tool's programs dealt into
# SANITIZE_SHARDS groups that run at the same time (default: the cores shared among the tools).
# SANITIZE_ONLY / SANITIZE_SKIP run a part: it says so, and choosing nothing is an error.
sanitize: $(SANITIZE_TESTS) $(SANITIZE_SAMPLES) $(GPU_PROBE)
	$(if $(strip $(SANITIZE_TESTS) $(SAMPLE_SANITIZE_ITEMS)),,$(error make sanitize: SANITIZE_ONLY='$(SANITIZE_ONLY)' SANITIZE_SKIP='$(SANITIZE_SKIP)' choose no test or sample (names: test_NAME, sample_NAME, % as a wildcard)))
	@$(if $(SANITIZE_PART),echo "sanitize: a part of the run (SANITIZE_ONLY='$(SANITIZE_ONLY)' SANITIZE_SKIP='$(SANITIZE_SKIP)'): $(words $(SANITIZE_TESTS)) tests and $(words $(SAMPLE_SANITIZE_ITEMS)) samples",true)
	@if [ ! -x "$(SANITIZER)" ]; then \
	  echo "sanitize: SKIPPED: no compute-sanitizer at $(SANITIZER) (the CUDA toolkit has it; SANITIZER=PATH names another)"; \
	  exit $(if $(filter 1,$(REQUIRE_GPU)),1,0); fi; \
	tests/sanitize.sh $(BUILD) "$(SANITIZER)" "$(SANITIZE_TOOLS)" "$(SAMPLE_SANITIZE_TOOLS)" $(SANITIZE_SHARDS) \
	  $(RUN_OPTS) -- $(SANITIZE_TESTS) -- $(SAMPLE_SANITIZE_ITEMS)

# Every sample, one line each at the end. Without a usable GPU: one sentence, exit 0 (REQUIRE_GPU=1: exit 1).
run: $(SAMPLES) $(GPU_PROBE)
	@$(RUN) --samples $(SAMPLE_ITEMS)

run-%: $$(if $$(filter $$*,$$(SAMPLE_CU_NAMES)),$$(BUILD)/sample_$$*) $(GPU_PROBE)
	@$(if $(filter $*,$(SAMPLE_NAMES)),$(RUN) --samples $(call sample_item,$*),echo "no sample named $* (samples: $(SAMPLE_NAMES))"; exit 2)

# Tables on stdout, CSVs and the bandwidth plot in $(BUILD) (the plot needs python3 + matplotlib).
bench: $(BENCHES)
	@ok=1; for b in $(BENCHES); do echo "=== $$b"; $$b $$b.csv || ok=0; done; \
	if [ -f $(BUILD)/bench_reduce.csv ]; then \
	  python3 bench/plot_bandwidth.py $(BUILD)/bench_reduce.csv $(BUILD)/bench_sum_bandwidth.png || ok=0; fi; \
	[ $$ok -eq 1 ]

# ---- install (headers, LICENSE, pkg-config file, CMake package) ----
# The version's one home is warpred/version.h; warpred.pc and the CMake files take it from there.
version_part = $(shell sed -n 's/^\#[[:space:]]*define[[:space:]]\{1,\}WARPRED_VERSION_$(1)[[:space:]]\{1,\}\([0-9]\{1,\}\).*/\1/p' warpred/version.h | head -n 1)
VERSION = $(call version_part,MAJOR).$(call version_part,MINOR).$(call version_part,PATCH)
CUDA_LIB_DIR = $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/lib) $(CUDA_HOME)/lib64)
CMAKE ?= cmake
DEST = $(DESTDIR)$(abspath $(PREFIX))
INSTALLED_HEADERS = $(addprefix $(DEST)/include/,$(HEADERS))

install:
	@case "$(PREFIX)" in /*) ;; *) echo "PREFIX must be an absolute path (got $(PREFIX))"; exit 1;; esac
	install -d $(DEST)/include/warpred $(DEST)/share/doc/warpred $(DEST)/lib/pkgconfig
	install -m 644 $(HEADERS) $(DEST)/include/warpred/
	install -m 644 LICENSE CHANGELOG.md $(DEST)/share/doc/warpred/
	sed -e 's|@PREFIX@|$(abspath $(PREFIX))|' -e 's|@WARPRED_VERSION@|$(VERSION)|' \
	    -e 's|@CUDA_INCLUDE_DIR@|$(CUDA_HOME)/include|' -e 's|@CUDA_LIB_DIR@|$(CUDA_LIB_DIR)|' \
	    warpred.pc.in > $(DEST)/lib/pkgconfig/warpred.pc
	@# the CMake package files come from CMake itself (install(EXPORT), config and version files)
	@if command -v $(CMAKE) >/dev/null 2>&1; then \
	  tmp=$$(mktemp -d) && \
	  $(CMAKE) -S . -B $$tmp -DCMAKE_INSTALL_PREFIX=$(abspath $(PREFIX)) -DCUDAToolkit_ROOT=$(CUDA_HOME) > $$tmp/log 2>&1 && \
	  DESTDIR=$(DESTDIR) $(CMAKE) --install $$tmp --component warpred_cmake >> $$tmp/log 2>&1 \
	    || { cat $$tmp/log; rm -rf $$tmp; exit 1; }; rm -rf $$tmp; \
	  echo "installed warpred $(VERSION) under $(DEST) (include/warpred, lib/pkgconfig/warpred.pc, lib/cmake/warpred, share/doc/warpred)"; \
	else echo "installed warpred $(VERSION) under $(DEST); cmake not found, so no CMake package files (lib/cmake/warpred)"; fi

uninstall:
	rm -rf $(DEST)/include/warpred $(DEST)/share/doc/warpred $(DEST)/lib/cmake/warpred
	rm -f $(DEST)/lib/pkgconfig/warpred.pc
	@# folders install created, only when now empty
	@for d in lib/pkgconfig lib/cmake lib share/doc share include; do \
	  [ -d $(DEST)/$$d ] && rmdir --ignore-fail-on-non-empty $(DEST)/$$d; done; true

# ---- consumer checks (make test): a tiny project builds against warpred as users do ----
# CMake three ways (add_subdirectory, FetchContent of a tarball of this checkout, find_package after
# make install), and nvcc/g++ with pkg-config --cflags --libs; on a GPU each consumer program runs.
CONSUMER = $(BUILD)/consumer
CONSUMER_ARCH ?= $(firstword $(ARCHS))
CONSUMER_SRC = $(wildcard tests/consumer/*)
PACKAGE_FILES = CMakeLists.txt $(wildcard cmake/*) warpred.pc.in LICENSE CHANGELOG.md
CONSUMER_WAYS = add_subdirectory fetchcontent find_package
HAVE_CMAKE := $(shell command -v $(CMAKE) >/dev/null 2>&1 && echo yes)
HAVE_PKG_CONFIG := $(shell command -v pkg-config >/dev/null 2>&1 && echo yes)
export CONSUMER_NO_CMAKE = cmake is not installed (sudo apt-get install -y cmake)
export CONSUMER_NO_PKG_CONFIG = pkg-config is not installed (sudo apt-get install -y pkg-config)
CONSUMER_CHECKS = $(if $(HAVE_CMAKE),$(foreach w,$(CONSUMER_WAYS),$(CONSUMER)/$(w)/warpred_consumer)) \
                  $(if $(HAVE_PKG_CONFIG),$(CONSUMER)/pkg-config/warpred_consumer) $(CONSUMER)/uninstall.ok
CONSUMER_ITEMS = $(if $(HAVE_CMAKE),$(foreach w,$(CONSUMER_WAYS),gpu:$(CONSUMER)/$(w)/warpred_consumer),$(foreach w,$(CONSUMER_WAYS),skip:consumer_$(w):CONSUMER_NO_CMAKE)) \
                 $(if $(HAVE_PKG_CONFIG),gpu:$(CONSUMER)/pkg-config/warpred_consumer,skip:consumer_pkg-config:CONSUMER_NO_PKG_CONFIG)

# configure and build tests/consumer in $(CONSUMER)/$(1) with extra cmake arguments $(2); the log stays there
consumer_cmake = @mkdir -p $(CONSUMER)/$(1) && echo "consumer ($(1)): cmake configure + build, log in $(CONSUMER)/$(1).log" && \
  { $(CMAKE) -S tests/consumer -B $(CONSUMER)/$(1) -DWARPRED_CONSUME=$(2) -DCMAKE_CUDA_COMPILER=$(NVCC) \
      -DCMAKE_CUDA_ARCHITECTURES=$(CONSUMER_ARCH) -DCMAKE_BUILD_TYPE=Release $(3) && \
    $(CMAKE) --build $(CONSUMER)/$(1); } > $(CONSUMER)/$(1).log 2>&1 || { tail -n 40 $(CONSUMER)/$(1).log; exit 1; }

$(CONSUMER)/add_subdirectory/warpred_consumer: $(CONSUMER_SRC) $(PACKAGE_FILES) $(HEADERS)
	$(call consumer_cmake,add_subdirectory,subdir,-DWARPRED_SOURCE_DIR=$(CURDIR))

# FetchContent as the README shows it: GIT_REPOSITORY + GIT_TAG pinned to a commit, from a git
# repository holding this checkout's package files (a tarball URL where git is missing).
HAVE_GIT := $(shell command -v git >/dev/null 2>&1 && echo yes)
$(CONSUMER)/warpred-src.tar.gz: $(PACKAGE_FILES) $(HEADERS)
	@mkdir -p $(CONSUMER)
	$(call quiet,tar,$@)tar czf $@ --transform 's|^|warpred/|' $(PACKAGE_FILES) $(HEADERS)
$(CONSUMER)/warpred-git.commit: $(PACKAGE_FILES) $(HEADERS)
	@rm -rf $(CONSUMER)/warpred-git && mkdir -p $(CONSUMER)/warpred-git
	$(call quiet,git,$(CONSUMER)/warpred-git)tar cf - $(PACKAGE_FILES) $(HEADERS) | tar xf - -C $(CONSUMER)/warpred-git && \
	  cd $(CONSUMER)/warpred-git && git init -q && git add -A && \
	  git -c user.name=warpred -c user.email=warpred@localhost commit -q -m "warpred $(VERSION)" && \
	  git rev-parse HEAD > ../warpred-git.commit
FETCH_INPUT = $(if $(HAVE_GIT),$(CONSUMER)/warpred-git.commit,$(CONSUMER)/warpred-src.tar.gz)
FETCH_ARGS = $(if $(HAVE_GIT),-DWARPRED_FETCH_URL=$(abspath $(CONSUMER)/warpred-git) -DWARPRED_FETCH_TAG=$$(cat $(CONSUMER)/warpred-git.commit),-DWARPRED_FETCH_URL=$(abspath $(CONSUMER)/warpred-src.tar.gz))

$(CONSUMER)/fetchcontent/warpred_consumer: $(CONSUMER_SRC) $(FETCH_INPUT)
	@rm -rf $(CONSUMER)/fetchcontent/_deps
	$(call consumer_cmake,fetchcontent,fetch,$(FETCH_ARGS))

$(CONSUMER)/prefix/lib/pkgconfig/warpred.pc: $(PACKAGE_FILES) $(HEADERS)
	@rm -rf $(CONSUMER)/prefix && mkdir -p $(CONSUMER)
	$(call quiet,install,$(CONSUMER)/prefix)$(MAKE) --no-print-directory install PREFIX=$(abspath $(CONSUMER)/prefix) DESTDIR= \
	  > $(CONSUMER)/install.log 2>&1 || { cat $(CONSUMER)/install.log; exit 1; }

$(CONSUMER)/find_package/warpred_consumer: $(CONSUMER_SRC) $(CONSUMER)/prefix/lib/pkgconfig/warpred.pc
	$(call consumer_cmake,find_package,package,-DCMAKE_PREFIX_PATH=$(abspath $(CONSUMER)/prefix))

# nvcc for the kernel, the host C++ compiler for scratch.cpp, both with the installed warpred.pc only
PC = PKG_CONFIG_PATH=$(abspath $(CONSUMER)/prefix)/lib/pkgconfig pkg-config
$(CONSUMER)/pkg-config/warpred_consumer: $(CONSUMER_SRC) $(CONSUMER)/prefix/lib/pkgconfig/warpred.pc
	@mkdir -p $(@D)
	@echo "consumer (pkg-config): warpred $$($(PC) --modversion warpred), cflags $$($(PC) --cflags warpred)"
	$(call quiet,g++,$(@D)/scratch.o)$(CXX) -std=c++17 -Wall -Wextra -Werror $$($(PC) --cflags warpred) -c tests/consumer/scratch.cpp -o $(@D)/scratch.o
	$(call quiet,nvcc,$@)$(NVCC) -std=c++17 $(WARN) $$($(PC) --cflags warpred) $(call gencode,$(CONSUMER_ARCH)) \
	  -Itests/consumer tests/consumer/main.cu $(@D)/scratch.o -o $@ $$($(PC) --libs warpred)

# install into a DESTDIR staging folder, uninstall, and nothing may remain
$(CONSUMER)/uninstall.ok: $(PACKAGE_FILES) $(HEADERS)
	@rm -rf $(CONSUMER)/stage && mkdir -p $(CONSUMER)/stage
	@$(MAKE) --no-print-directory install PREFIX=/opt/warpred DESTDIR=$(abspath $(CONSUMER)/stage) > /dev/null
	@$(MAKE) --no-print-directory uninstall PREFIX=/opt/warpred DESTDIR=$(abspath $(CONSUMER)/stage) > /dev/null
	@left=$$(find $(CONSUMER)/stage -mindepth 1 ! -type d; find $(CONSUMER)/stage/opt/warpred -mindepth 1 -type d 2>/dev/null); \
	  [ -z "$$left" ] || { echo "make uninstall left behind:"; echo "$$left"; exit 1; }
	@echo "make install DESTDIR=... PREFIX=/opt/warpred, then make uninstall: nothing left behind" && touch $@

# ---- the Python package (pyproject.toml, setup.py, python/warpred): installed offline into a venv ----
# --system-site-packages: the venv sees Debian's setuptools and wheel (python3-setuptools,
# python3-wheel), so pip needs no index (--no-build-isolation --no-index).
PY_VENV = $(BUILD)/venv
# a Python whose venv and setuptools can build offline (setuptools older than 70.1 needs wheel too)
VENV_PYTHON ?= $(firstword $(foreach p,python3 /usr/bin/python3,$(shell $(p) -c 'import venv, ensurepip, setuptools, wheel' >/dev/null 2>&1 && echo $(p))))
python-check:
	@[ -n "$(VENV_PYTHON)" ] || { echo "no python3 with venv, setuptools and wheel (Debian: sudo apt-get install -y python3-venv python3-setuptools python3-wheel)"; exit 1; }
	@rm -rf $(PY_VENV) && $(VENV_PYTHON) -m venv --system-site-packages $(PY_VENV) || \
	  { echo "$(VENV_PYTHON) -m venv failed (Debian: sudo apt-get install -y python3-venv)"; exit 1; }
	$(call quiet,pip,$(PY_VENV))$(PY_VENV)/bin/python -m pip install -q --no-build-isolation --no-index . > $(BUILD)/pip.log 2>&1 \
	  || { cat $(BUILD)/pip.log; exit 1; }
	@rm -rf python/*.egg-info; cd $(BUILD) && venv/bin/python -c "import os, warpred; d = warpred.get_include(); \
	  assert os.path.isfile(os.path.join(d, 'warpred', 'warpred.cuh')), d; \
	  assert warpred.__version__ == '$(VERSION)', warpred.__version__; \
	  print('python: warpred', warpred.__version__, 'installed; get_include() =', d)"

# ---- formatting: clang-format 14 with the style in .clang-format (CI runs format-check) ----
# clang-format-14 when installed under that name (other versions format a few constructs differently)
CLANG_FORMAT ?= $(or $(shell command -v clang-format-14 2>/dev/null),clang-format)
FORMAT_FILES = $(sort $(shell find warpred tests bench samples -type f \( -name '*.cu' -o -name '*.cuh' -o -name '*.h' \)))
format-check:
	@command -v $(CLANG_FORMAT) >/dev/null 2>&1 || { echo "clang-format is not installed (sudo apt-get install -y clang-format)"; exit 1; }
	@bad=""; for f in $(FORMAT_FILES); do $(CLANG_FORMAT) --style=file "$$f" | cmp -s - "$$f" || bad="$$bad $$f"; done; \
	if [ -n "$$bad" ]; then echo "formatting differs from .clang-format in (make format rewrites them):"; \
	  for f in $$bad; do echo "  $$f"; done; exit 1; fi; \
	echo "format-check: $(words $(FORMAT_FILES)) files match .clang-format ($$($(CLANG_FORMAT) --version | sed 's/.*version //'))"
format:
	@command -v $(CLANG_FORMAT) >/dev/null 2>&1 || { echo "clang-format is not installed (sudo apt-get install -y clang-format)"; exit 1; }
	$(CLANG_FORMAT) -i --style=file $(FORMAT_FILES)

# The whole build for every supported arch with warnings as errors (CI runs this).
archs:
	$(MAKE) ARCHS="$(ALL_ARCHS)" all headers link

clean:
	rm -rf $(BUILD)
