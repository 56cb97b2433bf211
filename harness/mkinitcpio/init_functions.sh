# shellcheck shell=sh
# /init_functions of the test images (installed by install/base): the helpers
# mkinitcpio's /init and its runtime hooks rely on -- msg, err, poll_device,
# run_hookfunctions, parse_cmdline, resolve_device, default_mount_handler,
# mount_setup -- re-done for busybox ash.  A test image has no one at the
# console, so the emergency shell is replaced by a report and a power-off.

msg() {
    [ "${quiet-}" = y ] || echo "$@"
}

err() {
    echo "ERROR: $*"
}

# The test's markers: "MPT: key=value" on the console, as harness/lib/lib.sh
# prints them.
mkc_kv() {
    echo "MPT: $1=$2"
}

mkc_uptime() {
    cut -d' ' -f1 /proc/uptime
}

launch_interactive_shell() {
    mkc_kv initramfs_emergency "${1:-shell}"
    echo "MPT: done"
    sync
    echo o >/proc/sysrq-trigger
    sleep 10
}

poll_device() {
    pd_dev=$1
    pd_left=$((${2:-10} * 10))
    [ -b "$pd_dev" ] && return 0
    if [ "${udevd_running:-0}" -eq 1 ]; then
        msg "Waiting ${2:-10} seconds for device $pd_dev ..." >&2
        while [ ! -b "$pd_dev" ] && [ "$pd_left" -gt 0 ]; do
            sleep 0.1
            pd_left=$((pd_left - 1))
        done
    fi
    [ -b "$pd_dev" ]
}

# run_hookfunctions FUNCTION DESCRIPTION HOOK...: source each runtime hook
# that is still executable (disablehooks= makes it 644) and call FUNCTION if
# it defines it, in the order given.
run_hookfunctions() {
    rh_fn=$1
    rh_desc=$2
    shift 2
    for rh_hook in "$@"; do
        [ -x "/hooks/$rh_hook" ] || continue
        unset -f "$rh_fn"
        # shellcheck disable=SC1090 # the image's own hooks
        . "/hooks/$rh_hook"
        command -v "$rh_fn" >/dev/null || continue
        msg ":: running $rh_desc [$rh_hook]"
        mkc_kv "hook.$rh_fn.$rh_hook" "$(mkc_uptime)"
        "$rh_fn"
    done
}

# Every key=value (or bare key) that is a valid shell name becomes a shell
# variable, as mkinitcpio does: root=, rootfstype=, rootdelay=, quiet,
# earlymodules=, disablehooks=, break=...  Names with dots are left to the
# hooks that want them.
parse_cmdline() {
    read -r pc_line
    set -f
    # shellcheck disable=SC2086 # split into words on purpose
    set -- $pc_line
    set +f
    for pc_word; do
        # shellcheck disable=SC2034 # pc_val is read by the eval below
        case $pc_word in
        rw | ro) rwopt=$pc_word ;;
        *=*) pc_key=${pc_word%%=*} pc_val=${pc_word#*=} ;;
        *) pc_key=$pc_word pc_val=y ;;
        esac
        case $pc_word in rw | ro) continue ;; esac
        case $pc_key in
        '' | [!a-zA-Z_]* | *[!a-zA-Z0-9_]*) ;;
        *) eval "$pc_key=\$pc_val" ;;
        esac
    done
}

resolve_device() {
    rd_dev=$1
    case $rd_dev in
    UUID=* | LABEL=*)
        rd_found=$(blkid -l -t "$rd_dev" -o device 2>/dev/null)
        [ -n "$rd_found" ] && rd_dev=$rd_found
        ;;
    esac
    case $rd_dev in
    /dev/*)
        if poll_device "$rd_dev" "${rootdelay:-10}"; then
            echo "$rd_dev"
            return 0
        fi
        ;;
    esac
    return 1
}

default_mount_handler() {
    msg ":: mounting '${root-}' on real root"
    # shellcheck disable=SC2086 # -t TYPE only when given
    if ! mount ${rootfstype:+-t $rootfstype} -o "${rwopt:-ro}${rootflags:+,$rootflags}" \
        "${root-}" "$1"; then
        launch_interactive_shell "mount of ${root-} failed"
    fi
}

mount_setup() {
    mount -t proc proc /proc -o nosuid,noexec,nodev
    mount -t sysfs sys /sys -o nosuid,noexec,nodev
    mount -t devtmpfs dev /dev -o mode=0755,nosuid
    mount -t tmpfs run /run -o nosuid,nodev,mode=0755
    mkdir -m755 /run/initramfs
}
