# The dracut module (included by the Makefile): `make install` puts it where
# dracut looks for modules, so that `dracut --add modpreload` is all it takes.

DRACUT_MODULE := dracut-module/90modpreload
DRACUT_FILES := $(DRACUT_MODULE)/module-setup.sh $(DRACUT_MODULE)/modpreload-pre-udev.sh

.PHONY: install-dracut
install-dracut:
	install -d $(DESTDIR)$(DRACUTDIR)/90modpreload
	install -m 0755 $(DRACUT_FILES) $(DESTDIR)$(DRACUTDIR)/90modpreload/

EXTRA_INSTALL += install-dracut
