# crosscheck: one Makefile.  `make run` and `make test` are all a fresh Debian
# machine needs: both install missing packages first (scripts/deps.sh).
#
#   make            bin/crosscheck and libcrosscheck.a
#   make test       build and run every CUnit suite
#   make run        build and run the default cross-check (verdict table + report)
#   make bench      dedispersion benchmark to runs/bench-dedisperse.json
#   make study      the default sensitivity study (rates table, runs/study/index.html)
#   make sanitize   the tests under ASan + UBSan (separate build tree)
#   make install PREFIX=/usr/local   (make install-check: into a staging prefix, then checked)
#   make mutants    planted bugs (scripts/mutants.list) each built and run
#                   against the tests that must catch it and, for
#                   implementations, crosscheck gate; the table in
#                   runs/mutants/ (tens of minutes; not in make test)
#   make clean
#   make fuzz       libFuzzer targets (fuzz/) under ASan + UBSan with clang, each
#                   run FUZZ_SECONDS (default 60); make test replays their corpora
#   make gpu-check  build for the lent H100/H200 and print the GPU table
#                   (scripts/gpu-check.sh; run on the device machine)
#   make report-check  a report with every plot kind, loaded in headless
#                   chromium (installed when missing): fails on a console error
#                   or an image that does not decode; saves a screenshot
#                   (scripts/report-check.sh)
#   V=1 shows full commands.  MPI=0 builds `crosscheck study` without OpenMPI
#   (default: with it when mpicc is found).  CUDA=0 leaves the GPU implementations out
#   (default: built when nvcc is found).  STATIC=1 links GSL, FFTW, jansson,
#   CUnit, libgomp and the CUDA runtime statically, for the device machine.
#   PLOTS=0 builds the report writer without cairo (each plot becomes a line
#   of text); STATIC=1 implies it, the device machine has no cairo.

