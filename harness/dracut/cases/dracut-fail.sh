#!/bin/sh
# dracut 059 + systemd, 4 vCPUs: modules asked for on the kernel command
# line (rd.modpreload.modules=) whose dependencies fail (mpt_fail: ENODEV)
# or hang in init() (mpt_hang), with rd.modpreload.timeout=5:
# dracut-pre-udev.service finishes, udevd starts, the root's init runs,
# everything else is loaded once. rd.modpreload.jobs=1 (the default would
# be 4 here): never more than one of modpreload's finit_module calls in
# the kernel, plus the hung one once given up on. rd.driver.pre=mpt_params
# with mpt_params.value=7: modpreload loads it, with its option, before
# dracut-pre-udev's own modprobe of rd.driver.pre= (which then finds it
# live). Reuses the image of dracut-once.sh; the scenario is
# harness/lib/scenarios/fail.sh, itools-fail.sh's too. About 1 minute.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/dracut/host.sh
. "$top/harness/dracut/host.sh"
# shellcheck source=harness/lib/scenarios/fail.sh
. "$top/harness/lib/scenarios/fail.sh"
name=dracut-fail
dr_prepare_image systemd systemd yes
scenario_fail systemd-4cpu "$DEB_WORK/img/systemd.img" systemd-failing report rd.driver.pre \
	"rd.modpreload.modules=mpt_fail_child,mpt_hang_child" "systemd, modpreload, failing modules, jobs=1, 4 vCPUs"
