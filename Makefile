# modpreload: one plain Makefile.
#   make            the static musl binaries (build/modpreload, build/modpreload-init,
#                   build/modpreload-analyze)
#   make ARCH=arm64 the same, cross-built under build/arm64/ (also ARCH=armhf)
#   make check      every test: the fast tier, then real kernels under QEMU
#   make check-full make check with every VM case and variant (longer)
#   make check-fast the fast tier alone (minutes): unit (ASan/UBSan, TSan), fuzz smoke, lint
#   make demo       boot Debian's kernel twice under QEMU: udev-style storm vs modpreload
#   make bench      the benchmark (bench/results/)
#   make bench-scale its scale scenario alone: the storm at 32-128 vCPUs on the
#                   MODULE_STATS kernel (bench/scale.sh; VCPUS="32 64 128")
#   make bench-seeds the seeds' table: 448 requests per CPU alias, on 6.12 with and
#                   without the merge of concurrent loads (bench/seeds.sh)
#   make soak N=20  dracut, mkinitcpio and /init boots N times each (bench/results/soak-*.md)
#   make fuzz       the fuzzers, for FUZZ_SECONDS each
#   make install    DESTDIR, PREFIX
#   make deb, rpm   the Debian and RPM packages (build/deb, build/rpm)
#   make system     build/system/modpreload against the system's libkmod, libzstd,
#                   liblzma and zlib (pkg-config; Buildroot's package: scripts/system.mk)

PREFIX ?= /usr
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DRACUTDIR ?= $(PREFIX)/lib/dracut/modules.d
INITCPIODIR ?= $(PREFIX)/lib/initcpio
B := build

MUSL_CC ?= musl-gcc
# ARCH=arm64 or armhf: the static binaries cross-built under build/ARCH/
ifneq ($(filter-out x86 x86_64 amd64,$(ARCH)),)
include scripts/cross.mk
endif
CC ?= cc
CLANG ?= clang
WARN := -Wall -Wextra -Wmissing-prototypes -Wshadow -Wno-unused-parameter
# The test builds treat a warning as an error; the shipped build does not, so
# that a newer compiler's new warning never stops a distribution's build.
TEST_WARN := -Werror
# One version, in VERSION: the binaries (-D), the man pages, the Debian and RPM
# packages and NEWS.md carry it, and lint fails when one of them disagrees.
VERSION := $(shell cat VERSION)
CFLAGS_COMMON := -std=gnu11 $(WARN) -D_GNU_SOURCE -Ipreload -DMP_VERSION='"$(VERSION)"'
# No unwind tables: nothing here unwinds (C, no thread cancellation), and
# AArch64's GCC makes them even without -fasynchronous-unwind-tables: 24 KiB
# of .eh_frame there, ours and the libraries' (scripts/build-libs.sh).
STATIC_CFLAGS := $(CFLAGS_COMMON) -Os -ffunction-sections -fdata-sections \
	-fno-asynchronous-unwind-tables -fno-unwind-tables -I$(B)/libs/include \
	-DMP_WRAP_FNMATCH
# No RELRO: in a static musl binary nothing applies it (no dynamic linker;
# its page stays writable), yet the linker aligns its end to the largest page
# size, which on AArch64 (64 KiB) padded the file by up to 64 KiB. The
# segments keep that alignment in memory: 16 and 64 KiB page kernels run it.
STATIC_LDFLAGS := -static -Wl,--gc-sections -Wl,-z,norelro -s -L$(B)/libs/lib
# --wrap=fnmatch: libkmod's alias lookups call base/match.c's fnmatch()
STATIC_LIBS := -Wl,--wrap=fnmatch -lkmod -lzstd -llzma -lz -lpthread

# the library core: every stage of the pipeline, a folder each, in the order
# of the stages, which scripts/layers.sh holds and checks this list against (a
# file calls only its stage and those above)
CORE := base/util base/limits base/strmap base/json base/sys base/initstate base/holder base/match \
	parse/cmdline parse/confparse parse/aliases parse/uevent parse/index parse/kstats parse/profile \
	model/graph \
	context/log context/env context/moddir context/known context/kinds context/stale context/kept context/ctx \
	plan/request plan/coldplug plan/modopts plan/plan plan/lookup plan/leave plan/rootfs plan/profile_io \
	load/sched load/waits load/pool load/load load/decompress load/outcome load/holdable load/handover load/early load/replay load/udevhold load/gate \
	report/dupcost report/nodev report/report report/summary \
	run/caller run/run