# Builds use every core unless the caller chose (make -jN, or -j1 to debug):
# a serial build is most of `make test`'s time on a 2-core CI machine.
ifeq ($(filter -j%,$(MAKEFLAGS))$(filter j%,$(firstword $(MAKEFLAGS))),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif

PREFIX ?= /usr/local
BIN    ?= bin
OPT    ?= -O2
# Debug information: full by default; a CI job (CI=true, as GitHub Actions,
# GitLab and .ci/run set it) builds a clean clone with line tables only, a
# fifth less CPU for the C compiles.  GCC generates the same code at either
# level (objdump -d of the objects is identical).
ifeq ($(CI),true)
DEBUG  ?= -g1
else
DEBUG  ?= -g
endif
SAN    ?=
CC     ?= cc

# Plots are drawn with cairo, except with PLOTS=0 (and always with STATIC=1).
PLOTS    ?= 1
ifeq ($(STATIC),1)
override PLOTS := 0
endif
PKGS     := gsl fftw3 fftw3f jansson $(if $(filter 1,$(PLOTS)),cairo)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
ifeq ($(STATIC),1)
# For the device machine (another distribution): everything but libc static.
PKG_LIBS   := -Wl,-Bstatic -lgsl -lgslcblas -lfftw3f -lfftw3 -ljansson -lcunit \
	      $(shell $(CC) -print-file-name=libgomp.a) -Wl,-Bdynamic -static-libgcc -static-libstdc++
else
# cairo is not linked: reports/draw/plot_cairo_load.c opens it when the
# first figure is drawn (its 19 libraries cost every process start 10 ms).
PKG_LIBS   := $(shell pkg-config --libs $(filter-out cairo,$(PKGS)) 2>/dev/null)
endif

MODDIRS  := core core/base core/io core/dedisp/plan core/dedisp/approx core/dedisp/run \
	    core/search core/search/cands core/search/stats core/search/spectrum core/search/pulscan core/search/accel \
	    core/sp core/sp/files approx approx/pulscan approx/accel reference optimized optimized/cpu synth/model synth/truth synth/noise synth/signal synth/write synth/population compare compare/check compare/conform \
	    reports reports/draw study study/spec study/search study/out bench
# Every include names its layer ("core/dedisp/xc_dedisperse.h"), so one -I. is all.
CPPFLAGS += -D_GNU_SOURCE -I. $(if $(filter 1,$(PLOTS)),-DXC_HAVE_CAIRO)
# -Wno-missing-field-initializers: structs of the API grow trailing members
# (xc_series's error bars), and positional initialisers of the leading
# members ({label, x, y, n}) must keep compiling, the rest zero.
CFLAGS   += -std=c11 $(OPT) $(DEBUG) -Wall -Wextra -Wno-missing-field-initializers -Werror -fopenmp $(SAN) $(PKG_CFLAGS)
ifeq ($(STATIC),1)
LDFLAGS  += $(SAN) -pthread
else
LDFLAGS  += -fopenmp $(SAN)
endif
LDLIBS   += $(PKG_LIBS) $(CUDA_LIBS) -lm -ldl

# CUDA: the GPU implementations are built when nvcc is found, unless CUDA=0.
NVCC     ?= $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
ifeq ($(strip $(NVCC)),)
CUDA     ?= 0
else
CUDA     ?= 1
endif
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
# A CI job (CI=true) on a machine with no NVIDIA device (no /dev/nvidia<N>)
# still compiles every .cu file through nvcc's front end and cicc, warnings
# as errors, but stops at PTX: ptxas, a quarter of nvcc's CPU there, would
# assemble sm_90 code that no device of that machine runs (its GPU tests
# are skipped; the gpu implementations only say "unavailable", as before).
# Every other build, the device machine's included, assembles for sm_90.
ifeq ($(CI)$(wildcard /dev/nvidia[0-9]*),true)
CU_PTX_ONLY ?= 1
endif
ifeq ($(CU_PTX_ONLY),1)
CU_GENCODE ?= -gencode arch=compute_90,code=compute_90
else
CU_GENCODE ?= -gencode arch=compute_90,code=sm_90
endif
NVCCFLAGS ?= -O3 -std=c++17 $(CU_GENCODE) -lineinfo \
	     -Xcompiler -Wall,-Wextra,-Werror -Werror all-warnings
# Objects of CUDA and CPU-only builds differ (the registry), so they live apart.
# So do those with and without plots (PLOTS=0 drops cairo).
BUILD    ?= build/$(if $(filter 1,$(CUDA)),cuda$(if $(filter 1,$(CU_PTX_ONLY)),-ptx),nocuda)$(if $(filter 1,$(STATIC)),-static,$(if $(filter 0,$(PLOTS)),-noplots))$(if $(filter 1,$(MPI)),,-nompi)

# MPI: `crosscheck study` spreads pulsars over ranks when OpenMPI's mpicc is
# found (cli/study/cmd_study_mpi.c; study_mpi_load.c opens the library), unless MPI=0;
# STATIC=1 (the device machine) builds without it.
ifeq ($(STATIC),1)
MPI      ?= 0
endif
MPICC    ?= $(shell command -v mpicc 2>/dev/null)
ifeq ($(strip $(MPICC)),)
MPI      ?= 0
else
MPI      ?= 1
endif
# OpenMPI is not linked: cli/study/study_mpi_load.c opens it when a study
# runs under mpirun (its libraries cost every process start 6 ms).
ifeq ($(MPI),1)
MPI_CFLAGS := $(shell $(MPICC) --showme:compile 2>/dev/null)
endif

ifeq ($(CUDA),1)
CPPFLAGS += -DXC_HAVE_CUDA
CU_SRC   := $(wildcard optimized/gpu/*.cu)
# nvcc costs some 3 CPU s a translation unit before the unit's own code (the
# CUDA headers through two preprocessors, cudafe++, the host compile of its
# output): the .cu files are compiled as one unit per family, each unit a
# generated $(BUILD)/cu/<family>.cu that includes its files in name order
# (26 units took 101 CPU s, these 5 take 43).  Each kernel's PTX is the same
# as from its file compiled alone (the anonymous namespaces' names aside).
# CU_UNITY=0 compiles each file alone, as each must still compile.
CU_UNITY ?= 1
CU_FAM_accel     := $(filter optimized/gpu/accel_%,$(CU_SRC))
CU_FAM_dd_approx := $(filter optimized/gpu/dd_approx_%,$(CU_SRC))
CU_FAM_pulscan   := $(filter optimized/gpu/pulscan_%,$(CU_SRC))
CU_FAM_sp        := $(filter optimized/gpu/sp_%,$(CU_SRC))
# the rest: the direct dedisperser (dd_*, dedisperse_gpu) and the device query
CU_FAM_dd        := $(filter-out $(CU_FAM_accel) $(CU_FAM_dd_approx) $(CU_FAM_pulscan) $(CU_FAM_sp),$(CU_SRC))
CU_FAMS  := $(foreach f,accel dd_approx pulscan sp dd,$(if $(CU_FAM_$f),$f))
# cuFFT (the accel searcher) has no static library here: it is opened
# when first used (optimized/gpu/cufft_load.c, which needs its header), not
# linked, so that a process that never plans a transform does not load it
# (35 of the 63 ms CPU a start took); the rpath finds it under the toolkit,
# scripts/gpu-check.sh device also sets LD_LIBRARY_PATH=/usr/local/cuda/lib64.
$(BUILD)/optimized/gpu/cufft_load.o: CPPFLAGS += -I$(CUDA_HOME)/include
CUDA_LIBS := -Wl,-rpath,$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++
endif

LIB_SRC  := $(wildcard $(addsuffix /*.c,$(MODDIRS)) $(if $(filter 1,$(CUDA)),optimized/gpu/*.c))
CLI_SRC  := $(wildcard cli/*.c cli/*/*.c cli/*/*/*.c)
TEST_SRC := $(wildcard tests/test_*.c)
ifeq ($(CU_UNITY),1)
CU_OBJ   := $(CU_FAMS:%=$(BUILD)/cu/%.o)
else
CU_OBJ   := $(CU_SRC:%.cu=$(BUILD)/%.o)
endif
# The nvcc units first: the longest compiles (dd's takes 15 CPU s) start
# while the C files keep the other core busy, instead of ending the build
# with one core idle.
LIB_OBJ  := $(CU_OBJ) $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BIN)/tests/%)
LIBA     := $(BUILD)/libcrosscheck.a
# The command-line pieces (not main) as an archive, for the fuzz targets.
CLIA     := $(BUILD)/libxccli.a

