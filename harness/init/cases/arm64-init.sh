#!/bin/sh
# modpreload's /init, cross-built for arm64 (make ARCH=arm64), boots Debian
# bookworm's arm64 kernel under qemu-system-aarch64 -M virt (TCG, 4 vCPUs)
# from an image made by `init/mkinitramfs --arch arm64` to a real ext4 root
# on a virtio-blk-pci disk found by UUID. In the same boot:
#   storm     every CPU's modalias asks for the CPU crypto modules and
#             mpt_spawn (whose 20 platform devices then ask for mpt_drv and
#             mpt_drv2), the virt machine's devices for their drivers
#             (of: virtio-mmio, fw_cfg, gpio-keys; pci: virtio), and the
#             command line and two config files name the same modules again
#   faults    mpt_fail_child needs mpt_fail (init returns ENODEV) and
#             mpt_hang_child needs mpt_hang (init never returns), with
#             rd.modpreload.timeout=10
# What the kernel did must be one load syscall per module (tracepoints), no
# EEXIST or EBUSY, every coldplugged device's module that the image holds
# live, the failed and hung modules' dependents never asked for, and the
# report in /run. About 80 s here (one boot, 50-60 s of it QEMU); the first
# run also fetches the kernel (30 s), cross-builds /init and its libraries
# (3 min) and the test modules (2.5 min).
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=harness/init/host.sh
. "$top/harness/init/host.sh"
w=$top/build/vm/arm64/init
mkdir -p "$w"
name=arm64-init
smp=4

command -v qemu-system-aarch64 >/dev/null || fail_all "no qemu-system-aarch64 (scripts/deps.sh)"
# the kernel, `make ARCH=arm64`'s /init and arm64's busybox for the root
init_arm64 2>"$w/setup.log" || fail_all "no arm64 kernel, /init or busybox (see $w/setup.log)"
"$top/tests/modules/build.sh" arm64 "$w/tree" >/dev/null 2>"$w/modules.log" ||
	fail_all "no arm64 test modules (see $w/modules.log)"
init_rootdir "$w/rootdir" || fail_all "cannot make the root tree"
cp "$top/harness/init/guest/arm64-root.sh" "$w/rootdir/mpt/root-more.sh"
uuid=$(cat /proc/sys/kernel/random/uuid)
init_mkfs ext4 "$w/rootdir" "$w/ext4.img" "$uuid" mpt-root >&2 || fail_all "mkfs.ext4 failed"

# The virt machine's drivers that are modules (the rest are built in), the
# CPU features' crypto modules, and the test modules: in the image, loaded
# only when something asks for them.
coldplug=virtio_mmio,qemu_fw_cfg,gpio_keys,sha1_ce,sha2_ce,sha512_ce,sha3_ce,ghash_ce
coldplug=$coldplug,polyval_ce,crct10dif_ce,aes_ce_cipher,aes_ce_blk,mpt_spawn,mpt_drv,mpt_drv2
printf 'virtio_blk\next4\nvirtio_blk\nmpt_drv\n' >"$w/storm1.conf"
printf 'ext4\nvirtio_pci\nsha2_ce\nmpt_drv2\n' >"$w/storm2.conf"
"$top/init/mkinitramfs" -q --arch arm64 -o "$w/initrd.img" -k "$KVER" -d "$w/tree" \
	-m virtio_pci,virtio_blk,ext4 --include "$coldplug" \
	--include mpt_fail_child,mpt_hang_child \
	--config "$w/storm1.conf" --config "$w/storm2.conf" >"$w/mkinitramfs.log" 2>&1 ||
	fail_all "mkinitramfs --arch arm64 failed (see $w/mkinitramfs.log)"

r=$w/result.txt
rc=0
mpt_boot "$r" "$w/serial.log" "$w/initrd.img" "$smp" \
	"root=UUID=$uuid rd.modpreload.modules=mpt_fail_child,mpt_hang_child,ext4,virtio_blk,sha1_ce rd.modpreload.timeout=10" \
	--arch arm64 -m 1024 -t 300 --disk "$w/ext4.img" || rc=$?
[ "$rc" = 0 ] || fail_all "$(mpt_boot_why "$rc" "$r") (log $w/serial.log)"

# --- the root: reached by UUID, report in /run ---
[ "$(mpt_get root_pid "$r")" = 1 ] || fail "the root's init did not run as PID 1"
[ "$(mpt_get root_fstype "$r")" = ext4 ] || fail "root is '$(mpt_get root_fstype "$r")', not ext4"
[ "$(mpt_get root_dev "$r")" = /dev/vda ] || fail "root is $(mpt_get root_dev "$r"), not /dev/vda"
for m in /dev /proc /sys /run; do
	[ "$(mpt_get "mnt.$m" "$r")" = 1 ] || fail "$m not mounted on the new root"
