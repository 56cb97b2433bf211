#!/bin/sh
# Boot a kernel and a test initramfs under QEMU (TCG), capture the serial
# console to a log file, enforce a timeout, and print the guest's result
# lines ("MPT: key=value", as harness/lib/lib.sh prints them) on stdout.
#
# Usage: harness/lib/run.sh -k KERNEL_IMAGE -i INITRD [-s SMP] [-m MEM_MB]
#            [-a "extra kernel cmdline"] [-t TIMEOUT_S] [--disk IMG]
#            [-l LOG] [--verbose] [--no-trace] [--trace-more EVENTS]
#            [--until TEXT] [--arch ARCH] [-M MACHINE] [--cpu MODEL]
#            [--device SPEC]...
#
#   -s SMP        vCPUs (default 2)
#   -m MEM_MB     memory (default 512)
#   -a CMDLINE    appended to the kernel command line
#   -t TIMEOUT_S  wall-clock limit on a quiet host (default 300), multiplied
#                 by this host's calibrated slowness (harness/lib/calibrate.sh,
#                 MPT_VM_SCALE): it guards against a hung guest, it is no
#                 verdict on the guest's speed. On expiry QEMU is killed,
#                 "run.sh: TIMEOUT ..." names the phase the guest was in, and
#                 the exit code is 124
#   --disk IMG    a raw disk image as a virtio-blk drive (PCI)
#   --arch ARCH   x86_64 (default) or arm64: qemu-system-aarch64 -M virt
#                 -cpu max, console on ttyAMA0 (the PL011), the kernel an
#                 arm64 Image (Debian's vmlinuz is one: -kernel takes it)
#   -l LOG        where the serial log goes (default: a new file under
#                 build/vm-logs/); its path is reported on stderr
#   --verbose     kernel messages on the console (default: quiet)
#   --no-trace    no trace_event= on the command line
#   --trace-more EVENTS  more tracepoints for trace_event= (comma-separated,
#                 e.g. sched:sched_process_fork)
#   --cpu MODEL   QEMU's -cpu (default max)
#   -M MACHINE    QEMU's machine type (default QEMU's own, i440fx, which
#                 takes at most 255 vCPUs; q35 too under TCG: past 255 QEMU
#                 7.2 wants KVM's irqchip)
#   --device SPEC one more QEMU device (-device SPEC; repeatable), e.g.
#                 pci-testdev, which only the mpt_slowpci test module claims
#   --until TEXT  stop the guest 5 s after the serial console shows TEXT
#                 (for a guest that halts instead of powering off; the 5 s
#                 let what would follow, a kernel panic say, reach the log)
#
# Exit: 0 when the guest printed "MPT: done" (or TEXT with --until), 1 when
# it did not (a panic, a crash), 124 on timeout, 2 on bad usage.  A boot
# that timed out, panicked or lost QEMU to a signal before the initramfs
# spoke (the host starving TCG, TCG tripping the early kernel, QEMU
# crashing: nothing of ours ran) is made once
# more, and "MPT: vm_boots=2" says so.  A summary
# line with the wall time goes to stderr; stdout gets "MPT: host_wall_s=N",
# "MPT: vm_scale=F" (the deadline factor used) and, when the boot failed,
# "MPT: vm_failure=WHAT" (the reason, the phase and the calibration).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

usage() {
	sed -n 's/^# Usage: /usage: /p; s/^#            /            /p' "$0" | head -n 5 >&2
	exit 2
}
log() { printf 'run.sh: %s\n' "$*" >&2; }

TRACE_EVENTS=syscalls:sys_enter_finit_module,syscalls:sys_exit_finit_module,syscalls:sys_enter_init_module,syscalls:sys_exit_init_module,module:module_load