# Fuzz targets: fuzz/fuzz_<reader>.c, each an LLVMFuzzerTestOneInput.  Built
# twice: with the ordinary compiler and fuzz/fuzz_main.c into $(BIN)/fuzz/
# (make test replays the corpora through them, tests/test_fuzz.c), and with
# clang + libFuzzer + ASan/UBSan into build/fuzz/ (make fuzz).
FUZZ_SRC    := $(filter-out fuzz/fuzz_util.c fuzz/fuzz_main.c,$(wildcard fuzz/fuzz_*.c))
FUZZ_NAMES  := $(FUZZ_SRC:fuzz/%.c=%)
FUZZ_HELP   := fuzz/fuzz_util.c fuzz/cands_props.c
FUZZ_REPLAY := $(FUZZ_NAMES:%=$(BIN)/fuzz/%)

ifeq ($(V),1)
Q :=
else
Q := @
endif

# The plugin ABI: one header of its own, all a plugin includes.
PLUGIN_HEADER := include/crosscheck/xc_plugin.h

# The example plugin (examples/plugin-dedisp/) and the test suite's variants
# of it, built as a user builds a plugin: that header only, no libcrosscheck.
PLUGIN_SRC  := examples/plugin-dedisp/dedisp.c
PLUGIN_VARS := ok bug crash hang abi
PLUGINS     := $(PLUGIN_VARS:%=$(BIN)/plugins/libxcdd_%.so)
# The single-pulse searcher example (examples/plugin-dedisp/sp.c), correct and buggy.
SP_PLUGIN_SRC := examples/plugin-dedisp/sp.c
PLUGINS     += $(BIN)/plugins/libxcsp_ok.so $(BIN)/plugins/libxcsp_bug.so
PLUGIN_DEF_ok :=
PLUGIN_DEF_bug := -DPLANTED_BUG
PLUGIN_DEF_crash := -DPLANTED_CRASH
PLUGIN_DEF_hang := -DPLANTED_HANG
PLUGIN_DEF_abi := -DPLANTED_ABI

.PHONY: all deps test test-only test-readme-long test-large run study bench sanitize install install-check clean gpu-check fuzz fuzz-deps fuzz-build plugins
all: $(BIN)/crosscheck libcrosscheck.a $(TEST_BIN) $(FUZZ_REPLAY) $(PLUGINS)

plugins: $(PLUGINS)

$(BIN)/plugins/libxcdd_%.so: $(PLUGIN_SRC) $(PLUGIN_HEADER)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  PLUGIN  $@")
	$(Q)$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -fPIC -shared -I$(dir $(PLUGIN_HEADER)) $(PLUGIN_DEF_$*) -o $@ $< -lm

