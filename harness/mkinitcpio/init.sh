#!/usr/bin/ash
# shellcheck shell=sh
# /init of the test images (installed by install/base): mkinitcpio's runtime
# order, step by step -- API mounts, kernel command line, /config, every
# run_earlyhook in HOOKS order, `modprobe -qab` of earlymodules= and
# MODULES, every run_hook, the root mounted on /sysroot, run_latehook,
# run_cleanuphook (reverse order), switch_root to the root's /sbin/init.
# Each step leaves an "MPT: initramfs.STEP=uptime" line on the console.
export PATH='/usr/local/sbin:/usr/local/bin:/usr/bin'

# shellcheck disable=SC2034 # read by init_functions and the hooks
udevd_running=0
mount_handler=default_mount_handler
init=/sbin/init

# shellcheck source=harness/mkinitcpio/init_functions.sh
. /init_functions

mount_setup
parse_cmdline </proc/cmdline
mkc_kv initramfs.start "$(mkc_uptime)"

for d in $(echo "${disablehooks-}" | tr ',' ' '); do
    [ -e "/hooks/$d" ] && chmod 644 "/hooks/$d"
done

# shellcheck disable=SC1091 # written by the image build
. /config

# shellcheck disable=SC2086 # lists of hook names
run_hookfunctions run_earlyhook 'early hook' $EARLYHOOKS

# kmod's modprobe by its path: busybox runs its own applet for a bare
# `modprobe` (its shell prefers applets), mkinitcpio's busybox has none.
mkc_kv initramfs.modprobe "$(mkc_uptime)"
if [ -n "${earlymodules-}${MODULES-}" ]; then
    # shellcheck disable=SC2046,SC2086 # lists of module names
    /usr/bin/modprobe -qab $(echo "${earlymodules-}" | tr ',' ' ') ${MODULES-}
fi

# shellcheck disable=SC2086
run_hookfunctions run_hook hook $HOOKS

if rootdev=$(resolve_device "${root-}"); then
    root=$rootdev
fi
unset rootdev
mkc_kv initramfs.mount "$(mkc_uptime)"
"$mount_handler" /sysroot

# shellcheck disable=SC2086
run_hookfunctions run_latehook 'late hook' $LATEHOOKS
# shellcheck disable=SC2086
run_hookfunctions run_cleanuphook 'cleanup hook' $CLEANUPHOOKS

if [ "$(stat -c %D /)" = "$(stat -c %D /sysroot)" ]; then
    launch_interactive_shell "nothing mounted on /sysroot"
elif [ ! -x "/sysroot$init" ]; then
    launch_interactive_shell "no $init on the root"
fi

mkc_kv initramfs.switch_root "$(mkc_uptime)"
# util-linux's switch_root (install/base), as on Arch: it moves /dev, /proc,
# /sys and /run to the new root, so /run/modpreload survives.
exec env -i "TERM=${TERM-linux}" /usr/bin/switch_root /sysroot "$init" "$@"
