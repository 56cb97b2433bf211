#!/bin/sh
# The modpreload CLI against fake module trees, with the LD_PRELOAD shim
# (tests/shim/shim.c) standing in for the kernel's finit_module and
# init_module. Assertions are on what the "kernel" saw (the shim's log and
# its fake sysfs), and on the report where the report is the thing tested.
#
# The cases are the t_NAME functions in tests/unit/cli/*.sh, one file a
# topic; their helpers (setup, run, check, ...) are in tests/unit/cli/lib.sh.
# A new case is a t_NAME there and its NAME in the list below.
#
# Env: MP_BIN (the binary), MP_SUITE (name prefix), MP_ONLY=sched (only the
# scheduler's cases, for the TSan build), MP_CASES (only these cases, by name).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${MP_BIN:?}
suite=${MP_SUITE:-cli}
only=${MP_ONLY:-}
shim=$top/build/unit/shim.so
work=$(mktemp -d "${TMPDIR:-/tmp}/mp-cli.XXXXXX")
trap 'rm -rf "$work"' EXIT
t=$work/t

# the helpers, then the cases: every tests/unit/cli/*.sh defines some t_NAME
# shellcheck source=tests/unit/cli/lib.sh
. "$top/tests/unit/cli/lib.sh"
for f in "$top"/tests/unit/cli/*.sh; do
	[ "$f" = "$top/tests/unit/cli/lib.sh" ] && continue
	# shellcheck source=/dev/null # each topic file is linted on its own
	. "$f"
done

# --- the cases: NAME runs t_NAME; NAME:sched is one of the scheduler's (MP_ONLY=sched) ---

cases="basic:sched duplicates:sched failure:sched busy:sched init_eexist:sched hang:sched ebusy:sched ebusy_hung:sched loop_error:sched
live_builtin other_loader:sched
options blacklist blacklist_names softdep_cycle softdep_fails:sched compressed bombs:sched waves:sched parallel:sched
missing missing_file paths bad_index bad_symbols dry_run coldplug:sched no_device nodev modules_load second_level:sched kstats config_usage fanout:sched leave_single leave_names"
cases="$cases file_recompressed missing_sibling config_big cmdline_long kmod_config shadow_gone"
cases="$cases kstats_labels output report_tmp report_link report_rofs bombs_wait utf8 estimate"
cases="$cases fifo_worse:sched pool:sched profile profile_image lookups lookups_bad lookups_holds"
cases="$cases small profile_where nodev_whole log_escaped dash_name cmdline_quotes list_config root_fs"
cases="$cases handover:sched handover_named handover_joined:sched handover_fail handover_moved handover_moved_fail handover_unwritable handover_queued:sched handover_binonly:sched handover_queue:sched handover_queue_loaded:sched handover_after_udev:sched handover_pause_quiet:sched handover_legacy_alias handover_bound:sched handover_urgent:sched handover_gate:sched"
cases="$cases handover_stale handover_stale_alive release_stale handover_killed handover_held_elsewhere handover_late:sched handover_early:sched handover_early_gate:sched"
cases="$cases handover_udev:sched handover_udev_stale handover_udev_cpu:sched"
cases="$cases analyze analyze_svg analyze_handover analyze_bad analyze_left"

# Every t_NAME of the topic files is in the list: one left out would never run.
if [ -z "${MP_CASES:-}" ] && [ -z "$only" ]; then
	list=" $(echo "$cases" | tr '\n' ' ') "
	unlisted=$(for f in "$top"/tests/unit/cli/*.sh; do
		[ "$f" = "$top/tests/unit/cli/lib.sh" ] || sed -n 's/^t_\([a-z_0-9]*\)() {.*/\1/p' "$f"
	done | while read -r n; do
		case $list in *" $n "* | *" $n:"*) ;; *) printf ' %s' "$n" ;; esac
	done)
	if [ -z "$unlisted" ]; then
		echo "PASS: $suite/all_listed"
	else
		echo "FAIL: $suite/all_listed: never run, not in cli.sh's list:$unlisted"
	fi
fi

[ -n "${MP_CASES:-}" ] && cases=$MP_CASES
for c in $cases; do
	name=${c%%:*}
	tag=${c#"$name"}
	[ -n "$only" ] && [ "$tag" != ":$only" ] && continue
	failed=0
	if ! command -v "t_$name" >/dev/null; then
		echo "FAIL: $suite/$name: no t_$name in tests/unit/cli/*.sh"
		continue
	fi
	"t_$name"
	if [ $failed = 0 ] && ! grep -q -e 'ERROR: AddressSanitizer' -e 'runtime error' \
		-e 'WARNING: ThreadSanitizer' -e 'ERROR: LeakSanitizer' "$t/err" 2>/dev/null; then
		echo "PASS: $suite/$name"
	else
		echo "FAIL: $suite/$name"
		sed 's/^/    | /' "$t/err" 2>/dev/null | head -20 >&2
	fi
done
