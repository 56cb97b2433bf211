#!/bin/sh
# initramfs-tools + Debian's systemd-udevd, 4 vCPUs, modpreload asked for
# modules whose dependencies fail (mpt_fail: ENODEV) or hang in init()
# (mpt_hang) by the image's /etc/modpreload.d list (built by
# itools-install.sh's image), rd.modpreload.timeout=5: the init-top script
# returns, udevd starts, the root's init runs, everything else is loaded
# once and udev's workers load nothing. rd.modpreload.jobs=1: never more
# than one of modpreload's loads in the kernel, plus the hung one once given
# up on. rd.modpreload.modules=mpt_params with mpt_params.value=7: loaded by
# modpreload, with its option. The scenario is harness/lib/scenarios/fail.sh,
# dracut-fail.sh's too. About 2 minutes.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/itools/host.sh
. "$top/harness/itools/host.sh"
# shellcheck source=harness/lib/scenarios/fail.sh
. "$top/harness/lib/scenarios/fail.sh"
name=itools-fail
it_prepare_image failing yes "$(it_lists_failing)"
scenario_fail 4cpu "$DEB_WORK/img/failing.img" failing report_run rd.modpreload.modules "" \
	"initramfs-tools, modpreload, failing modules, jobs=1, 4 vCPUs"
