# tunetab: one non-recursive Makefile.  `make help` lists the targets.
#
#   make [VARIANT=debug|release|san] [CUDA=auto|0|1] [V=1]
#
# The binary lands in build/$(VARIANT)/tunetab and is copied to build/tunetab.

VARIANT ?= release
CUDA    ?= auto
PREFIX  ?= /usr/local
DESTDIR ?=
V       ?= 0

ifeq ($(filter $(VARIANT),debug release san),)
$(error VARIANT must be debug, release or san (got '$(VARIANT)'))
endif

Q := @
ifeq ($(V),1)
Q :=
endif

BUILD   := build/$(VARIANT)
BIN     := $(BUILD)/tunetab
VERSION := $(shell cat src/VERSION 2>/dev/null || echo 0.0.0)

# ---------------------------------------------------------------- CUDA detection
CUDA_HOME ?= $(shell d=$$(dirname $$(dirname $$(command -v nvcc 2>/dev/null)) 2>/dev/null); \
                     if [ -n "$$d" ] && [ -d "$$d/include" ]; then echo $$d; else echo /usr/local/cuda; fi)
NVCC := $(shell if [ -x "$(CUDA_HOME)/bin/nvcc" ]; then echo $(CUDA_HOME)/bin/nvcc; \
                elif command -v nvcc >/dev/null 2>&1; then command -v nvcc; fi)
ifeq ($(CUDA),auto)
  ifneq ($(NVCC),)
    ifneq ($(wildcard $(CUDA_HOME)/include/cuda_runtime.h),)
      USE_CUDA := 1
    endif
  endif
else ifeq ($(CUDA),1)
  USE_CUDA := 1
  ifeq ($(NVCC),)
    $(error CUDA=1 but nvcc was not found (set CUDA_HOME))
  endif
endif
USE_CUDA ?= 0

# Every arch the local nvcc supports among sm_89, sm_90a, sm_100a, sm_120a; PTX of the newest.
ifeq ($(USE_CUDA),1)
NVCC_CODES := $(shell $(NVCC) --list-gpu-code 2>/dev/null)
GPU_ARCHS  := $(foreach a,89 90a 100a 120a,$(if $(filter sm_$(subst a,,$(a)),$(NVCC_CODES)),$(a)))
comma      := ,
PTX_ARCH   := $(lastword $(GPU_ARCHS))
GENCODE    := $(foreach a,$(GPU_ARCHS),-gencode arch=compute_$(a)$(comma)code=sm_$(a)) \
              $(if $(PTX_ARCH),-gencode arch=compute_$(PTX_ARCH)$(comma)code=compute_$(PTX_ARCH))
endif

# ---------------------------------------------------------------- flags
CC      ?= cc
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
           -Wno-unused-parameter -Wvla
ifeq ($(CI),true)
WARN    += -Werror
endif
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
PKGS    := lua5.4 libcyaml jansson libcrypto zlib
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# Host libraries are linked statically so the binary runs on the GPU machine,
# which has none of them (see docs/development.md, "GPU workflow").
STATIC_LIBS := $(shell pkg-config --libs-only-l $(PKGS) 2>/dev/null) -lyaml
SYS_LIBS    := -lm -ldl -lpthread -lrt

ifeq ($(VARIANT),debug)
OPT := -O0 -g3
else ifeq ($(VARIANT),san)
OPT := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SAN_LD := -fsanitize=address,undefined
else
OPT := -O2 -g
endif

CFLAGS  += $(CSTD) $(WARN) $(OPT) $(PKG_CFLAGS) -Isrc -MMD -MP \
           -DTUNETAB_VERSION='"$(VERSION)"' -DTUNETAB_PREFIX='"$(PREFIX)"' -DTUNETAB_HAVE_CUDA=$(USE_CUDA)
LDFLAGS += $(SAN_LD)
LDLIBS  := -Wl,-Bstatic $(STATIC_LIBS) -Wl,-Bdynamic $(SYS_LIBS)

