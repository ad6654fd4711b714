# fsvc - one Makefile for the library, the tool, the tests and the results.
#
#   make            build build/fsvc, build/libfsvc.a, build/libfsvc.so
#   make test       unit, CLI, Python tests, fuzz replay, ASan+UBSan and TSan reruns
#   make check-full make test's full matrices, ASan over every unit test, portability
#   make demo       install what is missing, build, train and evaluate
#   make deps       install missing Debian packages (root) or print the command
#   make fuzz       libFuzzer runs of every tests/fuzz/fuzz_*.c (clang), FUZZ_SECONDS each
#   make fuzz-replay  every kept fuzz input in tests/fuzz/corpus/ (part of make test)
#   make results    regenerate results/ (benchmarks, accuracy, studies)
#   make install    PREFIX=/usr/local (also the Python package, python/fsvc)
#   make python-test  the Python package's tests (pytest, $(PYTHON))
#
# Switches: NO_CUDA=1 (skip CUDA even when nvcc exists), NO_MPI=1 (fsvc
# without Open MPI even when mpicc exists), STATIC_BLAS=1|0 (the fsvc
# executable with OpenBLAS and LAPACKE linked statically, required, or
# shared; default: static when Debian's .a files are there), SAN=1
# (ASan+UBSan), SAN=thread (ThreadSanitizer),
# BUILD=dir (output folder), OPT=... (optimisation flags).

BUILD   ?= build
PREFIX  ?= /usr/local
CC      ?= cc
OPT     ?= -O2
SHELL   := /bin/bash
# Debian's NumPy and scikit-learn belong to Debian's interpreter; a python3
# found earlier in PATH (pyenv and the like) may lack them.
PYTHON  ?= /usr/bin/python3
PYTHON_SITE ?= $(PREFIX)/lib/python$(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo 3)/dist-packages

# ---- what is on this machine -------------------------------------------
PKGS      := openblas lapacke zlib libpng libjpeg cmocka
have_pkg   = $(shell pkg-config --exists $(1) 2>/dev/null && echo yes)
HAVE_OPENBLAS := $(call have_pkg,openblas)
HAVE_LAPACKE  := $(call have_pkg,lapacke)
HAVE_ZLIB     := $(call have_pkg,zlib)
HAVE_PNG      := $(call have_pkg,libpng)
HAVE_JPEG     := $(call have_pkg,libjpeg)
HAVE_CMOCKA   := $(call have_pkg,cmocka)
HAVE_OPENMP   := $(shell echo 'int main(void){return 0;}' | $(CC) -fopenmp -x c - -o /dev/null 2>/dev/null && echo yes)
CUDA_HOME     ?= $(or $(patsubst %/bin/nvcc,%,$(shell command -v nvcc 2>/dev/null)),/usr/local/cuda)
NVCC          := $(shell command -v nvcc 2>/dev/null || ( test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc ))
ifneq ($(NO_CUDA),)
NVCC :=
endif
# Open MPI (mpirun -np K build/fsvc ...): only tools/mpi_plugin.c sees it,
# built as $(BUILD)/fsvc-mpi.so, which tools/comm_mpi.c loads under mpirun.
MPICC    ?= $(shell command -v mpicc 2>/dev/null)
ifneq ($(NO_MPI),)
MPICC :=
endif
MPI_CFLAGS := $(if $(MPICC),$(shell $(MPICC) --showme:compile 2>/dev/null))
MPI_LIBS   := $(if $(MPICC),$(shell $(MPICC) --showme:link 2>/dev/null))

VERSION := $(shell sed -n 's/^\#define FSVC_VERSION "\(.*\)"/\1/p' fsvc/fsvc.h)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))

# ---- flags ----------------------------------------------------------------
CPPFLAGS += -I. -D_GNU_SOURCE
# a call without a prototype is an error: its int return and promoted
# arguments compile silently (a fuzz harness once called a loader so)
CFLAGS   += -std=c11 -Wall -Wextra -Wno-unused-parameter -Werror=implicit-function-declaration \
            -fPIC -g $(OPT)
