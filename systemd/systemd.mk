# The booted system's units (included by the Makefile). Installed, not
# enabled: `systemctl enable modpreload-coldplug.service` turns both on.
# The coldplug unit runs the binary where install-core put it: its ExecStart
# names $(SBINDIR)/modpreload (/usr/sbin by default; /usr/bin where /usr/sbin
# is merged into it, as on Arch: packaging/arch/PKGBUILD).
#   $(SYSTEMDUNITDIR)/modpreload-coldplug.service     before udevd and its trigger
#   $(SYSTEMDUNITDIR)/modpreload-save-report.service  /run's reports to /var/lib/modpreload
#   $(LIBEXECDIR)/save-report                         what the second one runs

SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
LIBEXECDIR ?= $(PREFIX)/lib/modpreload

.PHONY: install-systemd
install-systemd:
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	sed 's|^ExecStart=-/usr/sbin/modpreload |ExecStart=-$(SBINDIR)/modpreload |' systemd/modpreload-coldplug.service \
		>$(DESTDIR)$(SYSTEMDUNITDIR)/modpreload-coldplug.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/modpreload-coldplug.service
	install -D -m 0644 systemd/modpreload-save-report.service $(DESTDIR)$(SYSTEMDUNITDIR)/modpreload-save-report.service
	install -D -m 0755 systemd/save-report $(DESTDIR)$(LIBEXECDIR)/save-report

EXTRA_INSTALL += install-systemd