# ---------------------------------------------------------------- sources
# One list per layer, lowest first (docs/development.md, "Architecture"): a folder includes only from
# folders listed above it.
BASE_SRC    := src/base/util.c src/base/diag.c src/base/version.c src/base/arena.c src/base/markdown.c
GPU_SRC     := src/gpu/measure.c src/gpu/trace.c
DATA_SRC    := src/data/datadir.c src/data/data.c src/data/yamlload.c src/data/device.c src/data/model.c \
               src/data/catalog.c src/data/firules.c src/data/dtypes.c src/data/calibration.c \
               src/data/fleetplan.c src/data/consumer.c src/data/datafile.c \
               src/data/modelfit.c src/data/ranking.c src/data/hfconfig.c src/data/opdefs.c
SCRIPT_SRC  := src/script/script.c src/script/costs.c src/script/neighbours.c
FI_SRC      := src/flashinfer/pylit.c src/flashinfer/pyenc.c src/flashinfer/key.c src/flashinfer/table.c \
               src/flashinfer/table_json.c src/flashinfer/validate.c src/flashinfer/provenance.c \
               src/flashinfer/merge.c src/flashinfer/lookup.c src/flashinfer/names.c \
               src/flashinfer/explain.c src/flashinfer/keydiff.c src/flashinfer/fienv.c \
               src/flashinfer/fijudge.c src/flashinfer/metadata.c src/flashinfer/tableset.c \
               src/flashinfer/cachefile.c
INSPECT_SRC := src/inspect/logscan.c src/inspect/doctor.c
TUNE_SRC    := src/tune/choose.c src/tune/routing.c src/tune/robust.c src/tune/pairs.c src/tune/generate.c src/tune/generate_session.c src/tune/generate_ops.c \
               src/tune/generate_outputs.c src/tune/generate_fleet.c src/tune/generate_summary.c \
               src/tune/worker.c src/tune/wire.c src/tune/journal.c src/tune/backend_proxy.c \
               src/tune/backend_fake.c src/tune/timing.c src/tune/fleet.c src/tune/selftest.c \
               src/tune/report.c src/tune/learn.c
OPS_SRC     := src/ops/ops.c src/ops/fp4_gemm.c src/ops/trtllm_moe.c
DEPLOYMENT_SRC := src/deployment/server.c src/deployment/python.c src/deployment/shape.c \
                  src/deployment/ranks.c
DEPLOY_SRC  := src/deploy/install.c src/deploy/plan.c
LIB_SRC := $(BASE_SRC) $(GPU_SRC) $(DATA_SRC) $(SCRIPT_SRC) $(FI_SRC) $(INSPECT_SRC) \
           $(OPS_SRC) $(DEPLOYMENT_SRC) $(TUNE_SRC) $(DEPLOY_SRC)
CMD_SRC := src/main.c src/cmd.c src/cmd/options.c src/cmd/cli.c src/cmd/help.c \
           src/cmd/completion.c src/cmd/detect.c src/cmd/devices.c src/cmd/models.c \
           src/cmd/catalog.c src/cmd/check_data.c src/cmd/validate.c src/cmd/explain.c \
           src/cmd/convert.c src/cmd/generate.c src/cmd/calibrate.c src/cmd/scan_log.c \
           src/cmd/doctor.c src/cmd/merge.c src/cmd/report.c src/cmd/install.c \
           src/cmd/learn.c src/cmd/launch.c src/cmd/plan.c src/cmd/check.c src/cmd/for.c

