# mkinitcpio hook (included by the Makefile).
#   $(INITCPIODIR)/install/modpreload   build-time hook (bash, sourced by mkinitcpio)
#   $(INITCPIODIR)/hooks/modpreload     runtime early hook (busybox ash)
#   $(SYSTEMDUNITDIR)/modpreload.service  the same for images made with the
#                                       `systemd` hook (add_systemd_unit looks
#                                       for units there); inert outside an initrd

SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system

.PHONY: install-mkinitcpio
install-mkinitcpio:
	install -D -m 0644 mkinitcpio-hook/install/modpreload $(DESTDIR)$(INITCPIODIR)/install/modpreload
	install -D -m 0644 mkinitcpio-hook/hooks/modpreload $(DESTDIR)$(INITCPIODIR)/hooks/modpreload
	install -D -m 0644 mkinitcpio-hook/modpreload.service $(DESTDIR)$(SYSTEMDUNITDIR)/modpreload.service

EXTRA_INSTALL += install-mkinitcpio
