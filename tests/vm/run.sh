#!/bin/sh
# Boot a kernel and a test initramfs under QEMU (TCG), capture the serial
# console to a log file, enforce a timeout, and print the guest's result
# lines ("MPT: key=value", as tests/vm/lib.sh prints them) on stdout.
#
# Usage: tests/vm/run.sh -k KERNEL_IMAGE -i INITRD [-s SMP] [-m MEM_MB]
#            [-a "extra kernel cmdline"] [-t TIMEOUT_S] [--disk IMG]
#            [-l LOG] [--verbose] [--no-trace]
#
#   -s SMP        vCPUs (default 2)
#   -m MEM_MB     memory (default 512)
#   -a CMDLINE    appended to the kernel command line
#   -t TIMEOUT_S  wall-clock limit (default 300); on expiry QEMU is killed,
#                 "run.sh: TIMEOUT ..." goes to stderr and the exit code is 124
#   --disk IMG    a raw disk image as a virtio-blk drive
#   -l LOG        where the serial log goes (default: a new file under
#                 build/vm-logs/); its path is reported on stderr
#   --verbose     kernel messages on the console (default: quiet)
#   --no-trace    no trace_event= on the command line
#
# Exit: 0 when the guest printed "MPT: done", 1 when it did not (a panic, a
# crash), 124 on timeout, 2 on bad usage.  A summary line with the wall time
# goes to stderr and, as "MPT: host_wall_s=N", to stdout.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

usage() {
	sed -n 's/^# Usage: /usage: /p; s/^#            /            /p' "$0" | head -n 3 >&2
	exit 2
}
log() { printf 'run.sh: %s\n' "$*" >&2; }

TRACE_EVENTS=syscalls:sys_enter_finit_module,syscalls:sys_exit_finit_module,syscalls:sys_enter_init_module,syscalls:sys_exit_init_module,module:module_load

kernel='' initrd='' disk='' logf='' extra=''
smp=2 mem=512 timeout=300 verbose=0 trace=1
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
	--verbose) verbose=1; shift ;;
	--no-trace) trace=0; shift ;;
	-h | --help) usage ;;
	*) usage ;;
	esac
done
if [ -z "$kernel" ] || [ -z "$initrd" ]; then usage; fi
[ -f "$kernel" ] || { log "no kernel image $kernel"; exit 2; }
[ -f "$initrd" ] || { log "no initrd $initrd"; exit 2; }

if [ -z "$logf" ]; then
	mkdir -p "$top/build/vm-logs"
	logf=$(mktemp "$top/build/vm-logs/run.$(date +%Y%m%d-%H%M%S).XXXXXX")
fi

cmdline="console=ttyS0 panic=-1 rdinit=/init"
if [ "$verbose" = 0 ]; then cmdline="$cmdline quiet"; fi
if [ "$trace" = 1 ]; then cmdline="$cmdline trace_event=$TRACE_EVENTS"; fi
if [ -n "$extra" ]; then cmdline="$cmdline $extra"; fi

set -- qemu-system-x86_64 -accel tcg,thread=multi -cpu max -m "$mem" \
	-smp "$smp" -nographic -no-reboot \
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
if [ -n "$disk" ]; then
	set -- "$@" -drive "file=$disk,if=virtio,format=raw"
fi

t0=$(date +%s.%N)
rc=0
timeout -k 5 "$timeout" "$@" </dev/null >"$logf" 2>&1 || rc=$?
t1=$(date +%s.%N)
wall=$(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }')

# Serial lines end in CR LF; a result line may follow other output on the
# same line when a kernel message interleaved.
tr -d '\r' <"$logf" | sed -n 's/.*\(MPT: \)/\1/p'
echo "MPT: host_wall_s=$wall"

if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	log "TIMEOUT: no power-off after ${timeout} s (smp=$smp); QEMU killed; log: $logf"
	exit 124
fi
if ! tr -d '\r' <"$logf" | grep -q 'MPT: done'; then
	log "FAILED: the guest did not finish (QEMU exit $rc) after ${wall} s; log: $logf"
	tr -d '\r' <"$logf" | tail -n 15 >&2
	exit 1
fi
log "ok: $(basename "$kernel") smp=$smp finished in ${wall} s wall; log: $logf"