LDLIBS   += -lm -lpthread
ifeq ($(HAVE_OPENMP),yes)
CFLAGS   += -fopenmp
LDFLAGS  += -fopenmp
endif
CFLAGS  += $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
BLAS_LIBS := $(shell pkg-config --libs openblas lapacke 2>/dev/null) -llapack
LDLIBS  += $(BLAS_LIBS) $(shell pkg-config --libs zlib libpng libjpeg 2>/dev/null)
TEST_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null)
# oneDNN (Debian's libdnnl-dev) for the onednn tier's f32 / bf16 products:
# its headers at build time, the library loaded on first use
# (layers/dnnl_load.c), not linked; NO_DNNL=1 builds without it (the tiers
# below keep every path).
ifeq ($(NO_DNNL),)
ifneq ($(wildcard /usr/include/oneapi/dnnl/dnnl.h),)
HAVE_DNNL := yes
CPPFLAGS += -DFSVC_HAVE_DNNL=1
# Under sanitizers it is linked too (the load then finds it there):
# LeakSanitizer (GCC 12) crashes at exit scanning the dynamic TLS of a
# dlopen'd libdnnl ("Tracer caught signal 11", google/sanitizers#1322).
ifneq ($(SAN),)
LDLIBS   += -Wl,--no-as-needed -ldnnl -Wl,--as-needed
endif
endif
endif
# The fsvc executable links Debian's static OpenBLAS and LAPACKE (the same
# 0.3.21 DYNAMIC_ARCH build as the shared one): loading and relocating
# libopenblas.so, liblapacke.so and their LAPACK, BLAS and Fortran
# libraries took a third of a 100-sample job's time (iris -v 5). About
# 25 MB more executable (every core's kernels). libfsvc.so and the tests
# keep the shared libraries. The two entry points blas_core.c asks for by
# dlsym are exported.
STATIC_BLAS ?= auto
BLAS_A := $(wildcard $(shell pkg-config --variable=libdir lapacke 2>/dev/null)/liblapacke.a) \
          $(wildcard $(shell pkg-config --variable=libdir openblas 2>/dev/null)/libopenblas.a)
ifeq ($(STATIC_BLAS),1)
ifneq ($(words $(BLAS_A)),2)
$(error STATIC_BLAS=1: no liblapacke.a and libopenblas.a (libopenblas-dev, liblapacke-dev))
endif
endif
BIN_BLAS := $(if $(filter 0,$(STATIC_BLAS)),shared,$(if $(filter 2,$(words $(BLAS_A))),static,shared))
BIN_LDLIBS = $(if $(filter static,$(BIN_BLAS)),$(BLAS_A) -lgfortran \
               -Wl$(comma)--export-dynamic-symbol=gotoblas_dynamic_init \
               -Wl$(comma)--export-dynamic-symbol=gotoblas_dynamic_quit \
               $(filter-out $(BLAS_LIBS),$(LDLIBS)),$(LDLIBS))

ifeq ($(SAN),thread)
CFLAGS  += -fsanitize=thread -fno-omit-frame-pointer
LDFLAGS += -fsanitize=thread
else ifneq ($(SAN),)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif

# ISA kernels carry their own flags; the rest is built for the baseline.
AVX2_FLAGS   := -mavx2 -mfma -mbmi2 -mf16c
AVX512_FLAGS := -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512vnni -mfma -mbmi2
isa_flags = $(if $(findstring _amx,$(1)),$(AVX512_FLAGS) -mavx512bf16 -mamx-tile -mamx-int8 -mamx-bf16,$(if $(findstring _avxvnni,$(1)),$(AVX2_FLAGS) -mavxvnni,$(if $(findstring _avx512bf16,$(1)),$(AVX512_FLAGS) -mavx512bf16,$(if $(findstring _avx512,$(1)),$(AVX512_FLAGS),$(if $(findstring _avx2,$(1)),$(AVX2_FLAGS))))))

