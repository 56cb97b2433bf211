# Packages (included by the Makefile).
#   make deb   build/deb/modpreload_VERSION_amd64.deb (dpkg-buildpackage, debian/)

.PHONY: deb
deb:
	packaging/mkdeb.sh

