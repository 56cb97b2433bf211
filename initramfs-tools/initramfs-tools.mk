# initramfs-tools hook and boot script (included by the Makefile).
#   $(ITOOLSDIR)/hooks/modpreload            build time: binary, lists, modules
#   $(ITOOLSDIR)/scripts/init-top/modpreload boot time: before init-top/udev
# Both must be executable: mkinitramfs skips scripts that are not. The hook
# does nothing until MODPRELOAD=y is set in initramfs.conf or a conf.d
# snippet, so installing changes no image.

ITOOLSDIR ?= $(PREFIX)/share/initramfs-tools

.PHONY: install-initramfs-tools
install-initramfs-tools:
	install -D -m 0755 initramfs-tools/hooks/modpreload $(DESTDIR)$(ITOOLSDIR)/hooks/modpreload
	install -D -m 0755 initramfs-tools/scripts/init-top/modpreload \
		$(DESTDIR)$(ITOOLSDIR)/scripts/init-top/modpreload

EXTRA_INSTALL += install-initramfs-tools