# ---- sources ----------------------------------------------------------------
# cuda/ops.c, the backend's table, goes with the .cu files into the plugin
LIB_SRC   := $(filter-out cuda/ops.c,$(wildcard base/*.c fsvc/*.c layers/*.c datasets/*.c cuda/*.c))
# tools/comm_mpi.c (Open MPI) or tools/comm_one.c (one process) in the fsvc binary
TOOL_SRC  := $(filter-out tools/comm_mpi.c tools/comm_one.c tools/mpi_plugin.c,$(wildcard tools/*.c)) \
             tools/comm_$(if $(MPI_LIBS),mpi,one).c
TEST_SRC  := $(wildcard tests/test_*.c)
TESTUTIL  := $(wildcard tests/util/*.c)
CU_SRC    := $(if $(NVCC),$(wildcard cuda/*.cu))

LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CU_OBJ    := $(CU_SRC:%.cu=$(BUILD)/obj/%.cu.o)
TOOL_OBJ  := $(TOOL_SRC:%.c=$(BUILD)/obj/%.o)
TUTIL_OBJ := $(TESTUTIL:%.c=$(BUILD)/obj/%.o)
TEST_BIN  := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)

ifneq ($(NVCC),)
CPPFLAGS    += -DFSVC_HAVE_CUDA=1 -I$(CUDA_HOME)/include
CUDA_ARCHS  ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
               -gencode arch=compute_90,code=compute_90
NVCCFLAGS   ?= -O3 -std=c++17 -Xcompiler -fPIC -I. $(CUDA_ARCHS) --resource-usage
CUDA_LIBS   := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcusolver -lcublas -lcudart -lstdc++
# The backend as a plugin (cuda/plugin.h): fsvc, libfsvc.a and libfsvc.so
# name no CUDA library (loading them took 85 ms per process); cuda/load.c
# loads fsvc-cuda.so when a run asks for the CUDA backend. Its objects:
# the .cu files, the table, the host C they call and private copies of
# the base/ functions they use (cuda/plugin.map exports the entry only).
CUDA_PLUGIN     := $(BUILD)/fsvc-cuda.so
CUDA_PLUGIN_OBJ := $(CU_OBJ) $(patsubst %,$(BUILD)/obj/%.o,cuda/ops cuda/rules cuda/plan \
                   cuda/perf_model cuda/jobs cuda/tune_file cuda/device_pick base/error base/names)
# The unit tests and tests/cuda's check_kernels call the backend directly:
# its objects as an archive, linked after libfsvc.a; the tests load the
# plugin too, through build/tests/fsvc-cuda.so (a link to the real one).
CUDA_TEST_A     := $(BUILD)/libfsvc-cuda-test.a
TEST_PLUGIN     := $(BUILD)/tests/fsvc-cuda.so
TEST_CUDA        = -Wl,--start-group $(LIB_A) $(CUDA_TEST_A) -Wl,--end-group \
                   -Wl,--as-needed $(CUDA_LIBS) -Wl,--no-as-needed
endif

# Installed flat into include/fsvc/ (their "../dir/x.h" includes become "x.h").
PUBLIC_H := base/fsvc_base.h datasets/fsvc_data.h fsvc/fsvc.h fsvc/embed.h layers/bnl_types.h layers/bnl.h

LIB_A  := $(BUILD)/libfsvc.a
LIB_SO := $(BUILD)/libfsvc.so.$(VERSION)
BIN    := $(BUILD)/fsvc
MPI_PLUGIN := $(if $(MPI_LIBS),$(BUILD)/fsvc-mpi.so)

.PHONY: all lib tool tests test unit-test cli-test asan-test tsan-test demo deps fuzz fuzz-replay \
        results install uninstall clean config test-cuda python-test python-install test-data \
        test-build check-full fuzz-bins
all: config $(BIN) $(MPI_PLUGIN) $(CUDA_PLUGIN) $(LIB_A) $(LIB_SO) $(BUILD)/fsvc.pc

# pkg-config file. Regenerated every time (cheap), replaced only when it
# changes, so that switching PREFIX in one build folder updates it.
comma := ,
$(BUILD)/fsvc.pc: fsvc.pc.in FORCE
	@mkdir -p $(dir $@)
	@sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
	  fsvc.pc.in > $@.tmp && { cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@; }
.PHONY: FORCE
FORCE:

config:
	@echo "fsvc $(VERSION): openblas=$(or $(HAVE_OPENBLAS),no) lapacke=$(or $(HAVE_LAPACKE),no)" \
	  "zlib=$(or $(HAVE_ZLIB),no) libpng=$(or $(HAVE_PNG),no) libjpeg=$(or $(HAVE_JPEG),no) cmocka=$(or $(HAVE_CMOCKA),no)" \
	  "openmp=$(or $(HAVE_OPENMP),no) nvcc=$(or $(NVCC),no) mpi=$(if $(MPI_LIBS),yes,no)" \
	  "onednn=$(or $(HAVE_DNNL),no) blas=$(BIN_BLAS)$(if $(SAN), sanitizers=on)"
	@missing="$(if $(HAVE_OPENBLAS),,libopenblas-dev )$(if $(HAVE_LAPACKE),,liblapacke-dev )$(if $(HAVE_ZLIB),,zlib1g-dev )$(if $(HAVE_PNG),,libpng-dev )$(if $(HAVE_JPEG),,libjpeg-dev )"; \
	  if [ -n "$$missing" ]; then echo "fsvc: missing packages: $$missing(run 'make deps')"; exit 1; fi

# The flags the objects of this build folder were compiled with, replaced
# only when they change: switching NO_CUDA (or CC, CFLAGS) in one folder
# recompiles everything instead of linking objects of both kinds.
FLAGS_STAMP := $(BUILD)/obj/flags.txt
$(FLAGS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' '$(CC) $(CPPFLAGS) $(CFLAGS) $(NVCC) $(NVCCFLAGS)' > $@.tmp && \
	  { cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@; }

$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(call isa_flags,$<) -MMD -MP -c $< -o $@

$(BUILD)/obj/tools/mpi_plugin.o: tools/mpi_plugin.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(MPI_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.cu.o: %.cu $(FLAGS_STAMP)
	@mkdir -p $(dir $@) results
	$(NVCC) $(NVCCFLAGS) -DFSVC_HAVE_CUDA=1 -MMD -MP -c $< -o $@ 2> >(tee $@.ptxas >&2)

$(LIB_A): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LIB_SO): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,libfsvc.so.$(SOMAJOR) $(LDFLAGS) -o $@ $^ $(LDLIBS)
	ln -sf libfsvc.so.$(VERSION) $(BUILD)/libfsvc.so.$(SOMAJOR)
	ln -sf libfsvc.so.$(SOMAJOR) $(BUILD)/libfsvc.so

$(BIN): $(TOOL_OBJ) $(LIB_A) | $(MPI_PLUGIN) $(CUDA_PLUGIN)
	$(CC) $(LDFLAGS) -o $@ $(TOOL_OBJ) $(LIB_A) $(BIN_LDLIBS)

$(MPI_PLUGIN): $(BUILD)/obj/tools/mpi_plugin.o
	$(CC) -shared -o $@ $< $(MPI_LIBS)

$(CUDA_PLUGIN): $(CUDA_PLUGIN_OBJ) cuda/plugin.map
	$(CC) -shared $(LDFLAGS) -Wl,--version-script=cuda/plugin.map -Wl,--no-undefined -o $@ \
	  $(CUDA_PLUGIN_OBJ) $(CUDA_LIBS) -lm

$(CUDA_TEST_A): $(CU_OBJ) $(BUILD)/obj/cuda/ops.o
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/tests/fsvc-cuda.so: | $(CUDA_PLUGIN)
	@mkdir -p $(dir $@)
	ln -sf ../fsvc-cuda.so $@

$(BUILD)/tests/%: tests/%.c $(TUTIL_OBJ) $(LIB_A) $(CUDA_TEST_A) | $(TEST_PLUGIN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -o $@ $< $(TUTIL_OBJ) $(or $(TEST_CUDA),$(LIB_A)) $(LDFLAGS) \
	  $(LDLIBS) $(TEST_LIBS)

tests: $(TEST_BIN) $(TEST_PLUGIN)

# ---- test data ----------------------------------------------------------------
# data/ holds the data sets compressed (MNIST as its IDX .gz files, the UCI
# sets as gzipped LIBSVM text); the tests read them from $(BUILD)/data, the
# UCI files expanded (svm-train and the text checks want plain files).
# FSVC_DATA=DIR points every test at another folder of the same layout.
DATA_SRC  := $(wildcard data/mnist/*.gz data/uci-dogaru/*.gz)
DATA_DIR  := $(BUILD)/data
TEST_DATA := $(patsubst data/uci-dogaru/%.gz,$(DATA_DIR)/uci-dogaru/%,$(filter data/uci-dogaru/%,$(DATA_SRC))) \
             $(patsubst data/mnist/%,$(DATA_DIR)/mnist/%,$(filter data/mnist/%,$(DATA_SRC)))
FSVC_DATA ?= $(abspath $(DATA_DIR))
export FSVC_DATA

$(DATA_DIR)/uci-dogaru/%: data/uci-dogaru/%.gz
	@mkdir -p $(dir $@)
	@gzip -dc $< > $@.tmp && mv -f $@.tmp $@

$(DATA_DIR)/mnist/%: data/mnist/%
	@mkdir -p $(dir $@)
	@ln -sf $(abspath $<) $@

test-data: $(TEST_DATA)

# ---- tests ------------------------------------------------------------------
# make test: one parallel build of everything it runs, then the unit tests
# (cmocka), the CLI tests, the Python tests, the fuzz corpora replayed, and
# the sanitizer reruns where they find defects: ASan+UBSan over the tests
# of the code that reads untrusted bytes (loaders, the model reader, CSV,
# PNG), the slices, the threaded writers, a context's open and close (a
# failed strict "cuda" open once leaked) and the fuzz replay; TSan over the
# tests whose threads share the library's data. make check-full adds the
# whole MPI matrix (FSVC_TEST_FULL=1), ASan over every unit test and
# scripts/portability.sh (each OpenBLAS core and kernel tier).
NPROC      := $(shell nproc 2>/dev/null || echo 1)
ASAN_TESTS := test_libsvm test_idx test_idx_dims test_png test_jpeg test_png_write test_csv test_csr \
              test_names test_params test_model test_model_bad test_model_scale \
              test_model_regression test_embed test_dataset test_slice test_comm test_io \
              test_batch test_cuda_fallback test_dnnl test_hgram test_pcg_h_auto test_bf16_cache \
              test_hscore test_hog test_model_hog test_tri
# OpenMP's runtime is not instrumented, so only these (pthreads: ranks as
# threads in test_slice, writers in test_io; a shared inflate sink once
# corrupted 1 run in 20 of test_slice)
TSAN_TESTS := test_slice test_io
SAN_ASAN   := BUILD=build/asan SAN=1 NO_CUDA=1 OPT=-O1
SAN_TSAN   := BUILD=build/tsan SAN=thread NO_CUDA=1 OPT=-O1
# make fuzz builds the library and the tools with clang: each such source
# must compile there too (a gcc-only builtin once broke it unseen), checked
# by syntax only, one stamp a source. Without clang (make deps installs
# it) the check is skipped with a note.
CLANG_SRC := $(sort $(LIB_SRC) $(filter-out tools/fsvc.c tools/comm_mpi.c,$(TOOL_SRC)) \
             tools/comm_one.c)
CLANG_OK   = $(if $(shell command -v $(FUZZ_CC) 2>/dev/null),$(CLANG_SRC:%.c=$(BUILD)/clang/%.ok))
$(BUILD)/clang/%.ok: %.c
	@mkdir -p $(dir $@)
	@$(FUZZ_CC) $(FUZZ_CPPFLAGS) -std=c11 -fopenmp -fsyntax-only $(call isa_flags,$<) \
	  -MMD -MP -MF $@.d -MT $@ $< && touch $@

test-build:
	@$(if $(CLANG_OK),,echo "make test: $(FUZZ_CC) not found: the clang build check is skipped")
	@$(MAKE) --no-print-directory -j$(NPROC) all tests test-data $(REPLAY_BIN) \
	  $(BUILD)/tests/fuzz/replay_selftest $(CLANG_OK)
	@$(MAKE) --no-print-directory -j$(NPROC) $(SAN_ASAN) $(ASAN_TESTS:%=build/asan/tests/%) \
	  fuzz-bins
	@$(MAKE) --no-print-directory -j$(NPROC) $(SAN_TSAN) $(TSAN_TESTS:%=build/tsan/tests/%)

test: test-build
	@bash tools/check_includes.sh --self-test >/dev/null || { bash tools/check_includes.sh --self-test; exit 1; }
	@bash tools/check_includes.sh
	@bash tests/check_cuda_static.sh --self-test >/dev/null || { bash tests/check_cuda_static.sh --self-test; exit 1; }
	@bash tests/check_cuda_static.sh
	@bash tests/check_doc_paths.sh --self-test && bash tests/check_doc_paths.sh ARCHITECTURE.md README.md
	@python3 tests/check_call_circles.py --self-test && python3 tests/check_call_circles.py
	@python3 tests/check_fsvc_shape.py --self-test && python3 tests/check_fsvc_shape.py
	@git apply --check scripts/precond_precision.patch || { echo "make test: \
	  scripts/precond_precision.patch no longer applies (the script says how to remake it)"; exit 1; }
	@$(MAKE) --no-print-directory unit-test
	@$(MAKE) --no-print-directory cli-test
	@$(MAKE) --no-print-directory python-test
	@$(MAKE) --no-print-directory fuzz-replay
	@$(MAKE) --no-print-directory asan-test
	@$(MAKE) --no-print-directory tsan-test
	@echo "make test: all passed"

check-full:
	@FSVC_TEST_FULL=1 $(MAKE) --no-print-directory test
	@$(MAKE) --no-print-directory -j$(NPROC) $(SAN_ASAN) tests
	@FSVC_TEST_QUICK=1 bash tests/run_unit.sh $(TEST_SRC:tests/%.c=build/asan/tests/%)
	@bash scripts/portability.sh
	@echo "make check-full: all passed"

# Ends with "unit: N passed, M failed, K skipped" (tests/run_unit.sh).
unit-test: tests test-data
	@bash tests/run_unit.sh $(TEST_BIN)

cli-test: $(BIN) test-data
	@FSVC=$(BIN) bash tests/cli/run.sh

# The Python package over build/libfsvc.so, with scikit-learn's estimator
# checks (tests/python, pytest under $(PYTHON)).
python-test: $(LIB_SO) $(BIN) test-data
	@cd tests/python && FSVC=$(abspath $(BIN)) FSVC_LIBRARY=$(abspath $(BUILD))/libfsvc.so \
	  PYTHON=$(PYTHON) PYTHONPATH=$(abspath python) PYTHONDONTWRITEBYTECODE=1 \
	  $(PYTHON) -m pytest -q -rs -p no:cacheprovider .

fuzz-bins: $(REPLAY_BIN) $(BUILD)/tests/fuzz/replay_selftest

asan-test: test-data
	@$(MAKE) --no-print-directory -j$(NPROC) $(SAN_ASAN) $(ASAN_TESTS:%=build/asan/tests/%) fuzz-bins
	@FSVC_TEST_QUICK=1 bash tests/run_unit.sh $(ASAN_TESTS:%=build/asan/tests/%)
	@$(MAKE) --no-print-directory $(SAN_ASAN) fuzz-replay

tsan-test: test-data
	@$(MAKE) --no-print-directory -j$(NPROC) $(SAN_TSAN) $(TSAN_TESTS:%=build/tsan/tests/%)
	@TSAN_OPTIONS="halt_on_error=1 exitcode=66" bash tests/run_unit.sh \
	  $(TSAN_TESTS:%=build/tsan/tests/%)

test-cuda: all $(CUDA_TEST_A)
	@$(MAKE) --no-print-directory -C tests/cuda BUILD=$(abspath $(BUILD))

# ---- set-up and the main job -------------------------------------------------
DEBIAN_PKGS := build-essential pkg-config libopenblas-dev liblapacke-dev zlib1g-dev \
               libpng-dev libjpeg-dev libjpeg-turbo-progs libcmocka-dev dataset-fashion-mnist gnuplot-nox libsvm-tools \
               clang libclang-rt-14-dev libomp-dev python3-numpy python3-sklearn python3-pytest \
               python3-pandas python3-matplotlib python3-venv openmpi-bin libopenmpi-dev time libdnnl-dev
deps:
	@missing=""; for p in $(DEBIAN_PKGS); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	  if [ -z "$$missing" ]; then echo "deps: all present"; \
	  elif [ "$$(id -u)" = 0 ]; then echo "deps: installing$$missing"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing; \
	  else echo "deps: missing$$missing; run: sudo apt-get install -y$$missing"; exit 1; fi

DEMO_DATA ?= /usr/share/datasets/fashion-mnist
demo: deps
	@$(MAKE) --no-print-directory all
	@bash tools/demo.sh $(BIN) $(DEMO_DATA)

# ---- fuzzing ----------------------------------------------------------------
# Every tests/fuzz/fuzz_<name>.c is a libFuzzer target, built by one rule:
# `make fuzz` compiles the library and the tools' sources (all but
# tools/fsvc.c) with clang into $(BUILD)/fuzz/obj, links each target with
# -fsanitize=fuzzer,address,undefined and runs it FUZZ_SECONDS on
# $(BUILD)/fuzz/corpus-<name>, seeded with tests/fuzz/corpus/<name>/.
# `make fuzz-replay` (part of make test, plain and under ASan) links each
# target with tests/fuzz/replay.c by $(CC) instead and runs it on every file
# of tests/fuzz/corpus/<name>/: kept crashing or hanging inputs stay tests.
FUZZ_SECONDS  ?= 60
FUZZ_CC       ?= clang
FUZZ_SRC      := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES    := $(FUZZ_SRC:tests/fuzz/%.c=%)
CLI_OBJ       := $(filter-out $(BUILD)/obj/tools/fsvc.o $(BUILD)/obj/tools/comm_mpi.o $(BUILD)/obj/tools/comm_one.o,$(TOOL_OBJ)) \
                 $(BUILD)/obj/tools/comm_one.o
CLI_A         := $(BUILD)/libfsvc-cli.a
FUZZ_OBJ      := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(LIB_SRC) \
                 $(filter-out tools/fsvc.c tools/comm_mpi.c,$(TOOL_SRC)) tools/comm_one.c)
FUZZ_FLAGS    := -std=c11 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
                 -fno-sanitize-recover=undefined -fopenmp
FUZZ_CPPFLAGS := -I. -D_GNU_SOURCE $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
FUZZ_LIBS     := $(shell pkg-config --libs openblas lapacke zlib libpng libjpeg 2>/dev/null) -llapack -lm -lpthread
REPLAY_BIN    := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/replay_%)

# clang's UBSan takes minutes on the unrolled SIMD kernels (kern_gram_avx512.c:
# 8 min and 5.5 GB, against 32 s with ASan alone): the ISA files get ASan
# alone here; make test's gcc build runs them under UBSan too.
FUZZ_ISA_FLAGS := $(subst address$(comma)undefined,address,$(FUZZ_FLAGS))

$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(if $(call isa_flags,$<),$(FUZZ_ISA_FLAGS),$(FUZZ_FLAGS)) \
	  -fsanitize=fuzzer-no-link $(call isa_flags,$<) -MMD -MP -c $< -o $@

$(BUILD)/fuzz/libfsvc-fuzz.a: $(FUZZ_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(BUILD)/fuzz/libfsvc-fuzz.a
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(BUILD)/fuzz/libfsvc-fuzz.a $(FUZZ_LIBS)

fuzz: config $(FUZZ_NAMES:%=$(BUILD)/fuzz/%)
	@set -o pipefail; for n in $(FUZZ_NAMES); do \
	  mkdir -p $(BUILD)/fuzz/corpus-$$n; \
	  echo "== $(BUILD)/fuzz/$$n ($(FUZZ_SECONDS) s)"; \
	  $(BUILD)/fuzz/$$n -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    $(BUILD)/fuzz/corpus-$$n $$(test -d tests/fuzz/corpus/$$n && echo tests/fuzz/corpus/$$n) \
	    2>&1 | tail -n 12 || exit 1; \
	done

$(CLI_A): $(CLI_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/tests/fuzz/replay_%: tests/fuzz/%.c tests/fuzz/replay.c $(CLI_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ tests/fuzz/replay.c $< $(CLI_A) $(LIB_A) $(LDFLAGS) $(LDLIBS)

$(BUILD)/tests/fuzz/replay_selftest: tests/fuzz/replay_selftest.c tests/fuzz/replay.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ tests/fuzz/replay.c $< $(LDFLAGS)

# The replay must fail on a crash and on a hang, naming the input; then
# every corpus is replayed.
fuzz-replay: $(REPLAY_BIN) $(BUILD)/tests/fuzz/replay_selftest
	@t=$(BUILD)/tests/fuzz/replay_selftest; d=$$(mktemp -d); \
	  printf ok > $$d/ok; printf crash > $$d/crash; printf hang > $$d/hang; \
	  $$t $$d/ok 2>/dev/null && ! ( $$t $$d/crash 2>$$d/e1; exit $$? ) 2>/dev/null && ! $$t -t 1 $$d/hang 2>$$d/e2 && \
	  grep -q "crashed" $$d/e1 && grep -q "input was $$d/crash" $$d/e1 && \
	  grep -q "timed out" $$d/e2 && grep -q "input was $$d/hang" $$d/e2; r=$$?; rm -rf $$d; \
	  if [ $$r = 0 ]; then echo "== replay self-test: passes a good input, fails a crash and a hang"; \
	  else echo "fuzz replay self-test FAILED"; exit 1; fi
	@for n in $(FUZZ_NAMES); do printf '== replay %s: ' $$n; \
	  $(BUILD)/tests/fuzz/replay_$$n tests/fuzz/corpus/$$n 2>&1 | tail -n 3; \
	  test $${PIPESTATUS[0]} = 0 || { echo "fuzz replay FAILED: $$n"; exit 1; }; done

# ---- results -----------------------------------------------------------------
results: all
	@bash scripts/make_results.sh $(BIN)

# ---- install -----------------------------------------------------------------
install: all python-install
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/fsvc
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/fsvc
	for p in $(MPI_PLUGIN) $(CUDA_PLUGIN); do if [ -e "$$p" ]; then \
	  install -d $(DESTDIR)$(PREFIX)/lib/fsvc && install -m 755 $$p $(DESTDIR)$(PREFIX)/lib/fsvc/ || exit 1; fi; done
	install -m 644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIB_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libfsvc.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libfsvc.so.$(SOMAJOR)
	ln -sf libfsvc.so.$(SOMAJOR) $(DESTDIR)$(PREFIX)/lib/libfsvc.so
	for h in $(PUBLIC_H); do \
	  sed 's|^#include "\.\./[a-z]*/\([a-z_]*\.h\)"|#include "\1"|' $$h \
	    > $(DESTDIR)$(PREFIX)/include/fsvc/$$(basename $$h) || exit 1; done
	install -m 644 $(BUILD)/fsvc.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/fsvc.pc

python-install:
	install -d $(DESTDIR)$(PYTHON_SITE)/fsvc
	install -m 644 python/fsvc/*.py $(DESTDIR)$(PYTHON_SITE)/fsvc/

uninstall:
	rm -rf $(DESTDIR)$(PYTHON_SITE)/fsvc
	rm -f $(DESTDIR)$(PREFIX)/bin/fsvc $(DESTDIR)$(PREFIX)/lib/libfsvc.* \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig/fsvc.pc
	rm -rf $(DESTDIR)$(PREFIX)/lib/fsvc
	rm -rf $(DESTDIR)$(PREFIX)/include/fsvc

clean:
	rm -rf build

.SECONDARY:

-include $(shell find $(BUILD)/obj $(BUILD)/tests $(BUILD)/fuzz/obj $(BUILD)/clang -name '*.d' 2>/dev/null)
