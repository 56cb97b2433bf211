# Cross builds: `make ARCH=arm64` (or ARCH=armhf) builds the same static
# binaries for that architecture under build/ARCH/ (build/ARCH/modpreload,
# build/ARCH/modpreload-init), on this machine, from Debian's parts only:
# the host's cross gcc, the target's musl-dev unpacked beside it
# (scripts/musl-cross.sh) and the libraries built from the same Debian
# sources as the native ones (scripts/build-libs.sh, init/build-blkid.sh).
# Included by the Makefile before anything names $(B).

CROSS_TRIPLET_arm64 := aarch64-linux-gnu
CROSS_TRIPLET_armhf := arm-linux-gnueabihf
CROSS_TRIPLET := $(CROSS_TRIPLET_$(ARCH))
ifeq ($(CROSS_TRIPLET),)
$(error ARCH=$(ARCH): only arm64 and armhf are cross-built (or x86_64, the native build))
endif

B := build/$(ARCH)
MUSL_CC := $(CURDIR)/$(B)/musl-gcc
# what scripts/build-libs.sh and init/build-blkid.sh read
export MUSL_CC
export MP_CROSS := $(CROSS_TRIPLET)
export MP_CROSS_INCLUDE := $(CURDIR)/$(B)/sysroot/usr/include
export MP_SRC_WORK := $(CURDIR)/$(B)/src

$(B)/musl-gcc: scripts/musl-cross.sh
	scripts/musl-cross.sh $(ARCH) $(B)

# the libraries need the cross compiler first
$(B)/libs/.done: $(B)/musl-gcc
