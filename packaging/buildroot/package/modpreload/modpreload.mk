################################################################################
#
# modpreload
#
################################################################################

# The source is the tree this external tree is part of (packaging/buildroot
# in the modpreload repository): `local`, so no download and no tarball
# hash; the version is the tree's. To build another checkout, set
# MODPRELOAD_OVERRIDE_SRCDIR in a local.mk (BR2_PACKAGE_OVERRIDE_FILE).
MODPRELOAD_SITE = $(realpath $(BR2_EXTERNAL_MODPRELOAD_PATH)/../..)
MODPRELOAD_SITE_METHOD = local
MODPRELOAD_VERSION = $(shell cat $(MODPRELOAD_SITE)/VERSION)
# the repository's own build/ (the musl build's libraries, test VMs) and
# the benchmark's results are no part of the source
MODPRELOAD_OVERRIDE_SRCDIR_RSYNC_EXCLUSIONS = \
	--exclude /build --exclude /bench/results
MODPRELOAD_LICENSE = LGPL-2.1+
MODPRELOAD_LICENSE_FILES = debian/copyright
MODPRELOAD_DEPENDENCIES = host-pkgconf kmod zstd xz zlib

# scripts/system.mk: the preload/ sources against Buildroot's libkmod,
# libzstd, liblzma and zlib, found by pkg-config in staging
MODPRELOAD_MAKE_OPTS = \
	CC="$(TARGET_CC)" \
	CFLAGS="$(TARGET_CFLAGS)" \
	LDFLAGS="$(TARGET_LDFLAGS)" \
	PKG_CONFIG="$(PKG_CONFIG_HOST_BINARY)" \
	PREFIX=/usr

# Buildroot's kmod has no static library, so BR2_STATIC_LIBS cannot select
# modpreload (Config.in); should it one day, the link follows it.
ifeq ($(BR2_STATIC_LIBS),y)
MODPRELOAD_MAKE_OPTS += SYSTEM_STATIC=1
endif

MODPRELOAD_TARGETS = system
MODPRELOAD_INSTALL_TARGETS = install-system
ifeq ($(BR2_PACKAGE_MODPRELOAD_INIT),y)
MODPRELOAD_DEPENDENCIES += util-linux
MODPRELOAD_TARGETS += system-init
MODPRELOAD_INSTALL_TARGETS += install-system-init
endif

define MODPRELOAD_BUILD_CMDS
	$(TARGET_MAKE_ENV) $(MAKE) -C $(@D) $(MODPRELOAD_MAKE_OPTS) \
		$(MODPRELOAD_TARGETS)
endef

define MODPRELOAD_INSTALL_TARGET_CMDS
	$(TARGET_MAKE_ENV) $(MAKE) -C $(@D) $(MODPRELOAD_MAKE_OPTS) \
		DESTDIR=$(TARGET_DIR) $(MODPRELOAD_INSTALL_TARGETS)
endef

# busybox init and sysvinit: before S10udevd (eudev) and S10mdev
define MODPRELOAD_INSTALL_INIT_SYSV
	$(INSTALL) -D -m 0755 $(MODPRELOAD_PKGDIR)/S05modpreload \
		$(TARGET_DIR)/etc/init.d/S05modpreload
endef

# systemd: the booted system's units (systemd/), enabled by Buildroot's
# `systemctl preset-all` through their [Install] sections
define MODPRELOAD_INSTALL_INIT_SYSTEMD
	$(TARGET_MAKE_ENV) $(MAKE) -C $(@D) $(MODPRELOAD_MAKE_OPTS) \
		DESTDIR=$(TARGET_DIR) install-systemd
endef

$(eval $(generic-package))