$(BIN)/plugins/libxcsp_%.so: $(SP_PLUGIN_SRC) $(PLUGIN_HEADER)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  PLUGIN  $@")
	$(Q)$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -fPIC -shared -I$(dir $(PLUGIN_HEADER)) $(PLUGIN_DEF_$*) -o $@ $< -lm

deps:
	@sh scripts/deps.sh

ifeq ($(MPI),1)
$(BUILD)/cli/study/cmd_study_mpi.o $(BUILD)/cli/study/study_mpi_load.o: CPPFLAGS += -DXC_HAVE_MPI $(MPI_CFLAGS)
endif

# The noise generator's and the top hats' bits are defined without fused multiply-add;
# their AVX-512 code would let GCC contract a*b+c in GNU modes, so that stays off for them.
$(BUILD)/synth/noise/synth_noise.o: CFLAGS += -ffp-contract=off
$(BUILD)/synth/signal/synth_tophat.o: CFLAGS += -ffp-contract=off
$(BUILD)/synth/signal/synth_phase.o: CFLAGS += -ffp-contract=off
# The optimized kernels get -O3; everything else the default.
$(BUILD)/optimized/%.o: OPT := -O3
$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/%.o: %.cu
	@mkdir -p $(@D)
	@$(if $(Q),echo "  NVCC    $<")
	$(Q)$(NVCC) $(NVCCFLAGS) $(CPPFLAGS) -MMD -MP -c $< -o $@

# A family's unit is rewritten only when its list of files changes (a file
# added or removed), so an unchanged list rebuilds nothing; the .d files
# name the included .cu files, so an edited one rebuilds its family.
$(CU_FAMS:%=$(BUILD)/cu/%.cu): $(BUILD)/cu/%.cu: FORCE
	@mkdir -p $(@D)
	$(Q)printf '#include "%s"\n' $(CU_FAM_$*) > $@.tmp && { cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@; }

$(CU_FAMS:%=$(BUILD)/cu/%.o): $(BUILD)/cu/%.o: $(BUILD)/cu/%.cu
	@$(if $(Q),echo "  NVCC    $(CU_FAM_$*:optimized/gpu/%=%)")
	$(Q)$(NVCC) $(NVCCFLAGS) $(CPPFLAGS) -MMD -MP -c $< -o $@

.PHONY: FORCE
FORCE:

$(LIBA): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(Q)rm -f $@ && ar rcs $@ $^

libcrosscheck.a: $(LIBA)
	$(Q)cp $< $@

# bin/crosscheck links GSL and FFTW statically when their archives are
# installed (Debian's -dev packages ship them): the same code, without
# their relocation at every start (22 -> 15 ms CPU a start; the tests
# start it more than 500 times).  The test programs link them as before.
CLI_STATIC_AR := $(foreach l,gsl gslcblas fftw3f fftw3,$(wildcard $(shell $(CC) -print-file-name=lib$(l).a)))
ifeq ($(filter 1,$(STATIC))$(words $(CLI_STATIC_AR)),4)
CLI_LDLIBS := -Wl,-Bstatic -lgsl -lgslcblas -lfftw3f -lfftw3 -Wl,-Bdynamic \
	      $(filter-out -lgsl -lgslcblas -lfftw3f -lfftw3,$(LDLIBS))
else
CLI_LDLIBS := $(LDLIBS)
endif
$(BIN)/crosscheck: $(CLI_OBJ) $(LIBA)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIBA) $(CLI_LDLIBS)

# The ~80 test and fuzz-replay programs each link the whole static library:
# gold links them in half bfd's CPU time (0.17 s against 0.38 s each), some
# 16 CPU seconds of a clean `make test`.  Used when the compiler driver finds
# it (binutils ships it on Debian 12); bin/crosscheck keeps the default linker.
ifneq ($(STATIC),1)
TEST_LD := $(shell $(CC) -fuse-ld=gold -Wl,--version 2>/dev/null | grep -q '^GNU gold' && echo -fuse-ld=gold)
endif

# The test programs' own code (tests/) is compiled at TEST_OPT, not OPT: it
# is not the code under test (the library keeps its flags), and -O1 takes
# a tenth less CPU to compile (46 -> 41.5 s for tests/) and runs as fast.
TEST_OPT ?= -O1
TEST_CFLAGS = $(filter-out $(OPT),$(CFLAGS)) $(TEST_OPT)

