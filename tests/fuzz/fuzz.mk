# tests/fuzz/fuzz.mk: libFuzzer targets (issue #7), included by the Makefile.
#
#   make deps-fuzz                 clang and its libFuzzer/sanitizer runtimes (Debian)
#   make fuzz [FUZZ_SECONDS=60]    builds every target into build/fuzz/ and runs each one
#   make fuzz-build                builds them only
#   make fuzz-<target>             runs one (e.g. make fuzz-yaml FUZZ_SECONDS=600)
#   make fuzz-replay               replay binaries $(BUILD)/fuzz_replay_<target> (gcc, no
#                                  libFuzzer) that tests/cli/060-fuzz-regressions.sh runs
#
# Each run works on build/fuzz/corpus/<target>/, filled from tests/fuzz/<target>/seeds/ (the
# seed folders are never written); crashes land in build/fuzz/artifacts/<target>/ and the
# run's output in build/fuzz/logs/<target>.log. Found crashes are kept as regression inputs
# in tests/data/fuzz/<target>/ (docs/reliability.md, "Fuzzing").

FUZZ_TARGETS := table_py table_json key yaml logscan lua journal fileset wire markdown launch
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_FLAGS   ?= -rss_limit_mb=2048 -timeout=10
FUZZ_DIR     := build/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS  := $(CSTD) $(WARN) -Wno-format-nonliteral -O1 -g $(FUZZ_SAN) $(PKG_CFLAGS) -Isrc -Itests/fuzz \
                -DTUNETAB_VERSION='"$(VERSION)"' -DTUNETAB_PREFIX='"$(PREFIX)"' -DTUNETAB_HAVE_CUDA=0
FUZZ_LDLIBS  := -Wl,-Bstatic $(STATIC_LIBS) -Wl,-Bdynamic $(SYS_LIBS)
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_DIR)/obj/%.o) $(FUZZ_DIR)/obj/src/gpu/gpu_stub.o
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)
FUZZ_HDRS    := $(wildcard tests/fuzz/*.h)

.PHONY: deps-fuzz fuzz fuzz-build fuzz-replay $(FUZZ_TARGETS:%=fuzz-%)

deps-fuzz:
	$(Q)sh scripts/install-deps.sh clang libclang-rt-14-dev

fuzz-build: $(FUZZ_BINS)

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $<"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_HDRS) $(FUZZ_LIB_OBJ)
	@echo "  FUZZLD  $@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJ) $(FUZZ_LDLIBS)

# One run: a working corpus seeded from the seeds (cp -n keeps what earlier runs found).
$(FUZZ_TARGETS:%=fuzz-%): fuzz-%: $(FUZZ_DIR)/fuzz_%
	@mkdir -p $(FUZZ_DIR)/corpus/$* $(FUZZ_DIR)/artifacts/$* $(FUZZ_DIR)/logs
	$(Q)cp -n tests/fuzz/$*/seeds/* $(FUZZ_DIR)/corpus/$*/ 2>/dev/null || true
	@echo "  FUZZ    $* for $(FUZZ_SECONDS) s (log: $(FUZZ_DIR)/logs/$*.log)"
	$(Q)$(FUZZ_DIR)/fuzz_$* -max_total_time=$(FUZZ_SECONDS) $(FUZZ_FLAGS) -print_final_stats=1 \
		$(if $(wildcard tests/fuzz/$*/dict),-dict=tests/fuzz/$*/dict) \
		-artifact_prefix=$(FUZZ_DIR)/artifacts/$*/ $(FUZZ_DIR)/corpus/$* \
		>$(FUZZ_DIR)/logs/$*.log 2>&1 || { tail -n 60 $(FUZZ_DIR)/logs/$*.log; exit 1; }
	$(Q)grep -E '^#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units' $(FUZZ_DIR)/logs/$*.log | sed 's/^/  $*: /'
	@echo "  $*: corpus $$(ls $(FUZZ_DIR)/corpus/$* | wc -l) files, $$(cat $(FUZZ_DIR)/corpus/$*/* | wc -c) bytes"

fuzz: $(FUZZ_TARGETS:%=fuzz-%)

# Replay binaries for `make test`: the same harnesses with tests/fuzz/replay.c as main().
FUZZ_REPLAY := $(FUZZ_TARGETS:%=$(BUILD)/fuzz_replay_%)

fuzz-replay: $(FUZZ_REPLAY)

$(BUILD)/fuzz_replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(FUZZ_HDRS) $(LIB_OBJ)
	@echo "  LD      $@"
	$(Q)$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -Itests/fuzz $(LDFLAGS) -o $@ $< tests/fuzz/replay.c \
		$(LIB_OBJ) $(LDLIBS)

-include $(FUZZ_LIB_OBJ:.o=.d)
