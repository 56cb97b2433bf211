# shellcheck shell=sh
# shellcheck disable=SC2154 # top: set by the case that sources this
# The hand-over scenario (issue 27: a slow init() must not hold the boot),
# written once for every integration: the dracut, initramfs-tools,
# mkinitcpio and /init cases that boot an image holding mpt_slowpci with
# QEMU's pci-testdev, and booted-once, whose root holds it. The case
# sources its family's host.sh (which brings harness/lib/verdict.sh), then
# this, boots with ho_with (the slow device, $HO_DEVICE, added to the
# machine: hostlib.sh's MPT_DEVICES, which every boot takes)
# and $(ho_args [DELAY_MS [RET]]) on the kernel command line, and checks the
# "ho." lines the root's guest script printed (harness/lib/lib.sh's
# mpt_handover: it writes a trace marker, ends mpt_slowpci's sleep if it is
# still coming (parameters/release: the case has seen what it is about and
# need not wait out the delay, which is then only a bound), waits until
# mpt_slowpci is final and every modpreload has exited, and reads the
# trace):
#   ho_check RESULT MARKER [REPORT_TAG]
#       the hand-over: the boot got to MARKER (mpt_root: the root's init
#       ran; mpt_multi_user: a unit after multi-user.target) while
#       mpt_slowpci was still coming, with its hold in /run/modprobe.d;
#       modpreload's one finit_module for it entered before MARKER and
#       returned 0 after it; one module_load over the boot, no other call
#       (udev's workers, modprobe) for it, none waiting on it; afterwards
#       live, no held file left, no modpreload left; and the report
#       (REPORT_TAG: initramfs, run or booted, as mpt_handover names them)
#       says it held mpt_slowpci
#   ho_check_replay RESULT MARKER [REPORT_TAG]
#       the failing variant (ret=-11): modpreload's one finit_module
#       (entered before MARKER) failed with EAGAIN; then exactly one by a udev worker,
#       entered after modpreload's returned (the replayed "add" event), also
#       EAGAIN; nothing else; no held file left; the report says it held
#       the module and replayed one device
#   ho_details LABEL RESULT   the calls and the times, on stderr
#   ho_summary RESULT         one line for the verdict's detail

HO_MODULE=mpt_slowpci
# shellcheck disable=SC2034 # for the cases
HO_DEVICE=pci-testdev

# ho_args [DELAY_MS [RET]]: the kernel command line of a hand-over boot.
# DELAY_MS is multiplied by this host's calibrated slowness (MPT_VM_SCALE,
# harness/lib/calibrate.sh, as run.sh's deadlines are): the sleep must
# outlast the rest of the boot, which a slow host stretches while the
# guest's clock, and with it msleep(), keeps the wall's pace.
ho_args() {
	_ho_d=${1:-}
	if [ -n "$_ho_d" ]; then
		[ -n "${MPT_VM_SCALE:-}" ] || eval "$("$top/harness/lib/calibrate.sh")"
		_ho_d=$(awk -v d="$_ho_d" -v f="${MPT_VM_SCALE:-1}" 'BEGIN { printf "%d", d * (f > 1 ? f : 1) }')
		echo "hand-over boot: $HO_MODULE.delay_ms=$_ho_d (${1} ms x ${MPT_VM_SCALE:-1})" >&2
	fi
	echo "mpt.handover=$HO_MODULE${_ho_d:+ $HO_MODULE.delay_ms=$_ho_d}${2:+ $HO_MODULE.ret=$2}"
}

# ho_with BOOT [ARG...]: BOOT ARGs (a family's boot: deb_run, mkc_run,
# init_run, ...) with the slow device in the machine; its status
ho_with() {
	MPT_DEVICES=$HO_DEVICE
	_ho_rc=0
	"$@" || _ho_rc=$?
	MPT_DEVICES=
	return "$_ho_rc"
}

# ho_lt A B: the uptime A is before B (both numbers)
ho_lt() {
	[ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'
}

# ho_call RESULT I FIELD: field FIELD (1 kind, 2 comm, 3 enter, 4 exit,
# 5 errno) of the I-th call
ho_call() {
	mpt_get "ho.call.$2" "$1" | cut -d' ' -f"$3"
}

# ho_common RESULT MARKER: false, with the boot's failure as the one
# reason, when the guest failed before it printed anything of the hand-over
# (nothing else to check); a boot that failed later is checked in full
ho_common() {
	if ! mpt_has ho.module "$1" && _ho_f=$(mpt_get vm_failure "$1"); then
		fail "no hand-over to check, the boot failed first: $_ho_f"
		return 1
	fi
	eq "hand-over module" "$(mpt_get ho.module "$1")" "$HO_MODULE"
	eq "the guest's wait for $HO_MODULE timed out" "$(mpt_get ho.timed_out "$1")" 0
	eq "marker" "$(mpt_get ho.marker "$1")" "$2"
	mpt_has "ho.mark.$2" "$1" || fail "no $2 marker in the trace"
	eq "held files left at the end" "$(mpt_get ho.held_left "$1")" ""
	eq "modpreload processes left at the end" "$(mpt_get ho.procs_left "$1")" 0
	eq "$HO_MODULE calls by modprobe" "$(mpt_num ho.calls.modprobe "$1")" 0
	eq "$HO_MODULE calls by others" "$(mpt_num ho.calls.other "$1")" 0
	eq "calls waiting on $HO_MODULE (duplicates)" "$(mpt_num ho.waiters "$1")" 0
	eq "first $HO_MODULE call by" "$(ho_call "$1" 1 1)" modpreload
}

ho_entered_before() { # RESULT MARKER
	ho_lt "$(ho_call "$1" 1 3)" "$(mpt_get "ho.mark.$2" "$1")" ||
		fail "modpreload's finit_module for $HO_MODULE entered at $(ho_call "$1" 1 3), not before $2 ($(mpt_get "ho.mark.$2" "$1"))"
}

# ho_report RESULT TAG: the report TAG has a "handover" whose held names
# the module
ho_report() {
	eq "report ($2) handover" "$(mpt_get "ho.rep.$2.handover" "$1")" present
	case ,$(mpt_get "ho.rep.$2.held" "$1"), in
	*,"$HO_MODULE",*) ;;
	*) fail "report ($2) handover.held is '$(mpt_get "ho.rep.$2.held" "$1")', without $HO_MODULE" ;;
	esac
}

