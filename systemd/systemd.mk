# The booted system's units (included by the Makefile). Installed, not
# enabled: `systemctl enable modpreload-coldplug.service` turns both on.
#   $(SYSTEMDUNITDIR)/modpreload-coldplug.service     before udevd and its trigger
#   $(SYSTEMDUNITDIR)/modpreload-save-report.service  /run's reports to /var/lib/modpreload
#   $(LIBEXECDIR)/save-report                         what the second one runs

SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
LIBEXECDIR ?= $(PREFIX)/lib/modpreload

.PHONY: install-systemd
install-systemd:
	install -D -m 0644 systemd/modpreload-coldplug.service $(DESTDIR)$(SYSTEMDUNITDIR)/modpreload-coldplug.service
	install -D -m 0644 systemd/modpreload-save-report.service $(DESTDIR)$(SYSTEMDUNITDIR)/modpreload-save-report.service
	install -D -m 0755 systemd/save-report $(DESTDIR)$(LIBEXECDIR)/save-report

EXTRA_INSTALL += install-systemd