done
[ "$(mpt_get report "$r")" = present ] || fail "no /run/modpreload/report.json"
case $(mpt_get cpu_modalias "$r") in
cpu:type:aarch64:feature:*) ;;
*) fail "cpu0's modalias is '$(mpt_get cpu_modalias "$r")'" ;;
esac

# --- exactly once: one load syscall per module, whatever asked how often ---
enter=$(mpt_num finit_enter "$r")
loads=$(mpt_num load_total "$r")
[ "$loads" -ge 20 ] || fail "only $loads module_load events"
[ "$enter" = "$loads" ] || fail "$enter finit_module calls for $loads module_load events"
[ "$(mpt_num load_dups "$r")" = 0 ] || fail "a module was loaded twice"
[ "$(mpt_num finit_eexist "$r")" = 0 ] || fail "$(mpt_num finit_eexist "$r") EEXIST"
[ "$(mpt_num finit_ebusy "$r")" = 0 ] || fail "$(mpt_num finit_ebusy "$r") EBUSY"
[ "$(mpt_num init_enter "$r")" = 0 ] || fail "init_module calls (the modules are plain .ko)"
[ "$(mpt_get trace_entries "$r")" = "$(mpt_get trace_written "$r")" ] || fail "the trace lost events"
# every call returned but mpt_hang's; mpt_fail's returned ENODEV (19)
[ "$(mpt_num finit_exit "$r")" = $((enter - 1)) ] ||
	fail "$(mpt_num finit_exit "$r") of $enter calls returned (all but mpt_hang's should)"
[ "$(mpt_num finit_errno_19 "$r")" = 1 ] || fail "no single ENODEV (mpt_fail)"
[ "$(mpt_num finit_other "$r")" = 1 ] || fail "$(mpt_num finit_other "$r") calls failed, not 1"
[ "$(mpt_num report.coldplug "$r")" -ge "$smp" ] || fail "fewer coldplug requests than CPUs"
[ "$(mpt_num report.duplicates_collapsed "$r")" -ge $((smp * 10)) ] ||
	fail "only $(mpt_num report.duplicates_collapsed "$r") duplicates collapsed"

# --- the faults: ENODEV named, hung module still coming, dependents skipped ---
[ "$(mpt_get error.mpt_fail "$r")" = ENODEV ] || fail "the report says '$(mpt_get error.mpt_fail "$r")' for mpt_fail"
[ "$(mpt_get initstate.mpt_hang "$r")" = coming ] || fail "mpt_hang is '$(mpt_get initstate.mpt_hang "$r")', not coming"
for m in mpt_fail_child mpt_hang_child; do
	[ "$(mpt_num "load.$m" "$r")" = 0 ] || fail "$m was loaded though what it needs was not"
	[ "$(mpt_get "proc.$m" "$r")" = 0 ] || fail "$m is in /proc/modules"
done
[ "$(mpt_num report.failed "$r")" -ge 1 ] || fail "the report has no failed module"
[ "$(mpt_num report.hung "$r")" = 1 ] || fail "the report has $(mpt_num report.hung "$r") hung modules, not 1"

# --- coldplug: every device whose driver the image holds has it, once ---
# The guest's modaliases resolved here, in the same tree, as kmod would.
mkdir -p "$w/noconf"
mpt_keys modalias. "$r" | cut -d= -f2- >"$w/modaliases"
kinds=
for kind in of pci cpu; do
	n=0
	for m in $(grep "^$kind:" "$w/modaliases" | while IFS= read -r a; do
		modprobe -C "$w/noconf" -d "$w/tree" -S "$KVER" -R "$a" 2>/dev/null
	done | sort -u); do
		case ",$coldplug,virtio_pci," in *",$m,"*) ;; *) continue ;; esac
		n=$((n + 1))
		[ "$(mpt_get "live.$m" "$r")" = 1 ] || fail "$m (for a $kind: device) is not live"
		[ "$(mpt_num "load.$m" "$r")" = 1 ] || fail "$m loaded $(mpt_num "load.$m" "$r") times"
	done
	[ "$n" -gt 0 ] || fail "no $kind: modalias asked for a module the image holds"
	kinds="$kinds $kind:$n"
done
[ "$(mpt_num param.mpt_drv.probed "$r")" = 16 ] || fail "mpt_drv bound $(mpt_num param.mpt_drv.probed "$r") devices, not 16"
[ "$(mpt_num param.mpt_drv2.probed "$r")" = 4 ] || fail "mpt_drv2 bound $(mpt_num param.mpt_drv2.probed "$r") devices, not 4"

verdict "$name" "$smp vCPUs, $loads modules in $enter calls, $(mpt_num report.duplicates_collapsed "$r") duplicates collapsed, drivers for${kinds}, root init at $(mpt_get root_uptime "$r") s, $(mpt_get host_wall_s "$r") s wall"
exit 0