kernel='' initrd='' disk='' logf='' extra='' until='' devices=''
smp=2 mem=512 timeout=300 verbose=0 trace=1 arch=x86_64 machine='' cpu=max
while [ $# -gt 0 ]; do
	case $1 in
	-k) kernel=$2; shift 2 ;;
	-i) initrd=$2; shift 2 ;;
	-s) smp=$2; shift 2 ;;
	-m) mem=$2; shift 2 ;;
	-a) extra=$2; shift 2 ;;
	-t) timeout=$2; shift 2 ;;
	-l) logf=$2; shift 2 ;;
	--disk) disk=$2; shift 2 ;;
	-M) machine=$2; shift 2 ;;
	--device) devices="$devices $2"; shift 2 ;;
	--verbose) verbose=1; shift ;;
	--no-trace) trace=0; shift ;;
	--trace-more) TRACE_EVENTS="$TRACE_EVENTS,$2"; shift 2 ;;
	--cpu) cpu=$2; shift 2 ;;
	--until) until=$2; shift 2 ;;
	--arch) arch=$2; shift 2 ;;
	-h | --help) usage ;;
	*) usage ;;
	esac
done
if [ -z "$kernel" ] || [ -z "$initrd" ]; then usage; fi
[ -f "$kernel" ] || { log "no kernel image $kernel"; exit 2; }
[ -f "$initrd" ] || { log "no initrd $initrd"; exit 2; }

if [ -z "${MPT_VM_SCALE:-}" ]; then
	eval "$("$here/calibrate.sh")"
fi
scale=${MPT_VM_SCALE:-1}
calib=${MPT_VM_CALIB_S:-?}
deadline=$(awk -v t="$timeout" -v f="$scale" 'BEGIN { d = t * f; printf "%d", d == int(d) ? d : int(d) + 1 }')

if [ -z "$logf" ]; then
	mkdir -p "$top/build/vm-logs"
	logf=$(mktemp "$top/build/vm-logs/run.$(date +%Y%m%d-%H%M%S).XXXXXX")
fi

case $arch in
x86_64 | amd64) console=ttyS0 ;;
arm64 | aarch64) console=ttyAMA0 ;;
*) log "unknown --arch $arch (x86_64 or arm64)"; exit 2 ;;
esac
cmdline="console=$console panic=-1 rdinit=/init"
if [ "$verbose" = 0 ]; then cmdline="$cmdline quiet"; fi
if [ "$trace" = 1 ]; then cmdline="$cmdline trace_event=$TRACE_EVENTS"; fi
if [ -n "$extra" ]; then cmdline="$cmdline $extra"; fi

# MPT_TCG_THREAD=single (bench/boot-pairs.sh -C hwlike-single): every vCPU
# in one host thread, in turn, instead of one thread each
tcg_thread=${MPT_TCG_THREAD:-multi}
case $tcg_thread in
multi | single) ;;
*) log "MPT_TCG_THREAD is multi or single, not '$tcg_thread'"; exit 2 ;;
esac
if [ "$console" = ttyS0 ]; then
	set -- qemu-system-x86_64 -accel "tcg,thread=$tcg_thread" -cpu "$cpu" -m "$mem" \
		-smp "$smp" -nographic -no-reboot \
		-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	if [ -n "$machine" ]; then set -- "$@" -M "$machine"; fi
	if [ -n "$disk" ]; then
		set -- "$@" -drive "file=$disk,if=virtio,format=raw"
	fi
else
	# virt: PCI (ECAM) for the disk, and the device tree's own devices
	# (virtio-mmio slots, PL011, PL031, PL061, fw_cfg) for of: modaliases
	set -- qemu-system-aarch64 -M virt -accel "tcg,thread=$tcg_thread" -cpu "$cpu" -m "$mem" \
		-smp "$smp" -nographic -no-reboot \
		-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	if [ -n "$disk" ]; then
		set -- "$@" -drive "file=$disk,if=none,id=disk0,format=raw" \
			-device virtio-blk-pci,drive=disk0
	fi
fi
for d in $devices; do set -- "$@" -device "$d"; done
# MPT_QEMU_ARGS: more of QEMU's arguments, split at blanks
# (bench/boot-pairs.sh -C lean: "-vga none -nic none")
# shellcheck disable=SC2086 # split on purpose
[ -z "${MPT_QEMU_ARGS:-}" ] || set -- "$@" $MPT_QEMU_ARGS