# The harness and shared fixtures (tests/xc_*.c), linked into every test program.
TEST_HARNESS := $(BUILD)/tests/xc_test.o $(BUILD)/tests/xc_fixture.o
$(TEST_HARNESS): $(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(TEST_CFLAGS) -MMD -MP -c $< -o $@

$(BIN)/tests/%: tests/%.c $(TEST_HARNESS) $(LIBA)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(CPPFLAGS) $(TEST_CFLAGS) $(TEST_LD) -o $@ $< $(TEST_HARNESS) $(LIBA) $(LDLIBS) -lcunit

test: deps
	$(Q)$(MAKE) --no-print-directory test-only

# The plugin host (cli/base/plugin/cli_plugin*.c) and tests/test_plugin.c are built a
# second time with the internal option structs grown (XC_TEST_GROW: members
# a later version might add, at the start and the end), linked with the
# ordinary library: the plugins the test loads, built against xc_plugin.h
# alone, must see the same views as before.
PLUGIN_HOST_SRC := $(wildcard cli/base/plugin/cli_plugin*.c)
GROWN_OBJ := $(PLUGIN_HOST_SRC:%.c=$(BUILD)/grown/%.o)
GROW := -DXC_TEST_GROW=3
$(BUILD)/grown/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $< (grown)")
	$(Q)$(CC) $(CPPFLAGS) $(GROW) $(CFLAGS) -MMD -MP -c $< -o $@

$(BIN)/tests/test_plugin: tests/test_plugin.c $(GROWN_OBJ) $(TEST_HARNESS) $(LIBA)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  TEST    $@ (grown)")
	$(Q)$(CC) $(CPPFLAGS) $(GROW) -I$(dir $(PLUGIN_HEADER)) $(TEST_CFLAGS) $(TEST_LD) -o $@ $< $(GROWN_OBJ) $(TEST_HARNESS) $(LIBA) \
	    $(LDLIBS) -lcunit

# tests/test_cliview.c tests the command line's own pieces (the progress
# meter, the verdict table): it links them from the archive; so does
# tests/test_spgulp.c, which loads the example plugin (the plugin host).
$(BIN)/tests/test_cliview $(BIN)/tests/test_spgulp: $(BIN)/tests/%: tests/%.c $(TEST_HARNESS) $(CLIA) $(LIBA)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(CPPFLAGS) $(TEST_CFLAGS) $(TEST_LD) -o $@ $< $(TEST_HARNESS) $(CLIA) $(LIBA) $(LDLIBS) -lcunit

# The test programs run after the install check; tests/test_gate.c then
# builds its CI script's plugin with the staged pkg-config (XC_STAGE).
test-only: $(BIN)/crosscheck $(TEST_BIN) $(FUZZ_REPLAY) $(PLUGINS) install-check
	$(Q)XC_STAGE=$(abspath $(STAGE)) NVCC=$(NVCC) sh tests/run.sh $(BIN)

# The README's ```sh long examples (`make study`, the benchmarks): minutes,
# not in `make test`, which runs its plain ```sh ones (tests/test_readme.c).
test-readme-long: deps
	$(Q)$(MAKE) --no-print-directory $(BIN)/crosscheck plugins
	$(Q)sh scripts/readme-examples.sh -long -bin $(BIN)

# Inputs past 2^31 samples (tests/large.sh): not in `make test`.
test-large: deps
	$(Q)$(MAKE) --no-print-directory $(BIN)/crosscheck
	$(Q)sh tests/large.sh $(BIN)

run: deps
	$(Q)$(MAKE) --no-print-directory $(BIN)/crosscheck
	$(Q)$(BIN)/crosscheck run

# The default sensitivity study (datasets/study-table1-small.json): a few
# minutes on 2 cores; prints the rates table, report in runs/study/.
study: deps
	$(Q)$(MAKE) --no-print-directory $(BIN)/crosscheck
	$(Q)$(BIN)/crosscheck study -spec datasets/study-table1-small.json -out runs/study

bench: deps
	$(Q)$(MAKE) --no-print-directory $(BIN)/crosscheck
	$(Q)mkdir -p reports
	$(Q)$(BIN)/crosscheck bench dedisperse -json runs/bench-dedisperse.json

# Sanitizer reports get their own exit codes so they can never pass for a
# verdict (compare exits 1 for "disagree").  scripts/lsan.supp lists the
# libraries whose exit-time caches are not leaks of ours (fontconfig, MPI).
sanitize: deps
	$(Q)ASAN_OPTIONS=exitcode=86:detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp:print_suppressions=0 \
	    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=87 \
	    $(MAKE) --no-print-directory BUILD=build/san BIN=build/san/bin OPT=-O1 \
	    SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	    test-only

gpu-check:
	$(Q)sh scripts/gpu-check.sh

# The field's programs through the gate (examples/peers/report.sh): each peer
# whose source tree is given (PEER_PRESTO, PEER_PULSCAN, PEER_SIGPROC,
# PEER_SIGPYPROC, PEER_DEDISP) is built outside the tree's sources, under build/peers/, and
# judged; a peer not given prints a "skipped" line.  Never part of make test.
.PHONY: peers-report
peers-report:
	$(Q)$(MAKE) --no-print-directory $(BIN)/crosscheck
	$(Q)PEER_PRESTO="$(PEER_PRESTO)" PEER_PULSCAN="$(PEER_PULSCAN)" PEER_SIGPROC="$(PEER_SIGPROC)" \
	    PEER_SIGPYPROC="$(PEER_SIGPYPROC)" PEER_DEDISP="$(PEER_DEDISP)" sh examples/peers/report.sh $(BIN)/crosscheck

# A report holding every plot kind (tests/report_sample.c), for report-check.
$(BIN)/report-sample: tests/report_sample.c $(LIBA)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LIBA) $(LDLIBS)

