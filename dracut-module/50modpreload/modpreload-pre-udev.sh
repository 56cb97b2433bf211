#!/bin/sh
# modpreload before udevd: every module that coldplug, rd.driver.pre=,
# rd.modpreload.modules= and modpreload.d ask for, each loaded once, so that
# udevd's coldplug finds its drivers already live.
#
# Sourced, not run: by dracut's shell init (PID 1) right before it starts
# udevd, or by dracut-pre-udev.service. So it never exits, never sets -e,
# keeps its variables to _mp_* and unsets them: whatever modpreload does,
# the boot goes on. modpreload returns once it knows every module it will
# load (the rest loads in the background), and gives up on an init() that
# hangs (rd.modpreload.timeout=, 60 s by default).

# shellcheck source=/dev/null # the image's dracut-lib.sh
type getargbool >/dev/null 2>&1 || . /lib/dracut-lib.sh

if ! getargbool 1 rd.modpreload; then
    info "modpreload: off (rd.modpreload=0); udev loads the modules"
elif [ ! -x /usr/sbin/modpreload ]; then
    warn "modpreload: /usr/sbin/modpreload is missing; udev loads the modules"
else
    # modpreload reads the command line itself (rd.modpreload.*,
    # rd.driver.pre=, blacklists, module options). Hand it dracut's view of
    # it, which adds /etc/cmdline.d to /proc/cmdline, so what the image
    # carries there counts as it does for every other dracut hook.
    _mp_dir=/run/initramfs
    mkdir -p "$_mp_dir"
    getcmdline >"$_mp_dir/modpreload.cmdline" 2>/dev/null
    # --nodev-blacklist: drivers a CPU's modalias matched whose init()
    # found no device are blacklisted for this boot in /run/modprobe.d, so
    # udevd's workers (here and, /run moving with the root, after
    # switch-root) do not ask for them once per CPU (modpreload.nodev=0: off)
    # --handover: it returns once the plan is whole, so the boot goes on
    # beside a slow driver; a process of its own loads the rest (udev leaves
    # those modules alone until then) and writes the report, after
    # switch-root too (rd.modpreload.handover=0: wait for them here)
    # --hold-udev: and udev loads no driver until it is done (a rule in
    # /run/udev/rules.d), so it returns without waiting for the modules a
    # blacklist cannot hold (the CPU crypto modules, the root's file
    # system): udevd starts seconds sooner and makes the root's device
    /usr/sbin/modpreload --coldplug --hold-udev --root-fs --kmsg \
        --cmdline "$_mp_dir/modpreload.cmdline" \
        --nodev-blacklist /run/modprobe.d/modpreload-nodev.conf \
        --report "$_mp_dir/modpreload.json" \
        --profile-out /run/modpreload/profile </dev/null
    _mp_rc=$?
    case $_mp_rc in
        0) ;;
        1) warn "modpreload: some modules failed, hung or were skipped; udev will retry what devices ask for (see $_mp_dir/modpreload.json)" ;;
        4) warn "modpreload: modules were preloaded (some may have failed: see the kernel log), but $_mp_dir/modpreload.json could not be written" ;;
        *) warn "modpreload: exit status $_mp_rc, nothing preloaded; udev loads the modules" ;;
    esac
    rm -f "$_mp_dir/modpreload.cmdline"
fi
unset _mp_dir _mp_rc