CORE_SRC := $(CORE:%=preload/%.c)
# the shared headers in preload/ (-Ipreload), a stage's own beside its files
HDRS := $(wildcard preload/*.h preload/*/*.h) VERSION

.PHONY: all libs check check-full check-fast unit unit-bins vmtest fuzz fuzz-smoke demo bench bench-scale bench-seeds install install-core clean distclean deps shellcheck soak

# The included parts define rules too: the default goal stays `all`.
.DEFAULT_GOAL := all

# Each shipped part adds its own targets to EXTRA_ALL / EXTRA_INSTALL.
EXTRA_ALL :=
EXTRA_INSTALL :=
EXTRA_UNIT :=
-include init/init.mk
-include analyze/analyze.mk
-include dracut-module/dracut.mk
-include mkinitcpio-hook/mkinitcpio.mk
-include initramfs-tools/initramfs-tools.mk
-include systemd/systemd.mk
-include packaging/packaging.mk
-include scripts/system.mk

all: $(B)/modpreload $(EXTRA_ALL)

libs: $(B)/libs/.done
# from the test cache when built before from the same inputs (scripts/libs.sh)
$(B)/libs/.done: scripts/libs.sh scripts/build-libs.sh init/build-blkid.sh scripts/apt.sh scripts/cache.sh
	scripts/libs.sh $(B)/libs
	touch $@

# --- the static musl binary ---
$(B)/musl/%.o: preload/%.c $(HDRS) $(B)/libs/.done
	@mkdir -p $(dir $@)
	$(MUSL_CC) $(STATIC_CFLAGS) -c $< -o $@

$(B)/modpreload: $(CORE:%=$(B)/musl/%.o) $(B)/musl/run/main.o
	$(MUSL_CC) $(STATIC_LDFLAGS) -o $@ $^ $(STATIC_LIBS)
	@echo "  $@: $$(stat -c %s $@) bytes"

# --- mutants: the same binary with a load that breaks the invariant on
# purpose (tests/mutants/mutant.c: twice, noload), for make check-full's
# harness/lib/cases/mutants.sh; never installed ---
$(B)/mutant-%/mutant.o: tests/mutants/mutant.c $(B)/libs/.done
	@mkdir -p $(dir $@)
	$(MUSL_CC) $(STATIC_CFLAGS) -DMP_MUTANT='"$*"' -c $< -o $@
$(B)/mutant-%/modpreload: $(CORE:%=$(B)/musl/%.o) $(B)/musl/run/main.o $(B)/mutant-%/mutant.o
	$(MUSL_CC) $(STATIC_LDFLAGS) -Wl,--wrap=syscall -o $@ $^ $(STATIC_LIBS)

# --- test builds: the same sources, glibc, sanitizers, host libraries ---
TEST_LIBS := -lkmod -lzstd -llzma -lz -lpthread
ASAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
	-ftrivial-auto-var-init=pattern
TSAN := -fsanitize=thread -fno-omit-frame-pointer

$(B)/asan/%.o: preload/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(TEST_WARN) -g -O1 $(ASAN) -c $< -o $@
$(B)/tsan/%.o: preload/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(TEST_WARN) -g -O1 $(TSAN) -c $< -o $@

$(B)/asan/modpreload: $(CORE:%=$(B)/asan/%.o) $(B)/asan/run/main.o
	$(CC) $(ASAN) -o $@ $^ $(TEST_LIBS)
$(B)/tsan/modpreload: $(CORE:%=$(B)/tsan/%.o) $(B)/tsan/run/main.o
	$(CC) $(TSAN) -o $@ $^ $(TEST_LIBS)