# Loads a report with every plot kind in headless chromium (installing it
# when missing), then the same page with planted faults, which must fail,
# then a small study's report (crosscheck study, 8 pulsars);
# scripts/report-check.sh says what fails a page.  Other reports:
# sh scripts/report-check.sh --page runs/<stamp>
# Planted bugs: scripts/mutants.sh (MUTANT_JOBS at once, default 2).
.PHONY: mutants
mutants: all
	$(Q)sh scripts/mutants.sh -j $(or $(MUTANT_JOBS),2)

.PHONY: report-check
report-check: deps
	$(Q)$(MAKE) --no-print-directory $(BIN)/report-sample $(BIN)/crosscheck
	$(Q)sh scripts/report-check.sh --self-test $(BIN)
	$(Q)rm -rf build/report-check/study
	$(Q)$(BIN)/crosscheck study -spec datasets/study-table1-small.json -n 8 -out build/report-check/study -quiet
	$(Q)sh scripts/report-check.sh --page build/report-check/study

# ---- fuzzing ----------------------------------------------------------------
$(CLIA): $(filter-out $(BUILD)/cli/main.o,$(CLI_OBJ))
	@mkdir -p $(@D)
	$(Q)rm -f $@ && ar rcs $@ $^

# Objects only a pattern rule names are kept (make would delete them as intermediates).
.SECONDARY: $(FUZZ_HELP:%.c=$(BUILD)/%.o) $(BUILD)/fuzz/fuzz_main.o

# The replay build: ordinary compiler, fuzz/fuzz_main.c as main().
$(BIN)/fuzz/%: fuzz/%.c $(FUZZ_HELP:%.c=$(BUILD)/%.o) $(BUILD)/fuzz/fuzz_main.o $(CLIA) $(LIBA)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(TEST_LD) -o $@ $< $(FUZZ_HELP:%.c=$(BUILD)/%.o) $(BUILD)/fuzz/fuzz_main.o \
	    $(CLIA) $(LIBA) $(LDLIBS)

# The libFuzzer build: the library, the command-line pieces and the helpers
# compiled again by clang with coverage and ASan + UBSan, in build/fuzz/.
FUZZ_DIR    := build/fuzz
FUZZ_CC     ?= clang
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c11 -O1 -g -fopenmp -Wall -Wextra -Wno-unused-command-line-argument $(PKG_CFLAGS) $(FUZZ_SAN)
# The readers need neither the fast implementations nor the report writer
# (clang 14 also lacks a CPU-feature name they use); of cli/, the option layer.
FUZZ_CLISRC := cli/base/cli_opts.c cli/base/cli_util.c cli/base/cli_plan.c cli/base/cli_search.c $(PLUGIN_HOST_SRC)
FUZZ_LIBSRC := $(filter-out optimized/% reports/%,$(LIB_SRC)) $(FUZZ_CLISRC) $(FUZZ_HELP)
FUZZ_LIBOBJ := $(FUZZ_LIBSRC:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_BINS   := $(FUZZ_NAMES:%=$(FUZZ_DIR)/bin/%)
FUZZ_SECONDS ?= 60
.SECONDARY: $(FUZZ_SRC:%.c=$(FUZZ_DIR)/obj/%.o)

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CLANG   $<")
	$(Q)$(FUZZ_CC) $(CPPFLAGS) -UXC_HAVE_CUDA $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_DIR)/libfuzzxc.a: $(FUZZ_LIBOBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(FUZZ_DIR)/bin/%: $(FUZZ_DIR)/obj/fuzz/%.o $(FUZZ_DIR)/libfuzzxc.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_DIR)/libfuzzxc.a \
	    $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -ldl

