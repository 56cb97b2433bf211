# /init for minimal systems and its initramfs builder (included by the Makefile).
#   build/modpreload-init    static musl PID 1: the preload core in-process,
#                            util-linux's libblkid for UUID=/LABEL=/PARTUUID=
#   build/unit/test_init     its unit tests (glibc, ASan/UBSan, host libblkid)

INIT_OBJS := init bootargs blkdev rootwait mounts switchroot shell log
INIT_HDRS := init/init.h $(HDRS)
INIT_CFLAGS := -Iinit

# libblkid from Debian bookworm's util-linux source, beside the core's libraries
$(B)/libs/.blkid-done: init/build-blkid.sh $(B)/libs/.done
	init/build-blkid.sh $(B)/libs
	touch $@

$(B)/musl-init/%.o: init/%.c $(INIT_HDRS) $(B)/libs/.blkid-done
	@mkdir -p $(dir $@)
	$(MUSL_CC) $(STATIC_CFLAGS) $(INIT_CFLAGS) -c $< -o $@

$(B)/modpreload-init: $(INIT_OBJS:%=$(B)/musl-init/%.o) $(CORE:%=$(B)/musl/%.o)
	$(MUSL_CC) $(STATIC_LDFLAGS) -o $@ $^ -lblkid $(STATIC_LIBS)
	@echo "  $@: $$(stat -c %s $@) bytes"

EXTRA_ALL += $(B)/modpreload-init

# --- unit tests: everything but main(), against the host's libblkid ---
$(B)/asan-init/%.o: init/%.c $(INIT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(INIT_CFLAGS) -g -O1 $(ASAN) -c $< -o $@

INIT_TEST_OBJS := $(filter-out $(B)/asan-init/init.o,$(INIT_OBJS:%=$(B)/asan-init/%.o))
$(B)/unit/test_init: tests/unit/test_init.c tests/unit/t.h $(INIT_TEST_OBJS) $(CORE:%=$(B)/asan/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(INIT_CFLAGS) -g -O1 $(ASAN) -o $@ $< $(INIT_TEST_OBJS) \
		$(CORE:%=$(B)/asan/%.o) -lblkid $(TEST_LIBS)

# The host's libblkid (libblkid-dev) is what the test links; without it the
# test is not built, and tests/unit/run.sh reports it missing as a FAIL.
ifneq ($(wildcard /usr/include/blkid/blkid.h),)
EXTRA_UNIT += $(B)/unit/test_init
endif

# --- install ---
LIBEXECDIR ?= $(PREFIX)/lib/modpreload
.PHONY: install-init
install-init: $(B)/modpreload-init
	install -D -m 0755 $(B)/modpreload-init $(DESTDIR)$(LIBEXECDIR)/init
	install -D -m 0755 init/mkinitramfs $(DESTDIR)$(SBINDIR)/modpreload-mkinitramfs
	install -D -m 0644 init/modpreload-mkinitramfs.8 $(DESTDIR)$(MANDIR)/man8/modpreload-mkinitramfs.8

EXTRA_INSTALL += install-init

.PHONY: clean-init
clean: clean-init
clean-init:
	rm -rf $(B)/musl-init $(B)/asan-init
