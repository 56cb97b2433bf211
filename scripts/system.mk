# Builds against the system's own libraries (included by the Makefile), for
# a build system or distribution that provides libkmod, libzstd, liblzma and
# zlib itself (Buildroot: packaging/buildroot/) instead of the static musl
# binary's own copies (scripts/libs.sh):
#   make system          $(SYS)/modpreload
#   make system-init     $(SYS)/modpreload-init (libblkid too)
#   make install-system  what `make system` built, as install-core does
#   make install-system-init   $(LIBEXECDIR)/init, as install-init does
# Read: CC, CFLAGS (after -Os, as the musl build's: SYSTEM_OPT), CPPFLAGS, LDFLAGS, PKG_CONFIG (a cross
# build's, which answers for the target's sysroot), and SYSTEM_STATIC=1 to
# link statically (pkg-config --static; libkmod's alias lookups then call
# base/match.c's fnmatch, as in the musl binary). Nothing here downloads or
# builds a library; the sources and their flags are the musl build's.
# Only the binaries: the units, hooks and man pages install as always
# (install-systemd, ...).

SYS := $(B)/system
PKG_CONFIG ?= pkg-config
SYSTEM_PKGS := libkmod libzstd liblzma zlib
SYSTEM_OPT ?= -Os
ifeq ($(SYSTEM_STATIC),1)
SYSTEM_PCFLAGS := --static
SYSTEM_WRAP_CFLAGS := -DMP_WRAP_FNMATCH
SYSTEM_WRAP_LDFLAGS := -static -Wl,--wrap=fnmatch
endif
# := on purpose, but only when a system target is asked for: pkg-config
# runs once, and never for the other targets (nor where it is missing)
ifneq ($(filter system system-init install-system install-system-init,$(MAKECMDGOALS)),)
SYSTEM_PC_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(SYSTEM_PKGS))
SYSTEM_PC_LIBS := $(shell $(PKG_CONFIG) --libs $(SYSTEM_PCFLAGS) $(SYSTEM_PKGS))
ifeq ($(SYSTEM_PC_LIBS),)
$(error $(PKG_CONFIG) knows none of $(SYSTEM_PKGS): install their -dev packages, or set PKG_CONFIG)
endif
endif
ifneq ($(filter system-init install-system-init,$(MAKECMDGOALS)),)
SYSTEM_BLKID_CFLAGS := $(shell $(PKG_CONFIG) --cflags blkid)
SYSTEM_BLKID_LIBS := $(shell $(PKG_CONFIG) --libs $(SYSTEM_PCFLAGS) blkid)
endif
SYSTEM_CFLAGS = $(CFLAGS_COMMON) $(SYSTEM_OPT) $(CPPFLAGS) $(CFLAGS) $(SYSTEM_WRAP_CFLAGS) $(SYSTEM_PC_CFLAGS)

.PHONY: system system-init install-system install-system-init
system: $(SYS)/modpreload
system-init: $(SYS)/modpreload-init

$(SYS)/obj/%.o: preload/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(SYSTEM_CFLAGS) -c $< -o $@
$(SYS)/obj-init/%.o: init/%.c $(HDRS) init/init.h
	@mkdir -p $(dir $@)
	$(CC) $(SYSTEM_CFLAGS) -Iinit $(SYSTEM_BLKID_CFLAGS) -c $< -o $@

$(SYS)/modpreload: $(CORE:%=$(SYS)/obj/%.o) $(SYS)/obj/run/main.o
	$(CC) $(LDFLAGS) $(SYSTEM_WRAP_LDFLAGS) -o $@ $^ $(SYSTEM_PC_LIBS) -lpthread
$(SYS)/modpreload-init: $(INIT_OBJS:%=$(SYS)/obj-init/%.o) $(CORE:%=$(SYS)/obj/%.o)
	$(CC) $(LDFLAGS) $(SYSTEM_WRAP_LDFLAGS) -o $@ $^ $(SYSTEM_BLKID_LIBS) $(SYSTEM_PC_LIBS) -lpthread

install-system: $(SYS)/modpreload
	install -D -m 0755 $(SYS)/modpreload $(DESTDIR)$(SBINDIR)/modpreload
	install -D -m 0644 preload/modpreload.8 $(DESTDIR)$(MANDIR)/man8/modpreload.8
install-system-init: $(SYS)/modpreload-init
	install -D -m 0755 $(SYS)/modpreload-init $(DESTDIR)$(LIBEXECDIR)/init

.PHONY: clean-system
clean: clean-system
clean-system:
	rm -rf $(SYS)