# --- install ---
install: install-core $(EXTRA_INSTALL)
install-core: $(B)/modpreload
	install -D -m 0755 $(B)/modpreload $(DESTDIR)$(SBINDIR)/modpreload
	install -D -m 0644 preload/modpreload.8 $(DESTDIR)$(MANDIR)/man8/modpreload.8

clean:
	rm -rf $(B)/musl $(B)/asan $(B)/tsan $(B)/mutant-* $(B)/modpreload $(B)/modpreload-init $(B)/unit $(B)/fuzz
distclean:
	rm -rf $(B)

# --- unit tests ---
$(B)/unit/test_%: tests/unit/test_%.c tests/unit/t.h $(CORE:%=$(B)/asan/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(TEST_WARN) -g -O1 $(ASAN) -o $@ $< $(CORE:%=$(B)/asan/%.o) $(TEST_LIBS)
$(B)/unit/shim.so: tests/shim/shim.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -Wall -Wextra -O1 -shared -fPIC -o $@ $< -lpthread

# one test a source file: tests/unit/test_NAME.c tests preload/STAGE/NAME.c
UNIT_TESTS := util strmap match aliases rootfs cmdline confparse uevent index graph decompress dupcost kstats json profile handover
UNIT_BINS := $(UNIT_TESTS:%=$(B)/unit/test_%) $(B)/unit/shim.so \
	$(B)/asan/modpreload $(B)/tsan/modpreload $(EXTRA_UNIT)
unit: $(UNIT_BINS)
	tests/run.sh unit

# --- everything: installs its own dependencies, then every suite ---
deps:
	scripts/deps.sh
# check runs the fast tier first and stops there if it failed: a broken unit
# test is news in minutes, not after the VM tier's half hour.
check: deps
	t0=$$(date +%s) && $(MAKE) -j$$(nproc) all unit-bins && \
	$(MAKE) -j$$(nproc) ARCH=arm64 all && \
	MP_BUILD_S=$$(($$(date +%s) - t0)) MP_FAST_FIRST=1 tests/run.sh
# check-full: every case and every variant (more vCPUs, both directions of
# each storm): what make check leaves out, for changes that touch it
check-full: deps
	MP_FULL=1 $(MAKE) check
check-fast: deps
	$(MAKE) -j$$(nproc) all unit-bins
	tests/run.sh unit fuzz lint
vmtest: all
	tests/run.sh vm
demo: deps
	$(MAKE) all
	bench/demo.sh
bench: deps
	$(MAKE) all
	bench/run.sh
VCPUS ?= 32 64 128
bench-scale: deps
	$(MAKE) all
	bench/scale.sh -c "$(VCPUS)"
bench-seeds: deps
	$(MAKE) all
	bench/seeds.sh
N ?= 20
soak: deps
	$(MAKE) all
	bench/soak.sh -n $(N)

# --- fuzzing (libFuzzer) ---
FUZZERS := cmdline conf uevent kstats index profile analyze known
# what the fast tier runs, named for a sub-make: it reads init.mk's test
# (which needs libblkid-dev) only after `deps` has installed it
unit-bins: $(UNIT_BINS) $(FUZZERS:%=$(B)/fuzz/fuzz_%)
FUZZ_SRC := $(addprefix preload/,base/util.c base/limits.c base/strmap.c parse/cmdline.c parse/confparse.c \
	parse/uevent.c parse/kstats.c parse/index.c parse/profile.c)
FUZZ_SECONDS ?= 60
# the index fuzzer hands what our check accepts to the host's libkmod
FUZZ_LIBS_index := -lkmod
# known.c is compiled into its fuzzer (its parser is static); it calls libkmod too
FUZZ_LIBS_known := -lkmod
$(B)/fuzz/fuzz_known: preload/context/known.c
$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_SRC) $(HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) $(CFLAGS_COMMON) -g -O1 -fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZ_SRC) $(FUZZ_LIBS_$*)
fuzz: $(FUZZERS:%=$(B)/fuzz/fuzz_%)
	tests/fuzz/run.sh $(FUZZ_SECONDS)
fuzz-smoke: $(FUZZERS:%=$(B)/fuzz/fuzz_%)
	tests/fuzz/run.sh 10
