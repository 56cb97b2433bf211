# The dracut module (included by the Makefile): `make install` puts it where
# dracut looks for modules, so that `dracut --add modpreload` is all it takes.

DRACUT_MODULE := dracut-module/50modpreload
DRACUT_FILES := $(DRACUT_MODULE)/module-setup.sh $(DRACUT_MODULE)/modpreload-pre-udev.sh

.PHONY: install-dracut
install-dracut:
	install -d $(DESTDIR)$(DRACUTDIR)/50modpreload
	install -m 0755 $(DRACUT_FILES) $(DESTDIR)$(DRACUTDIR)/50modpreload/
	@# named 90modpreload before 0.2.0: an older make install's copy would be
	@# a second dracut module called modpreload. Only its two files go.
	@old=$(DESTDIR)$(DRACUTDIR)/90modpreload; \
	if [ -d "$$old" ]; then \
		rm -f $(addprefix "$$old"/,$(notdir $(DRACUT_FILES))); rmdir "$$old" 2>/dev/null || :; \
	fi

EXTRA_INSTALL += install-dracut
