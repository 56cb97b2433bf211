# modpreload analyze (included by the Makefile): a program of its own, so that
# the static binary early boot runs does not carry it; `modpreload analyze`
# execs it (beside itself in build/, $(LIBEXECDIR)/analyze when installed).
#   build/modpreload-analyze          static musl
#   build/asan/modpreload-analyze     the tests', beside build/asan/modpreload
#   build/unit/test_analyze           its reader's unit tests

ANALYZE := main json report text svg escape
ANALYZE_HDRS := analyze/analyze.h preload/modpreload.h preload/util.h VERSION
# the preloader's helpers main.c shares (reading a whole file, bounded), the
# same objects the core links: -Wl,--gc-sections keeps only what is called
ANALYZE_BASE := base/util

$(B)/musl-analyze/%.o: analyze/%.c $(ANALYZE_HDRS) $(B)/libs/.done
	@mkdir -p $(dir $@)
	$(MUSL_CC) $(STATIC_CFLAGS) -c $< -o $@

$(B)/modpreload-analyze: $(ANALYZE:%=$(B)/musl-analyze/%.o) $(ANALYZE_BASE:%=$(B)/musl/%.o)
	$(MUSL_CC) $(STATIC_LDFLAGS) -o $@ $^
	@echo "  $@: $$(stat -c %s $@) bytes"

EXTRA_ALL += $(B)/modpreload-analyze

# --- tests: ASan/UBSan, glibc ---
# A report's numbers are doubles from a file: GCC's -fsanitize=undefined
# leaves out the check that one cast to int fits (clang's has it).
ASAN_ANALYZE = $(ASAN) -fsanitize=float-cast-overflow -fno-sanitize-recover=float-cast-overflow
$(B)/asan-analyze/%.o: analyze/%.c $(ANALYZE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(TEST_WARN) -g -O1 $(ASAN_ANALYZE) -c $< -o $@
$(B)/asan/modpreload-analyze: $(ANALYZE:%=$(B)/asan-analyze/%.o) $(ANALYZE_BASE:%=$(B)/asan/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_ANALYZE) -o $@ $^
$(B)/unit/test_analyze: tests/unit/test_analyze.c tests/unit/t.h $(filter-out %/main.o,$(ANALYZE:%=$(B)/asan-analyze/%.o))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(TEST_WARN) -Ianalyze -g -O1 $(ASAN_ANALYZE) -o $@ $< \
		$(filter-out %/main.o,$(ANALYZE:%=$(B)/asan-analyze/%.o))

EXTRA_UNIT += $(B)/asan/modpreload-analyze $(B)/unit/test_analyze

# --- the fuzz tier's target (FUZZERS in the Makefile): a report from anywhere ---
# clang's -fsanitize=undefined has float-cast-overflow (GCC's has not);
# integer adds the conversions and wraps that are defined but wrong for a
# number from a file; local-bounds the indexes into local arrays. No
# recovery: what they find is a crash libFuzzer keeps, not a line in its log.
ANALYZE_LIB_SRC = $(filter-out analyze/main.c,$(ANALYZE:%=analyze/%.c))
$(B)/fuzz/fuzz_analyze: tests/fuzz/fuzz_analyze.c $(ANALYZE_LIB_SRC) $(ANALYZE_HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) $(CFLAGS_COMMON) -Ianalyze -g -O1 -fsanitize=fuzzer,address,undefined,integer,local-bounds \
		-fno-sanitize-recover=all -o $@ $< $(ANALYZE_LIB_SRC)

# --- install ---
LIBEXECDIR ?= $(PREFIX)/lib/modpreload
.PHONY: install-analyze
install-analyze: $(B)/modpreload-analyze
	install -D -m 0755 $(B)/modpreload-analyze $(DESTDIR)$(LIBEXECDIR)/analyze

EXTRA_INSTALL += install-analyze

.PHONY: clean-analyze
clean: clean-analyze
clean-analyze:
	rm -rf $(B)/musl-analyze $(B)/asan-analyze $(B)/modpreload-analyze