ho_check() {
	ho_common "$1" "$2" || return 0
	_ho_m=$(mpt_get "ho.mark.$2" "$1")
	ho_lt "$_ho_m" "$(ho_call "$1" 1 4)" ||
		fail "modpreload's finit_module for $HO_MODULE returned at $(ho_call "$1" 1 4), before $2 ($_ho_m): the boot waited for it"
	# our call returned after the marker (above), and at the marker the
	# module was in its init() (coming), or not in /sys/module yet: our
	# call in its read and relocation (a guest stalled by another load's
	# text patching under TCG), or, with the booted unit's
	# --handover-soon, not started yet, queued behind other loads, and
	# held (below): the boot did not wait for it either way
	case $(mpt_get ho.state_at_marker "$1") in
	coming) ho_entered_before "$1" "$2" ;;
	none) [ "$2" = mpt_multi_user ] || ho_entered_before "$1" "$2" ;;
	*) fail "$HO_MODULE at $2: '$(mpt_get ho.state_at_marker "$1")', not loading" ;;
	esac
	case ,$(mpt_get ho.held_at_marker "$1"), in
	*,"$HO_MODULE",*) ;;
	*) fail "no /run/modprobe.d/modpreload-held-$HO_MODULE.conf at $2 (held: '$(mpt_get ho.held_at_marker "$1")')" ;;
	esac
	eq "$HO_MODULE module_load events" "$(mpt_num ho.loads "$1")" 1
	eq "$HO_MODULE load calls" "$(mpt_num ho.calls "$1")" 1
	eq "$HO_MODULE calls by udev workers" "$(mpt_num ho.calls.udev "$1")" 0
	eq "modpreload's finit_module for $HO_MODULE returned (errno)" "$(ho_call "$1" 1 5)" 0
	eq "$HO_MODULE at the end" "$(mpt_get ho.state "$1")" live
	if [ -n "${3:-}" ]; then
		ho_report "$1" "$3"
		eq "report ($3) handover.replayed" "$(mpt_get "ho.rep.$3.replayed" "$1")" 0
	fi
}

ho_check_replay() {
	ho_common "$1" "$2" || return 0
	ho_entered_before "$1" "$2"
	eq "$HO_MODULE module_load events" "$(mpt_num ho.loads "$1")" 2
	eq "$HO_MODULE load calls" "$(mpt_num ho.calls "$1")" 2
	eq "$HO_MODULE calls by modpreload" "$(mpt_num ho.calls.modpreload "$1")" 1
	eq "$HO_MODULE calls by udev workers (the replay)" "$(mpt_num ho.calls.udev "$1")" 1
	eq "modpreload's finit_module for $HO_MODULE (errno)" "$(ho_call "$1" 1 5)" 11
	eq "second call by" "$(ho_call "$1" 2 1)" udev
	eq "the udev worker's finit_module for $HO_MODULE (errno)" "$(ho_call "$1" 2 5)" 11
	ho_lt "$(ho_call "$1" 1 4)" "$(ho_call "$1" 2 3)" ||
		fail "the udev worker's call entered at $(ho_call "$1" 2 3), before modpreload's returned ($(ho_call "$1" 1 4)): no replay, a race"
	eq "$HO_MODULE at the end" "$(mpt_get ho.state "$1")" none
	if [ -n "${3:-}" ]; then
		ho_report "$1" "$3"
		eq "report ($3) handover.replayed" "$(mpt_get "ho.rep.$3.replayed" "$1")" 1
	fi
}

ho_details() {
	echo "  $1: root/marker at $(mpt_get ho.uptime_marker "$2") s ($HO_MODULE $(mpt_get ho.state_at_marker "$2"), held: $(mpt_get ho.held_at_marker "$2")); calls (kind comm enter exit errno): $(mpt_keys ho.call. "$2" | cut -d= -f2 | paste -sd';' -); waited $(mpt_get ho.waited_s "$2") s; $(mpt_keys ho.rep. "$2" | paste -sd' ' -)" >&2
}

ho_summary() {
	printf '%s: finit %s-%s s, %s at %s s' "$HO_MODULE" "$(ho_call "$1" 1 3)" "$(ho_call "$1" 1 4)" \
		"$(mpt_get ho.marker "$1")" "$(mpt_get "ho.mark.$(mpt_get ho.marker "$1")" "$1")"
}
