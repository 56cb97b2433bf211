# Packages (included by the Makefile).
#   make deb   build/deb/modpreload_VERSION_amd64.deb (dpkg-buildpackage, debian/)
#   make rpm   build/rpm/RPMS/x86_64/modpreload-VERSION.x86_64.rpm
#              (rpmbuild -bb packaging/modpreload.spec, from `make install`)
#   make pkg-arch  build/arch/modpreload-VERSION-1-x86_64.pkg.tar.zst (makepkg,
#              offline, from packaging/arch/PKGBUILD and `make dist`'s tarball:
#              packaging/arch/build.sh)
#   make srpm  build/srpm/SRPMS/modpreload-VERSION-1.src.rpm (rpmbuild -bs)
#   make rpmlint  rpmlint on the RPM and the SRPM (packaging/rpmlint.sh)
#   make dist  build/modpreload-VERSION.tar.gz, the source of the commit
#              checked out (git archive HEAD), which builds with `make all`

.PHONY: deb rpm srpm rpmlint dist pkg-arch
deb:
	packaging/mkdeb.sh

pkg-arch:
	packaging/arch/build.sh

# rpmbuild's work and output stay under build/rpm; the spec installs what
# `make` built (srcdir), so the binaries are built first.
rpm: all
	rm -rf $(B)/rpm
	rpmbuild -bb --define "_topdir $(CURDIR)/$(B)/rpm" --define "srcdir $(CURDIR)" \
		--define "mp_version $(VERSION)" \
		--define "_dbpath $(CURDIR)/$(B)/rpm/db" packaging/modpreload.spec >$(B)/rpm.log 2>&1 || \
		{ tail -n 20 $(B)/rpm.log; exit 1; }
	ls $(CURDIR)/$(B)/rpm/RPMS/*/modpreload-*.rpm

# the source RPM: the spec (it builds from the tree, not from a tarball);
# in build/srpm, beside make rpm's tree, which that target starts afresh
srpm:
	rm -rf $(B)/srpm
	rpmbuild -bs --define "_topdir $(CURDIR)/$(B)/srpm" --define "srcdir $(CURDIR)" \
		--define "mp_version $(VERSION)" \
		--define "_dbpath $(CURDIR)/$(B)/srpm/db" packaging/modpreload.spec >$(B)/srpm.log 2>&1 || \
		{ tail -n 20 $(B)/srpm.log; exit 1; }
	ls $(CURDIR)/$(B)/srpm/SRPMS/modpreload-*.src.rpm

rpmlint:
	packaging/rpmlint.sh

.PHONY: clean-packages
clean: clean-packages
clean-packages:
	rm -rf $(B)/deb $(B)/rpm $(B)/rpm.log $(B)/srpm $(B)/srpm.log $(B)/arch

# HEAD, not the work tree: a tarball is a commit that anyone can check out
# again. Uncommitted changes are left out, and said so.
dist:
	@mkdir -p $(B)
	@git diff --quiet HEAD -- || echo "dist: uncommitted changes are not in the tarball (it is HEAD)" >&2
	git archive --format=tar.gz --prefix=modpreload-$(VERSION)/ -o $(B)/modpreload-$(VERSION).tar.gz HEAD
	@echo "$(CURDIR)/$(B)/modpreload-$(VERSION).tar.gz"