# phase LOG: how far the guest got, from what its console shows (boots are
# quiet: the kernel prints little before the initramfs speaks): "N<TAB>what,
# and the last console line", N from 0 (no output) to 5 (after switch-root)
phase_of() {
	tr -d '\r' <"$1" | awk '
	{ gsub(/\033(\[[0-9;?]*[a-zA-Z]|c)/, ""); sub(/qemu-system[^ ]*: terminating on signal.*/, "") }
	/MPT: root_|Switching root|switch_root|switching root/ { p = 5 }
	/MPT: / && p < 4 { p = 4 }
	/modpreload/ && p < 3 { p = 3 }
	/init: |systemd\[1\]|dracut|Run \/init|:: running/ && p < 2 { p = 2 }
	NF { if (p < 1) p = 1; last = $0 }
	END {
		split("no console output (firmware, kernel decompression)|kernel boot, before the initramfs spoke|initramfs, before the loader|initramfs, the loader ran|guest script|after switch-root, the root\047s init", n, "|")
		printf "%d\t%s; last console line: %s", p, n[p + 1], substr(last, 1, 160)
	}'
}
phase() { phase_of "$1" | cut -f2-; }

# before_initramfs LOG: the guest never got as far as the initramfs (a
# kernel starved under TCG on a busy host: a soft lockup in its own
# self-tests, say), so nothing of ours ran
before_initramfs() { [ "$(phase_of "$1" | cut -f1)" -le 1 ]; }

# A boot whose kernel never reached the initramfs before the deadline, or
# panicked before it, or whose QEMU died of a signal before it, is made once
# more (its log kept as LOG.first): that is the host starving the emulator,
# TCG tripping the kernel's own early code (an int3 Oops while it patched
# itself at 16 vCPUs, seen once on trixie's 6.12), or QEMU itself crashing
# (a SIGSEGV, exit 139, at "Booting from ROM", seen once in CI), not a
# verdict on anything the case tests: nothing of ours has run yet.
attempt=1
while :; do
	t0=$(date +%s.%N)
	rc=0 matched=0
	timeout -k 5 "$deadline" "$@" </dev/null >"$logf" 2>&1 &
	qpid=$!
	if [ -n "$until" ]; then
		while kill -0 "$qpid" 2>/dev/null; do
			if tr -d '\r' <"$logf" | grep -qF -- "$until"; then
				matched=1
				sleep 5
				kill "$qpid" 2>/dev/null || :
				break
			fi
			sleep 1
		done
	fi
	wait "$qpid" || rc=$?
	t1=$(date +%s.%N)
	wall=$(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }')
	if [ "$attempt" = 1 ] && [ "$matched" = 0 ] && before_initramfs "$logf" &&
		{ [ "$rc" = 124 ] || [ "$rc" -gt 128 ] || grep -q 'Kernel panic - not syncing' "$logf"; }; then
		log "the kernel did not reach the initramfs in ${wall} s (QEMU exit $rc; $(phase "$logf")); booting once more"
		mv "$logf" "$logf.first"
		attempt=2
		continue
	fi
	break
done

# Serial lines end in CR LF; a result line may follow other output on the
# same line when a kernel message interleaved.
tr -d '\r' <"$logf" | sed -n 's/.*\(MPT: \)/\1/p'
echo "MPT: host_wall_s=$wall"
echo "MPT: vm_scale=$scale"
if [ "$attempt" = 2 ]; then echo "MPT: vm_boots=2"; fi

calibration="deadline ${timeout} s x $scale = ${deadline} s; a calibration boot took ${calib} s"
if [ "$matched" = 1 ]; then
	log "ok: stopped at '$until' after ${wall} s wall; log: $logf"
	exit 0
fi
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	why="no power-off after ${wall} s ($calibration) in phase: $(phase "$logf")"
	echo "MPT: vm_failure=timeout: $why"
	log "TIMEOUT (smp=$smp): $why; QEMU killed; log: $logf"
	exit 124
fi
if ! tr -d '\r' <"$logf" | grep -q 'MPT: done'; then
	why="the guest did not finish (QEMU exit $rc) after ${wall} s in phase: $(phase "$logf")"
	echo "MPT: vm_failure=$why"
	log "FAILED: $why; log: $logf"
	tr -d '\r' <"$logf" | tail -n 15 >&2
	exit 1
fi
log "ok: $(basename "$kernel") smp=$smp finished in ${wall} s wall ($calibration); log: $logf"
