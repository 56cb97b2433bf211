# Packages (included by the Makefile).
#   make deb   build/deb/modpreload_VERSION_amd64.deb (dpkg-buildpackage, debian/)
#   make rpm   build/rpm/RPMS/x86_64/modpreload-VERSION.x86_64.rpm
#              (rpmbuild -bb packaging/modpreload.spec, from `make install`)

.PHONY: deb rpm
deb:
	packaging/mkdeb.sh

# rpmbuild's work and output stay under build/rpm; the spec installs what
# `make` built (srcdir), so the binaries are built first.
rpm: all
	rm -rf $(B)/rpm
	rpmbuild -bb --define "_topdir $(CURDIR)/$(B)/rpm" --define "srcdir $(CURDIR)" \
		--define "mp_version $(VERSION)" \
		--define "_dbpath $(CURDIR)/$(B)/rpm/db" packaging/modpreload.spec >$(B)/rpm.log 2>&1 || \
		{ tail -n 20 $(B)/rpm.log; exit 1; }
	ls $(CURDIR)/$(B)/rpm/RPMS/*/modpreload-*.rpm

.PHONY: clean-packages
clean: clean-packages
clean-packages:
	rm -rf $(B)/deb $(B)/rpm $(B)/rpm.log
