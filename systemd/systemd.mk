# The booted system's units (included by the Makefile). Installed, not
# enabled: `systemctl enable modpreload-coldplug.service` turns both on.
# The coldplug unit runs the binary where install-core put it: its ExecStart
# names $(SBINDIR)/modpreload (/usr/sbin by default; /usr/bin where /usr/sbin
# is merged into it, as on Arch: packaging/arch/PKGBUILD).
#   $(SYSTEMDUNITDIR)/modpreload-coldplug.service     before udevd and its trigger
#   $(SYSTEMDUNITDIR)/modpreload-names.service        systemd-modules-load waits there
#                                                     for the names (pulled in by the first)
#   $(SYSTEMDUNITDIR)/modpreload-save-report.service  /run's reports to /var/lib/modpreload
#   $(LIBEXECDIR)/save-report                         what the second one runs

SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
LIBEXECDIR ?= $(PREFIX)/lib/modpreload

.PHONY: install-systemd
install-systemd:
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	for u in modpreload-coldplug modpreload-names; do \
		sed 's|^\(Exec[A-Za-z]*=-\)/usr/sbin/modpreload |\1$(SBINDIR)/modpreload |' systemd/$$u.service \
			>$(DESTDIR)$(SYSTEMDUNITDIR)/$$u.service && \
		chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/$$u.service || exit 1; \
	done
	install -D -m 0644 systemd/modpreload-save-report.service $(DESTDIR)$(SYSTEMDUNITDIR)/modpreload-save-report.service
	install -D -m 0755 systemd/save-report $(DESTDIR)$(LIBEXECDIR)/save-report

EXTRA_INSTALL += install-systemd
