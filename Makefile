# crosscheck: one Makefile.  `make run` and `make test` are all a fresh Debian
# machine needs: both install missing packages first (scripts/deps.sh).
#
#   make            bin/crosscheck and libcrosscheck.a
#   make test       build and run every CUnit suite
#   make run        build and run the default cross-check (verdict table + report)
#   make bench      dedispersion benchmark to reports/bench-dedisperse.json
#   make sanitize   the tests under ASan + UBSan (separate build tree)
#   make install PREFIX=/usr/local
#   make clean
#   make gpu-check  build for the lent H100/H200 and print the GPU table
#                   (scripts/gpu-check.sh; run on the device machine)
#   V=1 shows full commands.  CUDA=0 leaves the GPU implementations out
#   (default: built when nvcc is found).  STATIC=1 links GSL, FFTW, jansson,
#   CUnit, libgomp and the CUDA runtime statically, for the device machine.

PREFIX ?= /usr/local
BIN    ?= bin
OPT    ?= -O2
SAN    ?=
CC     ?= cc

PKGS     := gsl fftw3 fftw3f jansson
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
ifeq ($(STATIC),1)
# For the device machine (another distribution): everything but libc static.
PKG_LIBS   := -Wl,-Bstatic -lgsl -lgslcblas -lfftw3f -lfftw3 -ljansson -lcunit \
	      $(shell $(CC) -print-file-name=libgomp.a) -Wl,-Bdynamic -static-libgcc -static-libstdc++
else
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
endif

MODDIRS  := core reference optimized optimized/cpu synth compare reports
# Every include names its layer ("core/xc_dedisperse.h"), so one -I. is all.
CPPFLAGS += -D_GNU_SOURCE -I.
CFLAGS   += -std=c11 $(OPT) -g -Wall -Wextra -Werror -fopenmp $(SAN) $(PKG_CFLAGS)
ifeq ($(STATIC),1)
LDFLAGS  += $(SAN) -pthread
else
LDFLAGS  += -fopenmp $(SAN)
endif
LDLIBS   += $(PKG_LIBS) $(CUDA_LIBS) -lm

# CUDA: the GPU implementations are built when nvcc is found, unless CUDA=0.
NVCC     ?= $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
ifeq ($(strip $(NVCC)),)
CUDA     ?= 0
else
CUDA     ?= 1
endif
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
NVCCFLAGS ?= -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -lineinfo \
	     -Xcompiler -Wall,-Wextra,-Werror -Werror all-warnings
# Objects of CUDA and CPU-only builds differ (the registry), so they live apart.
BUILD    ?= build/$(if $(filter 1,$(CUDA)),cuda,nocuda)$(if $(filter 1,$(STATIC)),-static)

ifeq ($(CUDA),1)
CPPFLAGS += -DXC_HAVE_CUDA
CU_SRC   := $(wildcard optimized/gpu/*.cu)
# cuFFT (the accel searcher) has no static library here: it is linked
# dynamically in every build, STATIC=1 included (PKG_LIBS ends -Bdynamic);
# the rpath finds it under the toolkit, scripts/gpu-check.sh device also sets
# LD_LIBRARY_PATH=/usr/local/cuda/lib64.
CUDA_LIBS := -L$(CUDA_HOME)/lib64 -lcufft -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++
endif

LIB_SRC  := $(wildcard $(addsuffix /*.c,$(MODDIRS)) $(if $(filter 1,$(CUDA)),optimized/gpu/*.c))
CLI_SRC  := $(wildcard cli/*.c)
TEST_SRC := $(wildcard tests/test_*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(CU_SRC:%.cu=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BIN)/tests/%)
LIBA     := $(BUILD)/libcrosscheck.a

ifeq ($(V),1)
Q :=
else
Q := @
endif

.PHONY: all deps test test-only test-large run bench sanitize install clean gpu-check
all: $(BIN)/crosscheck libcrosscheck.a $(TEST_BIN)

deps:
	@sh scripts/deps.sh

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

$(LIBA): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(Q)rm -f $@ && ar rcs $@ $^

libcrosscheck.a: $(LIBA)
	$(Q)cp $< $@

$(BIN)/crosscheck: $(CLI_OBJ) $(LIBA)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIBA) $(LDLIBS)

# The harness and shared fixtures (tests/xc_*.c), linked into every test program.
TEST_HARNESS := $(BUILD)/tests/xc_test.o $(BUILD)/tests/xc_fixture.o
$(TEST_HARNESS): $(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BIN)/tests/%: tests/%.c $(TEST_HARNESS) $(LIBA)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(TEST_HARNESS) $(LIBA) $(LDLIBS) -lcunit

test: deps
	$(Q)$(MAKE) --no-print-directory test-only

test-only: $(BIN)/crosscheck $(TEST_BIN)
	$(Q)sh tests/run.sh $(BIN)

# Inputs past 2^31 samples (tests/large.sh): not in `make test`.
test-large: deps
	$(Q)$(MAKE) --no-print-directory $(BIN)/crosscheck
	$(Q)sh tests/large.sh $(BIN)

run: deps
	$(Q)$(MAKE) --no-print-directory $(BIN)/crosscheck
	$(Q)$(BIN)/crosscheck run

bench: deps
	$(Q)$(MAKE) --no-print-directory $(BIN)/crosscheck
	$(Q)mkdir -p reports
	$(Q)$(BIN)/crosscheck bench dedisperse -json reports/bench-dedisperse.json

# Sanitizer reports get their own exit codes so they can never pass for a
# verdict (compare exits 1 for "disagree").
sanitize: deps
	$(Q)ASAN_OPTIONS=exitcode=86:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=87 \
	    $(MAKE) --no-print-directory BUILD=build/san BIN=build/san/bin OPT=-O1 \
	    SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	    test-only

gpu-check:
	$(Q)sh scripts/gpu-check.sh

install: $(BIN)/crosscheck libcrosscheck.a
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib
	install -m 755 $(BIN)/crosscheck $(DESTDIR)$(PREFIX)/bin/
	install -m 644 libcrosscheck.a $(DESTDIR)$(PREFIX)/lib/
	# Headers keep their layer folder, as the includes name it (-I$(PREFIX)/include/crosscheck).
	for h in $(wildcard $(addsuffix /xc_*.h,$(MODDIRS))); do \
	    install -D -m 644 $$h $(DESTDIR)$(PREFIX)/include/crosscheck/$$h || exit 1; done

clean:
	rm -rf build bin libcrosscheck.a

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