ifeq ($(USE_CUDA),1)
GPU_CU  := src/gpu/gpu_cuda.cu
GPU_OBJ := $(BUILD)/src/gpu/gpu_cuda.o
# cuBLASLt is opened on first use (dlopen, src/gpu/gpu_cuda.cu), not linked; the CUDA runtime
# is linked in and opens the driver (libcuda.so.1) itself. libstdc++ stays shared (the runtime
# and gpu_cuda.cu are C++): every manylinux system has it, and linking GCC 12's copy in would
# reference glibc 2.35/2.36 symbols (_dl_find_object, arc4random), raising the wheel's tag from
# manylinux_2_34 to 2_36 (docs/guide.md "Install", scripts/dev/dist.py).
LDLIBS  += -L$(CUDA_HOME)/lib64 -lcudart_static -lstdc++
else
GPU_CU  :=
GPU_OBJ := $(BUILD)/src/gpu/gpu_stub.o
endif

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(GPU_OBJ)
# The reference pages built into the binary for `help COMMAND` and the man page (src/cmd/docs.h).
DOC_PAGES   := $(sort $(wildcard docs/commands/*.md)) docs/exit-codes.md docs/environment.md
DOCS_EMBED  := $(BUILD)/gen/docs_embed.c
CMD_OBJ := $(CMD_SRC:%.c=$(BUILD)/%.o) $(DOCS_EMBED:.c=.o)

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(BUILD)/unit_tests

# ---------------------------------------------------------------- targets
.PHONY: all deps deps-test deps-flashinfer run test test-unit test-cli test-gpu test-flashinfer test-consumers bench install docs clean help wheel tarball dist

# Shell completions, made by the built binary from its command table (src/cmd.c).
COMPLETIONS := build/completion/tunetab build/completion/_tunetab

all: build/tunetab $(COMPLETIONS)

build/tunetab: $(BIN)
	$(Q)cp $(BIN) $@

build/completion/tunetab: build/tunetab
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	$(Q)build/tunetab completion bash >$@.tmp && mv $@.tmp $@

build/completion/_tunetab: build/tunetab
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	$(Q)build/tunetab completion zsh >$@.tmp && mv $@.tmp $@

# docs/tunetab.1 and the reference pages' option tables (docs/commands/*.md), remade from the
# command table (src/cmd.c) and the pages;
# tests/cli/130 fails when they differ from it.
docs: build/tunetab
	$(Q)sh scripts/dev/docs-from-table.sh build/tunetab

$(BIN): $(LIB_OBJ) $(CMD_OBJ)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(DOCS_EMBED): $(DOC_PAGES) scripts/dev/embed-docs.sh
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	$(Q)sh scripts/dev/embed-docs.sh $@ $(DOC_PAGES)

$(DOCS_EMBED:.c=.o): $(DOCS_EMBED)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/src/gpu/gpu_cuda.o: src/gpu/gpu_cuda.cu src/gpu/gpu.h
	@mkdir -p $(dir $@)
	@echo "  NVCC    $< ($(GPU_ARCHS))"
	$(Q)$(NVCC) -std=c++17 -O2 -Isrc $(GENCODE) -Xcompiler -Wall -c -o $@ $<

$(UNIT_BIN): tests/unit/unit_main.c $(UNIT_SRC) $(LIB_OBJ)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) -o $@ tests/unit/unit_main.c $(UNIT_SRC) $(LIB_OBJ) $(LDLIBS)

# Installs missing build packages (Debian/Ubuntu); a no-op when all are there.
DEB_PKGS := build-essential pkg-config liblua5.4-dev libcyaml-dev libyaml-dev libjansson-dev libssl-dev zlib1g-dev strace python3
# Only the tests need these: Chromium renders the HTML report headless (tests/cli/091); zsh
# runs the zsh completion (tests/cli/132, skipped without it); venv installs the wheel
# (tests/cli/185), and tests/packaging/setup.sh puts auditwheel from PyPI in .venv-tools/.
TEST_DEB_PKGS := chromium zsh python3-venv groff-base git
deps:
	$(Q)sh scripts/install-deps.sh $(DEB_PKGS)
deps-test:
	$(Q)sh scripts/install-deps.sh $(TEST_DEB_PKGS)
	$(Q)sh tests/packaging/setup.sh
	$(Q)sh tests/consumers/fetch-sglang.sh 0.5.22 0.5.23
	$(Q)sh tests/consumers/fetch-vllm.sh 0.34.0
# FlashInfer releases from PyPI in venvs (torch from PyPI, about 3 GB the first time) for the
# tests of every dtype's inputs against FlashInfer's Python layer (tests/flashinfer/inputs.sh)
deps-flashinfer:
	$(Q)bash tests/flashinfer/setup.sh $$(bash tests/flashinfer/inputs.sh --versions)

# The main job on its embedded default: see README "Quick start".
run: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh scripts/run-default.sh

# Every test, plus the broken-input corpora again under the sanitizers (build/san).
test: deps deps-test deps-flashinfer
	$(Q)$(MAKE) --no-print-directory all $(UNIT_BIN) fuzz-replay
	$(Q)$(MAKE) --no-print-directory dist
	$(Q)$(MAKE) -s --no-print-directory VARIANT=san build/san/tunetab
	$(Q)sh tests/run-tests.sh $(BUILD) all build/san

# Runs on the GPU machine, which has no compiler packages: uses the binary built here.
test-gpu:
	$(Q)test -x $(BIN) || { echo "tunetab: error: build first ('make VARIANT=$(VARIANT)')" >&2; exit 5; }
	$(Q)VERBOSE=1 sh tests/run-tests.sh $(BUILD) gpu

# FlashInfer's own loader as the oracle (tests/flashinfer/README.md): venvs with pinned
# flashinfer-python releases from PyPI (about 3 GB the first time), then every case, each
# also checked with tunetab validate. Not part of `make test`. No GPU needed.
# SGLang's own cache-path rule as the oracle for `tunetab install --for sglang`: downloads
# SGLang wheels from PyPI (no dependencies) into .venv-consumers/; and the closed world of launch
# inputs dumped again from the SGLang and vLLM wheels (tests/consumers/options.sh). Not part of
# `make test`.
test-consumers: all
	$(Q)TUNETAB=$(CURDIR)/build/tunetab bash tests/consumers/run.sh
	$(Q)sh tests/consumers/options.sh

test-flashinfer: all
	$(Q)bash tests/flashinfer/setup.sh
	$(Q)TUNETAB=$(CURDIR)/build/tunetab bash tests/flashinfer/run.sh
	$(Q)TUNETAB=$(CURDIR)/build/tunetab bash tests/flashinfer/generated.sh
	$(Q)TUNETAB=$(CURDIR)/build/tunetab bash tests/flashinfer/inputs.sh
	$(Q)TUNETAB=$(CURDIR)/build/tunetab bash tests/flashinfer/selection.sh

# Speed targets live here, never in timed tests; results go to docs/benchmarks.md.
bench: all
	$(Q)python3 tests/bench/bench.py $(BUILD)
	$(Q)python3 tests/bench/scanlog_bench.py $(BUILD)
	$(Q)python3 tests/bench/hostile_bench.py $(BUILD)
	$(Q)python3 tests/bench/routing_frontier.py docs/bench/2026-12-07-h100-routing/routing_dsv3-fp8-ep8.json
	$(Q)$(MAKE) --no-print-directory wheel
	$(Q)python3 tests/bench/wheel_bench.py

# The wheel and the release tarball of the static release binary (docs/guide.md "Install"; the tag
# is the oldest manylinux the binary honours, scripts/dev/dist.py), into build/dist/.
DIST := build/dist
wheel tarball:
	$(Q)test "$(USE_CUDA)" = 1 || { echo "tunetab: error: a package needs the GPU parts: nvcc and the CUDA toolkit (CUDA=1)" >&2; exit 5; }
	$(Q)$(MAKE) --no-print-directory VARIANT=release CUDA=$(CUDA) build/release/tunetab $(COMPLETIONS)
	$(Q)python3 scripts/dev/dist.py $@ --binary build/release/tunetab --version $(VERSION) --out $(DIST)
dist: wheel tarball

BASH_COMPLETION_DIR ?= $(PREFIX)/share/bash-completion/completions
ZSH_COMPLETION_DIR  ?= $(PREFIX)/share/zsh/site-functions

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/tunetab $(DESTDIR)$(PREFIX)/share/man/man1 \
	           $(DESTDIR)$(BASH_COMPLETION_DIR) $(DESTDIR)$(ZSH_COMPLETION_DIR)
	install -m 755 build/tunetab $(DESTDIR)$(PREFIX)/bin/tunetab
	cp -R scripts schemas configs $(DESTDIR)$(PREFIX)/share/tunetab/
	install -m 644 docs/tunetab.1 $(DESTDIR)$(PREFIX)/share/man/man1/tunetab.1
	install -m 644 build/completion/tunetab $(DESTDIR)$(BASH_COMPLETION_DIR)/tunetab
	install -m 644 build/completion/_tunetab $(DESTDIR)$(ZSH_COMPLETION_DIR)/_tunetab

clean:
	rm -rf build out

help:
	@echo "targets: all deps run test test-gpu install docs clean (VARIANT=debug|release|san CUDA=auto|0|1 V=1)"

-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d)

# Fuzzing (issue #7): libFuzzer targets, `make deps-fuzz`, `make fuzz FUZZ_SECONDS=N`
-include tests/fuzz/fuzz.mk
