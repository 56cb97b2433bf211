# shellcheck shell=sh
# shellcheck disable=SC2154 # top: set by the script that sources this
# Host side of the dracut-* VM cases, bench/dracut-storm.sh and the booted
# family: initramfs images made by Debian's real dracut (059) for Debian's 6.1
# kernel (harness/lib/dracutimage.sh), with or without
# dracut-module/50modpreload. Booting them to the small ext4 root and the
# checks over what the root reports are harness/lib/debimage.sh's (in
# build/vm/dracut). Source it after setting $top:
#   . "$top/harness/dracut/host.sh"
#
#   dr_image ...             harness/lib/dracutimage.sh's
#   dr_conf_failing          prints a root with modpreload.d lists naming
#                            mpt_fail_child and mpt_hang_child
#                            (deb_sysroot_failing)
#   dr_prepare_image NAME INIT PRELOAD [SYSROOT [DRIVERS]]
#                            deb_prepare and dr_image, or the case's FAIL
#                            line and exit

# shellcheck source=harness/lib/dracutimage.sh
. "$top/harness/lib/dracutimage.sh"

DEB_WORK=$top/build/vm/dracut

dr_conf_failing() {
	deb_sysroot_failing "$DEB_WORK/conf-failing" dracut-shell.sh
}

dr_prepare_image() {
	deb_prepare
	dr_image "$@" || fail_all "dracut could not build the image (see $DEB_WORK/logs/)"
}