fuzz-deps:
	@sh scripts/deps.sh fuzz

fuzz-build: $(FUZZ_BINS)

# Runs every target for FUZZ_SECONDS on its seed corpus (fuzz/corpus.txt);
# exits non-zero on any crash, leak, timeout or property failure.
fuzz: fuzz-deps
	$(Q)$(MAKE) --no-print-directory CUDA=0 fuzz-build
	$(Q)sh fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_NAMES)

# What `make install` ships, declared: the plugin ABI (xc_plugin.h, all a
# plugin includes) and, for programs that link libcrosscheck.a, the
# registry with the built-in implementations, the dedispersion and Pulscan
# interfaces and the filterbank reader, with the headers they include
# (under their layer folders, as their includes name them).  make test
# checks that the list is closed under its includes (scripts/install-check.sh).
PUBLIC_HEADERS := core/base/xc_error.h core/base/xc_impl.h core/base/xc_hd.h core/base/xc_nbits.h core/base/xc_progress.h \
		  core/base/xc_devgate.h \
		  optimized/xc_impls.h core/dedisp/plan/xc_dmplan.h core/dedisp/plan/xc_dedisp_scale.h \
		  core/dedisp/xc_dedisperse.h core/io/xc_filterbank.h core/search/xc_cands.h \
		  core/search/xc_spectrum.h core/search/xc_search.h core/search/xc_accel.h core/search/xc_psearch.h
XC_VERSION := 1.0
# the version `crosscheck --version` prints: the one crosscheck.pc carries
$(BUILD)/cli/main.o: CPPFLAGS += -DXC_VERSION='"$(XC_VERSION)"'
# crosscheck.pc (from include/crosscheck.pc.in; a sanitized build names its
# runtime in Libs.private): plugins need only the
# Cflags (pkg-config --cflags crosscheck); a program linking the static
# library takes pkg-config --static --libs.
PC_LIBS_PRIVATE := $(SAN) -fopenmp -lm -ldl $(if $(filter 1,$(CUDA)),$(CUDA_LIBS))
install: $(BIN)/crosscheck $(LIBA)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/crosscheck
	install -m 755 $(BIN)/crosscheck $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(LIBA) $(DESTDIR)$(PREFIX)/lib/libcrosscheck.a
	install -m 644 $(PLUGIN_HEADER) $(DESTDIR)$(PREFIX)/include/crosscheck/xc_plugin.h
	for h in $(PUBLIC_HEADERS); do \
	    install -D -m 644 $$h $(DESTDIR)$(PREFIX)/include/crosscheck/$$h || exit 1; done
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(XC_VERSION)|g' -e 's|@REQUIRES_PRIVATE@|$(PKGS)|g' \
	    -e 's|@LIBS_PRIVATE@|$(strip $(PC_LIBS_PRIVATE))|g' include/crosscheck.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/crosscheck.pc

# The installed files as their users meet them: `make install` into a
# staging prefix, then scripts/install-check.sh (the plugin header alone as
# C11 and C++, every shipped header alone, the example plugin built out of
# tree with pkg-config and loaded, a program linked with the static library).
STAGE := $(BUILD)/stage
install-check: $(BIN)/crosscheck $(LIBA)
	$(Q)rm -rf $(STAGE)
	$(Q)$(MAKE) --no-print-directory -s install PREFIX=$(abspath $(STAGE)) DESTDIR= >/dev/null
	$(Q)sh scripts/install-check.sh $(abspath $(STAGE)) $(PUBLIC_HEADERS)

clean:
	rm -rf build bin libcrosscheck.a

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
ifneq ($(filter fuzz fuzz-build,$(MAKECMDGOALS)),)
-include $(shell find $(FUZZ_DIR)/obj -name '*.d' 2>/dev/null)
endif
