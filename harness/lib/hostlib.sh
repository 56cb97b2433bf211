# shellcheck shell=sh
# Host-side helpers for the VM tests: read the "MPT: key=value" lines that
# harness/lib/run.sh prints (or a raw serial log; CRs and text before "MPT: "
# on a line are ignored).  Source it: . harness/lib/hostlib.sh
#
#   mpt_get KEY [FILE]      value of the last KEY line; status 1 if none
#   mpt_num KEY [FILE]      like mpt_get, but 0 when absent or not a number
#   mpt_has KEY [FILE]      status 0 when a KEY line exists
#   mpt_keys PREFIX [FILE]  "key=value" for every key starting with PREFIX
#   mpt_boot_why RC FILE    why a boot failed, for a FAIL line: run.sh's
#                           status, the phase the guest was in, its deadline
#                           and the host's calibration (run.sh's vm_failure)
#   mpt_kernel NAME [LOG]   harness/lib/kernels.sh's NAME kernel (bookworm,
#                           trixie, stats, arm64, ...: fetched or built once,
#                           cached) as KVER and KDIR; status 1 when there is
#                           none (kernels.sh's messages appended to LOG)
#   mpt_test_modules NAME DEST [BUILD_ARG...]
#                           mpt_kernel NAME, then tests/modules built against
#                           it into DEST (BUILD_ARGs such as --compress zstd);
#                           status 1 when either fails (messages on stderr)
#   mpt_binary              make and print the modpreload the images get:
#                           build/modpreload, or with MPT_MUTANT=NAME the
#                           mutant build/mutant-NAME/modpreload (tests/
#                           mutants/mutant.c: twice, noload), which the
#                           cases must fail on (lib/cases/mutants.sh)
#   mpt_boot RESULT LOG IMAGE SMP CMDLINE [RUN_ARG...]
#                           the harness's one boot: harness/lib/run.sh with
#                           $KDIR/vmlinuz, IMAGE as the initramfs, SMP vCPUs,
#                           CMDLINE added to the kernel's command line, each
#                           QEMU device in $MPT_DEVICES (a list; pci-testdev,
#                           say) and RUN_ARGs as they are (-m MiB, -t
#                           deadline, --disk IMG, --cpu, --arch, ...); the
#                           "MPT:" lines to RESULT, the serial console to LOG,
#                           run.sh's own messages appended to LOG.host.
#                           Returns run.sh's status (verdict.sh's run_boot
#                           makes a failed boot a reason)
#   mpt_scaled N FILE       N times the deadline factor run.sh used for
#                           FILE's boot (vm_scale), rounded up: the bound for
#                           a guest-clock measurement that a slow host
#                           stretches (a guest's work under TCG runs at the
#                           host's speed; its clock does not)
# Input is FILE, or stdin when FILE is not given. mpt_kernel and
# mpt_test_modules need $top, the repository.

mpt_kernel() {
	# shellcheck disable=SC2046 # the line is "NAME KVER DIR"
	set -- $("${top:?}/harness/lib/kernels.sh" "$1" 2>>"${2:-/dev/null}" | awk -v k="$1" '$1 == k')
	# shellcheck disable=SC2034 # for the caller
	KVER=${2:-}
	KDIR=${3:-}
	[ -n "$KDIR" ] && [ -f "$KDIR/vmlinuz" ]
}

mpt_test_modules() {
	mpt_kernel "$1" /dev/stderr || return 1
	_mk_name=$1 _mk_dest=$2
	shift 2
	"$top/tests/modules/build.sh" "$@" "$_mk_name" "$_mk_dest" >/dev/null
}

mpt_binary() {
	_mb_t=build/modpreload
	[ -z "${MPT_MUTANT:-}" ] || _mb_t=build/mutant-$MPT_MUTANT/modpreload
	make -s -C "${top:?}" "$_mb_t" >&2 || return 1
	echo "$top/$_mb_t"
}

mpt_boot() {
	_mb_r=$1 _mb_l=$2 _mb_i=$3 _mb_s=$4 _mb_a=$5
	shift 5
	for _mb_d in ${MPT_DEVICES:-}; do set -- "$@" --device "$_mb_d"; done
	"${top:?}/harness/lib/run.sh" -k "$KDIR/vmlinuz" -i "$_mb_i" -s "$_mb_s" -l "$_mb_l" -a "$_mb_a" "$@" \
		>"$_mb_r" 2>>"$_mb_l.host"
}

mpt_lines_() {
	if [ $# -gt 0 ]; then tr -d '\r' <"$1"; else tr -d '\r'; fi |
		sed -n 's/.*MPT: //p'
}

mpt_get() {
	mpt_key_=$1
	shift
	mpt_lines_ "$@" | awk -v k="$mpt_key_" '
		index($0, k "=") == 1 { v = substr($0, length(k) + 2); f = 1 }
		END { if (f) print v; exit !f }'
}

mpt_num() {
	mpt_v_=$(mpt_get "$@") || mpt_v_=0
	case $mpt_v_ in
	'' | *[!0-9-]*) echo 0 ;;
	*) echo "$mpt_v_" ;;
	esac
}

mpt_has() {
	mpt_get "$@" >/dev/null
}

mpt_keys() {
	mpt_prefix_=$1
	shift
	mpt_lines_ "$@" | awk -v p="$mpt_prefix_" 'index($0, p) == 1'
}

mpt_boot_why() {
	mpt_bw_=$(mpt_get vm_failure "$2") || mpt_bw_="no reason recorded in $2"
	echo "run.sh exit $1: $mpt_bw_"
}

mpt_scaled() {
	mpt_sf_=$(mpt_get vm_scale "$2") || mpt_sf_=1
	awk -v n="$1" -v f="$mpt_sf_" 'BEGIN { v = n * f; printf "%d\n", v == int(v) ? v : int(v) + 1 }'
}
