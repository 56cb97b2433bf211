# shellcheck shell=sh
# The hand-over (preload/load/handover.c): the caller goes on while init()s
# run, a child finishes them; what is not final is held from udev by a
# blacklist file each, removed at the end; a held module that fails gets
# its devices' add replayed.
# shellcheck disable=SC2034,SC2154 # RULES: read by lib.sh's run; t, rc: set by cli.sh and lib.sh

# Three devices: slow's (a 2 s init()), user's (user needs slow) and
# quick's. Only device aliases lead to each.
handover_setup() {
	spec='slow alias=pci:v0000AAAAd*sv*sd*bc*sc*i*\nuser slow alias=pci:v0000BBBBd*sv*sd*bc*sc*i*\nquick alias=pci:v0000CCCCd*sv*sd*bc*sc*i*\n'
	three_devices
	printf '%s' "$spec" >"$t/spec"
}
# setup "$spec", with devices A, B and C (pci:v0000AAAA... and so on) and
# the hold directory's parent
three_devices() {
	setup "$spec"
	for d in A B C; do
		mkdir -p "$t/sys/devices/pci0000:00/dev$d"
		echo "MODALIAS=pci:v0000${d}${d}${d}${d}d00000001sv00000000sd00000000bc00sc00i00" \
			>"$t/sys/devices/pci0000:00/dev$d/uevent"
	done
	held=$t/run/modprobe.d
	mkdir -p "$t/run"
}
# With --handover-soon, udev's coldplug begins (its queue file beside the
# hold directory) once the caller went on, as in the boot: what the run
# left then loads; UDEV=manual: the case makes the queue itself.
run_handover() {
	run --coldplug --settle-ms 50 --handover --hold-dir "$held" "$@"
	case " $* " in
	*" --handover-soon "* | *" --handover-early "*) [ "${UDEV:-}" = manual ] || { mkdir -p "$t/run/udev" && : >"$t/run/udev/queue"; } ;;
	esac
}
# the child writes the report last: wait for it (at most 20 s). Once its
# loads are done it waits for udev's queue to empty before its holds go
# (mp_handover_settle): a queue file this file made, udev is then done
wait_report() {
	i=0
	while [ ! -s "$t/r.json" ] && [ $i -lt 200 ]; do
		if [ -e "$t/run/udev/queue" ] && grep -q "waiting for udev's queue to empty" "$t/err" 2>/dev/null; then
			rm -f "$t/run/udev/queue"
		fi
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$t/r.json" ]
}
ended() { grep -c " end $1 " "$t/log"; }
held_files() { (cd "$held" 2>/dev/null && ls -A) | tr '\n' ' '; }
# hold_as MODULE PID START BOOT: a hold file as a holder with that identity writes it
hold_as() {
	mkdir -p "$held"
	printf '# Written by modpreload\n# holder: pid=%s start=%s boot=%s\nblacklist %s\n' "$2" "$3" "$4" "$1" \
		>"$held/modpreload-held-$1.conf"
}
this_boot() { cat /proc/sys/kernel/random/boot_id; }
# a process's start time, field 22 of /proc/PID/stat (the 20th after its name)
start_of() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20; }
matches() { printf '%s\n' "$1" | grep -Eq "$2" || { echo "    got '$1', want /$2/" >&2; return 1; }; }

t_handover() {
	handover_setup
	RULES=slow:0:2000
	run_handover
	# what the caller saw when it went on
	check "exit 0 at the hand-over" eq "$rc" 0
	check "slow still in init() then" eq "$(ended slow)" 0
	check "slow and user held (and quick, if it was still loading)" matches "$(held_files)" \
		'^(modpreload-held-quick.conf )?modpreload-held-slow.conf modpreload-held-user.conf $'
	check "the held file is a blacklist line" grep -qx "blacklist slow" "$held/modpreload-held-slow.conf"
	check "the held file names its holder" \
		grep -qx "# holder: pid=[0-9]* start=[0-9]* boot=$(this_boot)" "$held/modpreload-held-slow.conf"
	check "no report yet" [ ! -e "$t/r.json" ]
	# what the child did after
	check "the child reported" wait_report
	check "slow loaded once" eq "$(starts slow)" 1
	check "user loaded once, after slow" eq "$(starts user)" 1
	check "user after slow" before slow user
	check "user live" live user
	check "the held files are gone" eq "$(held_files)" ""
	check "report: held" matches "$(jq -c '.handover.held | sort' "$t/r.json")" '^\[("quick",)?"slow","user"\]$'
	check "quick loaded once" eq "$(starts quick)" 1
	check "report: when" jq -e '.handover.at_ms > 0' "$t/r.json" >/dev/null
	check "report: nothing replayed" eq "$(jq .handover.replayed "$t/r.json")" 0
	check "the log says so" grep -q "handing over: [23] modules still to load" "$t/err"
}

# Asked for by name (modules-load.d, the command line, the image's MODULES),
# a module is modprobed by name next, which no blacklist stops: no
# hand-over while it runs. Off on the command line: none either.
t_handover_named() {
	handover_setup
	RULES=slow:0:1000
	run_handover slow
	check "exit 0" eq "$rc" 0
	check "slow ended before the caller went on" eq "$(ended slow)" 1
	check "the report is there" [ -s "$t/r.json" ]
	check "report: no hand-over" eq "$(jq .handover "$t/r.json")" null
	check "nothing held" eq "$(held_files)" ""

	# a kernel alias (fs-*) leads to it too: modprobe would answer the
	# kernel "success" for a held one, so it is not held
	handover_setup
	sed -i 's/^slow alias=/slow alias=fs-slowfs alias=/' "$t/spec"
	printf '%b' "$(cat "$t/spec")" | "$top/tests/unit/mktree.sh" "$t/root" 1.0 >/dev/null
	RULES=slow:0:1000
	run_handover
	check "fs alias: slow ended first" eq "$(ended slow)" 1
	wait_report
	check "fs alias: slow never held" eq "$(jq '[.handover.held // [] | .[] | select(. == "slow")] | length' "$t/r.json")" 0

	handover_setup
	RULES=slow:0:1000
	echo 'rd.modpreload.handover=0' >"$t/cmdline"
	run_handover
	check "off: slow ended first" eq "$(ended slow)" 1
	check "off: report: no hand-over" eq "$(jq .handover "$t/r.json")" null
	check "off: nothing held" eq "$(held_files)" ""
}

# On 6.5 and later the kernel joins a second finit_module of a file to the
# first: a module that cannot be held (asked for by name, or by a kernel
# alias) is "joined" once our call is in the kernel, and the caller goes on
# while its init() runs; it stays unheld. Only if no device alias leads to
# it (udev would ask too, and a kmod of 30 or older would make that a call
# the kernel reads and refuses), no other run holds it, the kernel is 6.5
# or later and the kernel reads the file itself (a format it does not
# decompress is decompressed here and loaded with init_module, not joined).
handover_kver() { # $1: the kernel release; the tree again, for it
	printf '%b' "$(cat "$t/spec")" | "$top/tests/unit/mktree.sh" "$t/root" "$1" >/dev/null
}
# slow with no device alias of its own (its device then asks for nothing)
handover_noalias() {
	sed -i "s/^slow alias=pci:v0000AAAAd\\*sv\\*sd\\*bc\\*sc\\*i\\*/slow${1:+ alias=$1}/" "$t/spec"
	grep -q "^slow${1:+ alias=$1}\\\\nuser" "$t/spec"
}
t_handover_joined() {
	handover_setup
	check "spec: slow without a device alias" handover_noalias
	handover_kver 6.12.1
	RULES=slow:0:2000
	run_handover -S 6.12.1 slow
	check "exit 0 at the hand-over" eq "$rc" 0
	check "slow still in init() then" eq "$(ended slow)" 0
	check "user held, slow not" matches "$(held_files)" \
		'^(modpreload-held-quick.conf )?modpreload-held-user.conf $'
	check "the child reported" wait_report
	check "slow loaded once" eq "$(starts slow)" 1
	check "user loaded once, after slow" before slow user
	check "report: slow joined" eq "$(jq -c .handover.joined "$t/r.json")" '["slow"]'
	check "report: slow not held" eq "$(jq '[.handover.held[] | select(. == "slow")] | length' "$t/r.json")" 0
	check "the log says why" grep -q "1 asked for by name or by the kernel is in the kernel, where another load of it waits for ours" "$t/err"

	handover_setup
	check "fs: spec" handover_noalias fs-slowfs
	handover_kver 6.12.1
	RULES=slow:0:2000
	echo 'rd.modpreload.modules=slow' >"$t/cmdline"
	run_handover -S 6.12.1
	check "fs alias: the caller went on first" eq "$(ended slow)" 0
	check "fs alias: slow not held" matches "$(held_files)" \
		'^(modpreload-held-quick.conf )?modpreload-held-user.conf $'
	wait_report
	check "fs alias: slow joined" eq "$(jq -c .handover.joined "$t/r.json")" '["slow"]'

	# a device alias leads to it: udev could ask for it too
	handover_setup
	handover_kver 6.12.1
	RULES=slow:0:1000
	run_handover -S 6.12.1 slow
	check "named, a device alias: slow ended first" eq "$(ended slow)" 1
	wait_report
	handover_setup
	sed -i 's/^slow alias=/slow alias=fs-slowfs alias=/' "$t/spec"
	handover_kver 6.12.1
	RULES=slow:0:1000
	run_handover -S 6.12.1
	check "fs and device alias: slow ended first" eq "$(ended slow)" 1
	wait_report

	# another run (the initramfs's) holds it: systemd-modules-load would
	# skip it, and the load we wait for may be that run's, of another file
	handover_setup
	handover_noalias
	handover_kver 6.12.1
	hold_as slow $$ "$(start_of $$)" "$(this_boot)"
	RULES=slow:0:1000
	run_handover -S 6.12.1 slow
	check "held by another run: slow ended first" eq "$(ended slow)" 1
	wait_report
	check "held by another run: its file left" [ -e "$held/modpreload-held-slow.conf" ]

	# 6.4: the kernel reads a second call's file before it refuses it
	handover_setup
	handover_noalias
	handover_kver 6.4.0
	RULES=slow:0:1000
	run_handover -S 6.4.0 slow
	check "6.4: slow ended first" eq "$(ended slow)" 1
	check "6.4: report: no hand-over" eq "$(jq .handover "$t/r.json")" null

	handover_setup
	handover_noalias
	sed -i 's/^slow/slow comp=zstd/' "$t/spec"
	handover_kver 6.12.1
	echo xz >"$t/sys/module/compression"
	RULES=slow:0:1000
	run_handover -S 6.12.1 slow
	check "init_module: slow ended first" eq "$(ended slow)" 1
	check "init_module: report: no hand-over" eq "$(jq .handover "$t/r.json")" null

	# --handover-soon (the booted system's run), 6.4: a module only the
	# kernel asks for by alias (fs-*), planned as what a device's driver
	# needs, is joined all the same: at most one refused duplicate, if the
	# kernel asks while ours runs, and the caller goes on
	handover_setup
	check "soon, 6.4 fs: spec" handover_noalias fs-slowfs
	handover_kver 6.4.0
	RULES=slow:0:2000
	run_handover -S 6.4.0 --handover-soon
	check "soon, 6.4, a kernel alias: the caller went on first" eq "$(ended slow)" 0
	wait_report
	check "soon, 6.4, a kernel alias: slow joined" eq "$(jq -c .handover.joined "$t/r.json")" '["slow"]'
	check "soon, 6.4, a kernel alias: slow loaded once" eq "$(starts slow)" 1

	# soon, a module only the kernel asks for need not have a worker yet:
	# one load at a time, the longer chain (quick, quick2, quick3) first;
	# slow, ready, waits for the worker. The caller goes on before it
	# starts (the kernel's modprobe would load it, and ours find it live)
	handover_setup
	handover_noalias fs-slowfs
	spec=$(cat "$t/spec")'quick2 quick alias=pci:v0000DDDDd*sv*sd*bc*sc*i*\nquick3 quick2 alias=pci:v0000EEEEd*sv*sd*bc*sc*i*\n'
	printf '%s' "$spec" >"$t/spec"
	for d in D E; do
		mkdir -p "$t/sys/devices/pci0000:00/dev$d"
		echo "MODALIAS=pci:v0000${d}${d}${d}${d}d00000001sv00000000sd00000000bc00sc00i00" \
			>"$t/sys/devices/pci0000:00/dev$d/uevent"
	done
	handover_kver 6.4.0
	RULES=quick:0:3000
	run_handover -S 6.4.0 --handover-soon -j 1 --pool fixed
	check "soon, queued: the caller went on before slow started" eq "$(starts slow)" 0
	check "soon, queued: ... and while quick ran" eq "$(ended quick)" 0
	wait_report
	check "soon, queued: slow joined" eq "$(jq -c .handover.joined "$t/r.json")" '["slow"]'
	check "soon, queued: slow loaded once" eq "$(starts slow)" 1

	# the same without soon (an initramfs's run): waited for
	handover_setup
	handover_noalias fs-slowfs
	handover_kver 6.4.0
	RULES=slow:0:1000
	run_handover -S 6.4.0
	check "6.4, a kernel alias: slow ended first" eq "$(ended slow)" 1
	check "6.4, a kernel alias: report: no hand-over" eq "$(jq .handover "$t/r.json")" null

	# soon, 6.4, a name (a list: systemd-modules-load loads it by name
	# right after, a duplicate for sure): waited for
	handover_setup
	handover_noalias
	handover_kver 6.4.0
	echo slow >"$t/list.conf"
	RULES=slow:0:1000
	run_handover -S 6.4.0 --handover-soon -c "$t/list.conf"
	check "soon, 6.4, a name: slow ended first" eq "$(ended slow)" 1
	check "soon, 6.4, a name: report: no hand-over" eq "$(jq .handover "$t/r.json")" null
}

# A bare word among a module's aliases (acpi_cpufreq's "acpi") is an old
# name, not a kernel request: it does not keep a device driver from being
# held, and the caller goes on while the driver loads.
t_handover_legacy_alias() {
	handover_setup
	sed -i 's/^slow alias=/slow alias=slowword alias=/' "$t/spec"
	handover_kver 1.0
	RULES=slow:0:2000
	run_handover
	check "exit 0 at the hand-over" eq "$rc" 0
	check "slow still in init() then" eq "$(ended slow)" 0
	check "slow held" [ -e "$held/modpreload-held-slow.conf" ]
	check "the child reported" wait_report
	check "slow loaded once" eq "$(starts slow)" 1
}

# After the hand-over the boot waits for nothing: an init() may take as
# long as udev's worker would give it (180 s), not the timeout (-t 1 here),
# or its dependents would be skipped and its hold would go while it is still
# coming, for udev to load it again.
t_handover_bound() {
	handover_setup
	RULES=slow:0:2500
	run_handover -t 1
	check "exit 0 at the hand-over" eq "$rc" 0
	check "the child reported" wait_report
	check "slow loaded, not given up on" eq "$(jq -r '.modules[] | select(.name == "slow") | .state' "$t/r.json")" loaded
	check "user loaded after it" eq "$(jq -r '.modules[] | select(.name == "user") | .state' "$t/r.json")" loaded
	check "nothing hung" eq "$(jq '.counts.hung // 0' "$t/r.json")" 0
}

# With --handover-soon, what the hand-over must see final goes first: with
# one load at a time, the module a list names (nm, no device alias; before
# 6.5 a name is waited for) starts before the longest chain (c1, which c2
# and c3 need, each a device's driver), so that the caller waits no longer
# than it takes. Without it, the longest chain first.
# nm (a name in a list) and the chain c1 < c2 < c3 (devices A, B, C) for
# kernel $1
urgent_setup() {
	three_devices
	printf '%b' "$spec" | "$top/tests/unit/mktree.sh" "$t/root" "$1" >/dev/null
	echo nm >"$t/list.conf"
}
t_handover_urgent() {
	spec='nm\nc1 alias=pci:v0000AAAAd*sv*sd*bc*sc*i*\nc2 c1 alias=pci:v0000BBBBd*sv*sd*bc*sc*i*\nc3 c2 alias=pci:v0000CCCCd*sv*sd*bc*sc*i*\n'
	for soon in --handover-soon ""; do
		urgent_setup 6.4.0
		RULES=nm:0:1000,c1:0:300
		run_handover -S 6.4.0 -j 1 --pool fixed -c "$t/list.conf" $soon
		check "${soon:-plain}: exit 0 at the hand-over" eq "$rc" 0
		check "${soon:-plain}: the child reported" wait_report
		check "${soon:-plain}: nm waited for (a name before 6.5)" eq "$(jq -c '.handover.joined // []' "$t/r.json")" '[]'
		if [ -n "$soon" ]; then
			check "soon: nm first, before the chain's head" before nm c1
		else
			check "plain: the chain's head first" before c1 nm
		fi
	done

	# two loads at once: with soon nm loads alone (what it waits for
	# loads first, and nothing beside it); without, c1 beside it
	for soon in --handover-soon ""; do
		urgent_setup 6.4.0
		RULES=nm:0:1000,c1:0:300
		run_handover -S 6.4.0 -j 2 --pool fixed -c "$t/list.conf" $soon
		check "${soon:-plain}, two at once: the child reported" wait_report
		if [ -n "$soon" ]; then
			check "soon, two at once: nm alone, c1 after it" before nm c1
		else
			check "plain, two at once: c1 beside nm" [ "$(t_start c1)" -lt "$(t_end nm)" ]
		fi
	done

	# 6.12: the kernel joins a name, which need only be under way: it
	# starts first and the caller goes on while it loads; c1, held, waits
	# for the hand-over (and then for udev's coldplug) even with a worker
	# free, rather than load beside the boot's first units
	for j in 1 2; do
		urgent_setup 6.12.1
		RULES=nm:0:1500,c1:0:300
		run_handover -S 6.12.1 -j $j --pool fixed -c "$t/list.conf" --handover-soon
		check "6.12, -j $j: the caller went on while nm loaded" eq "$(ended nm)" 0
		check "6.12, -j $j: the child reported" wait_report
		check "6.12, -j $j: nm joined" eq "$(jq -c '.handover.joined // []' "$t/r.json")" '["nm"]'
		check "6.12, -j $j: nm started first" [ "$(t_start nm)" -le "$(t_start c1)" ]
		check "6.12, -j $j: c1 not before the hand-over" \
			jq -e '[.modules[] | select(.name == "c1")][0].start_ms >= .handover.at_ms' "$t/r.json" >/dev/null
	done
}

# The names gate (gate.c): before 6.5, with --names-gate, the caller goes
# on while nm (a name) still loads, the gate's lock held until nm is final;
# --wait-names returns only after nm's load ended. A gate another run holds
# is not ours: nm is waited for then, as without one. A killed loader's
# lock goes with it.
t_handover_gate() {
	spec='nm\nc1 alias=pci:v0000AAAAd*sv*sd*bc*sc*i*\nc2 c1 alias=pci:v0000BBBBd*sv*sd*bc*sc*i*\nc3 c2 alias=pci:v0000CCCCd*sv*sd*bc*sc*i*\n'
	gate=$t/run/modpreload/names.lock
	urgent_setup 6.4.0
	RULES=nm:0:3000,c1:0:300
	run_handover -S 6.4.0 -j 2 --pool fixed -c "$t/list.conf" --handover-soon --names-gate "$gate"
	check "exit 0 at the hand-over" eq "$rc" 0
	check "the caller went on while nm loaded" eq "$(ended nm)" 0
	check "the gate is there" [ -f "$gate" ]
	"$bin" --wait-names "$gate" -t 1 2>"$t/wait.err"
	check "the gate is shut while nm loads (a waiter gives up after its bound, status 1)" eq "$?" 1
	check "and says so" grep -q "names.lock: the names gate is still shut after 1 s" "$t/wait.err"
	"$bin" --wait-names "$gate"
	check "the gate opens (status 0)" eq "$?" 0
	check "once nm's load ended" eq "$(ended nm)" 1
	check "its file gone as it opened (modpreload-names.service is not started then)" [ ! -e "$gate" ]
	check "the child reported" wait_report
	check "nm joined, behind the gate" eq "$(jq -c '.handover.joined // []' "$t/r.json")" '["nm"]'
	check "nm among the first two started (two workers take both at once)" first_two nm
	check "c1 after nm (a name behind the gate loads alone: sysinit.target waits for it)" \
		[ "$(t_start c1)" -ge "$(t_end nm)" ]
	check "nm loaded once" eq "$(starts nm)" 1

	# another run's gate: not ours, so nm is waited for
	urgent_setup 6.4.0
	RULES=nm:0:1000,c1:0:300
	mkdir -p "$t/run/modpreload"
	flock "$gate" sleep 30 &
	other=$!
	i=0
	while flock -n "$gate" true 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	run_handover -S 6.4.0 -j 2 --pool fixed -c "$t/list.conf" --handover-soon --names-gate "$gate" -v
	kill "$other" 2>/dev/null
	wait "$other" 2>/dev/null
	check "held elsewhere: the child reported" wait_report
	check "held elsewhere: nm waited for" eq "$(jq -c '.handover.joined // []' "$t/r.json")" '[]'
	check "held elsewhere: the log says why" grep -q "names.lock: no names gate (EBUSY)" "$t/err"

	# the loader killed: its lock goes with it, and the waiter goes on
	urgent_setup 6.4.0
	RULES=nm:0:20000,c1:0:20000
	run_handover -S 6.4.0 -j 2 --pool fixed -c "$t/list.conf" --handover-soon --names-gate "$gate"
	check "killed: exit 0 at the hand-over" eq "$rc" 0
	holder=$(sed -n 's/^# holder: pid=\([0-9]*\) .*/\1/p' "$held"/modpreload-held-*.conf 2>/dev/null | head -n 1)
	check "killed: a holder" [ -n "$holder" ]
	[ -n "$holder" ] && kill -9 "$holder"
	sleep 0.2
	"$bin" --wait-names "$gate" -t 2
	check "killed: the gate is open" eq "$?" 0
}

# slow fails after the hand-over: udev skipped its device meanwhile, so
# that device's add is replayed (once the held file is gone), and only
# that device's; user, which needs it, is skipped and its device replayed.
t_handover_fail() {
	handover_setup
	RULES=slow:5:1000
	run_handover
	check "exit 0 at the hand-over" eq "$rc" 0
	check "the child reported" wait_report
	check "slow called once" eq "$(starts slow)" 1
	check "user never called" eq "$(starts user)" 0
	check "slow's device: add replayed" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devA/uevent")" add
	check "user's device: add replayed" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devB/uevent")" add
	check "quick's device left alone" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devC/uevent")" MOD
	check "report: 2 replayed" eq "$(jq .handover.replayed "$t/r.json")" 2
	check "report: slow failed EIO" eq "$(jq -r '.modules[] | select(.name=="slow") | .error' "$t/r.json")" EIO
	check "the held files are gone" eq "$(held_files)" ""
	check "the log names the module" grep -q "failed after the hand-over" "$t/err"
}

# --hold-udev (the initramfs, load/udevhold.c): a rule beside the hold
# directory keeps udev's kmod off every device while the run loads, so the
# hand-over does not wait for slow, which its kernel alias (crypto-slow)
# keeps from being held; the run plans the devices that appear after it
# (devD, found at the last rescan), and the rule goes at the end.
udev_setup() {
	handover_setup
	printf '%s%s' "$spec" 'late alias=pci:v0000DDDDd*sv*sd*bc*sc*i*\n' >"$t/spec"
	sed -i 's/^slow alias=/slow alias=crypto-slow alias=/' "$t/spec"
	printf '%b' "$(cat "$t/spec")" | "$top/tests/unit/mktree.sh" "$t/root" 1.0 >/dev/null
	rule=$t/run/udev/rules.d/79-modpreload-hold.rules
}
# devD, which wants late, appears (as a load's device would)
device_d() {
	mkdir -p "$t/sys/devices/pci0000:00/devD"
	echo "MODALIAS=pci:v0000DDDDd00000001sv00000000sd00000000bc00sc00i00" >"$t/sys/devices/pci0000:00/devD/uevent"
}
t_handover_udev() {
	udev_setup
	RULES=slow:0:2000
	run_handover --hold-udev
	check "exit 0 at the hand-over" eq "$rc" 0
	check "slow still in init() then" eq "$(ended slow)" 0
	check "the rule is there" grep -qx 'ACTION=="add", ENV{MODALIAS}=="?\*", ENV{MODALIAS}=""' "$rule"
	check "the rule names its holder" grep -qx "# holder: pid=[0-9]* start=[0-9]* boot=$(this_boot)" "$rule"
	check "slow not blacklisted (a kernel alias)" [ ! -e "$held/modpreload-held-slow.conf" ]
	device_d
	check "the child reported" wait_report
	check "slow, user, quick loaded once" eq "$(starts slow) $(starts user) $(starts quick)" "1 1 1"
	check "late (devD, after the hand-over) loaded once, by the run" eq "$(starts late)" 1
	check "the rule is gone" [ ! -e "$rule" ]
	check "the held files are gone" eq "$(held_files)" ""
	check "report: nothing replayed" eq "$(jq .handover.replayed "$t/r.json")" 0
	check "no add replayed" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devA/uevent")" MOD

	# without it, slow is waited for, and devD is udev's
	udev_setup
	RULES=slow:0:1000
	run_handover
	check "without: slow ended first" eq "$(ended slow)" 1
	check "without: no rule" [ ! -e "$rule" ]
	device_d
	wait_report
	check "without: late not the run's" eq "$(starts late)" 0

	# a failure: udev is asked again for each device that still wants a
	# module (slow's, and user's, skipped with it), once the rule is gone
	udev_setup
	RULES=slow:5:1000
	run_handover --hold-udev
	check "failed: the child reported" wait_report
	check "failed: slow called once, user never" eq "$(starts slow) $(starts user)" "1 0"
	check "failed: slow's device: add replayed" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devA/uevent")" add
	check "failed: user's device: add replayed" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devB/uevent")" add
	check "failed: quick's device left alone" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devC/uevent")" MOD
	check "failed: report: 2 replayed" eq "$(jq .handover.replayed "$t/r.json")" 2
	check "failed: the rule is gone" [ ! -e "$rule" ]

	# rd.modpreload.handover=0: no hand-over, no rule
	udev_setup
	RULES=slow:0:500
	echo 'rd.modpreload.handover=0' >"$t/cmdline"
	run_handover --hold-udev
	check "off: slow ended first" eq "$(ended slow)" 1
	check "off: no rule" [ ! -e "$rule" ]

	# the rule cannot be written (udev/ is a file): the hand-over waits
	# for slow, as without the option, and says why
	udev_setup
	RULES=slow:0:1000
	mkdir -p "$t/run" && : >"$t/run/udev"
	run_handover --hold-udev
	check "unwritable: slow ended first" eq "$(ended slow)" 1
	check "unwritable: the log says so" grep -q "cannot keep udev from loading drivers" "$t/err"
	wait_report
	check "unwritable: slow loaded once" eq "$(starts slow)" 1
}

# --hold-udev with --handover-soon (the booted unit): the rule holds the
# CPUs' MODALIAS only. cpucrypt, which a kernel alias leads to (no
# blacklist holds it) and the CPUs alone ask for, is not waited for;
# asked for by another device too, it is, as without the option.
cpu_setup() {
	spec="cpucrypt alias=crypto-cpucrypt alias=cpu:type:x86,ven*fam*mod*:feature:*0001*${1:-}\nquick alias=pci:v0000CCCCd*sv*sd*bc*sc*i*\n"
	three_devices
	for i in 0 1; do
		mkdir -p "$t/sys/devices/system/cpu/cpu$i"
		printf 'DRIVER=processor\nMODALIAS=cpu:type:x86,ven0000fam0006mod003F:feature:,0000,0001\n' \
			>"$t/sys/devices/system/cpu/cpu$i/uevent"
	done
	rule=$t/run/udev/rules.d/79-modpreload-hold.rules
	RULES=cpucrypt:0:2000
}
t_handover_udev_cpu() {
	cpu_setup
	run_handover --handover-soon --hold-udev
	check "exit 0 at the hand-over" eq "$rc" 0
	check "cpucrypt still in init() then" eq "$(ended cpucrypt)" 0
	check "the rule holds the CPUs only" \
		grep -qx 'SUBSYSTEM=="cpu", ACTION=="add", ENV{MODALIAS}=="?\*", ENV{MODALIAS}=""' "$rule"
	check "the rule names its holder" grep -qx "# holder: pid=[0-9]* start=[0-9]* boot=$(this_boot)" "$rule"
	check "the log says why" grep -q "1 more by a rule" "$t/err"
	check "the child reported" wait_report
	check "cpucrypt, quick loaded once" eq "$(starts cpucrypt) $(starts quick)" "1 1"
	check "the rule is gone" [ ! -e "$rule" ]
	check "report: nothing replayed" eq "$(jq .handover.replayed "$t/r.json")" 0
	check "no add replayed" eq "$(head -c 3 "$t/sys/devices/system/cpu/cpu0/uevent")" DRI

	# without the option: waited for
	cpu_setup
	run_handover --handover-soon
	check "without: cpucrypt ended first" eq "$(ended cpucrypt)" 1
	check "without: no rule" [ ! -e "$rule" ]
	wait_report

	# device A asks for it too: waited for
	cpu_setup ' alias=pci:v0000AAAAd*sv*sd*bc*sc*i*'
	run_handover --handover-soon --hold-udev
	check "a device too: cpucrypt ended first" eq "$(ended cpucrypt)" 1
	check "a device too: the child reported" wait_report
	check "a device too: loaded once, no rule left" eq "$(starts cpucrypt) $([ -e "$rule" ] || echo gone)" "1 gone"

	# its holder gone (killed): --release-stale removes the rule and its
	# held file, and replays a CPU whose module is not in the kernel, its
	# driver (processor) notwithstanding (a held file beside the rule: a
	# NULL list of names was walked, SIGSEGV, in the booted unit's main
	# process on a real boot)
	cpu_setup
	ln -s ../../../bus/cpu/drivers/processor "$t/sys/devices/system/cpu/cpu0/driver"
	mkdir -p "$t/run/udev/rules.d" "$held"
	printf '# holder: pid=2147483647 start=1 boot=%s\nSUBSYSTEM=="cpu", ACTION=="add", ENV{MODALIAS}=="?*", ENV{MODALIAS}=""\n' \
		"$(this_boot)" >"$rule"
	hold_as quick 2147483647 1 "$(this_boot)"
	run --release-stale --hold-dir "$held"
	check "gone: exit 0" eq "$rc" 0
	check "gone: the rule and the held file removed" eq "$(held_files)$([ -e "$rule" ] || echo gone)" gone
	check "gone: cpu0 replayed" eq "$(head -c 3 "$t/sys/devices/system/cpu/cpu0/uevent")" add
	check "gone: nothing loaded" eq "$(calls)" 0
}

# A rule whose holder is gone (killed after the hand-over): the next run
# removes it; --release-stale replays every device that still wants a
# module, as udev loaded none while it was there.
t_handover_udev_stale() {
	udev_setup
	mkdir -p "$t/run/udev/rules.d"
	printf '# holder: pid=2147483647 start=1 boot=%s\nACTION=="add", ENV{MODALIAS}=="?*", ENV{MODALIAS}=""\n' \
		"$(this_boot)" >"$rule"
	run --release-stale --hold-dir "$held"
	check "exit 0" eq "$rc" 0
	check "nothing loaded" eq "$(calls)" 0
	check "the rule removed" [ ! -e "$rule" ]
	check "each device replayed" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devA/uevent") $(head -c 3 \
		"$t/sys/devices/pci0000:00/devC/uevent")" "add add"
	check "the log names it" grep -q "kept udev from loading drivers is gone (pid 2147483647)" "$t/err"

	# its holder alive (this shell): kept, nothing replayed
	udev_setup
	mkdir -p "$t/run/udev/rules.d"
	printf '# holder: pid=%s start=%s boot=%s\n' $$ "$(start_of $$)" "$(this_boot)" >"$rule"
	run --release-stale --hold-dir "$held"
	check "alive: kept" [ -e "$rule" ]
	check "alive: nothing replayed" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devA/uevent")" MOD
}

# move_run [sys]: /init's move of /run, as a rename (an open directory
# follows either): $t/run to $t/moved, an empty directory left in its
# place, and the holds looked for there; with "sys", $t/sys to
# $t/moved-sys too. Then the child's report is waited for where /run went
# (at most 10 s).
move_run() {
	mv "$t/run" "$t/moved" && mkdir "$t/run"
	held=$t/moved/modprobe.d
	if [ "${1:-}" = sys ]; then mv "$t/sys" "$t/moved-sys" && mkdir "$t/sys"; fi
	i=0
	while [ ! -s "$t/moved/modpreload/report.json" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# The initramfs's /init moves /run into the new root while the child still
# loads (initramfs-tools: seconds before run-init switches): from then on
# the path names an empty directory that is about to be deleted. A
# directory renamed away stands for the mount moved: the child's holds go
# and its report is written where /run went, and nothing into the empty one.
t_handover_moved() {
	handover_setup
	RULES=slow:0:1500
	run_handover -r "$t/run/modpreload/report.json" --profile-out "$t/run/modpreload/profile"
	check "exit 0 at the hand-over" eq "$rc" 0
	check "slow still in init() then" eq "$(ended slow)" 0
	check "slow held" [ -e "$held/modpreload-held-slow.conf" ]
	move_run
	check "the report where /run went" [ -s "$t/moved/modpreload/report.json" ]
	check "the profile beside it" [ -s "$t/moved/modpreload/profile" ]
	check "slow loaded once" eq "$(starts slow)" 1
	check "the held files are gone from where /run went" eq "$(held_files)" ""
	check "nothing written where /run was" eq "$(find "$t/run" -mindepth 1 | wc -l)" 0
}

# The same move, /sys too, and slow fails after it: its devices' add is
# replayed in the sysfs that moved (udevd of the new root hears it), the
# report and the holds are where /run went.
t_handover_moved_fail() {
	handover_setup
	RULES=slow:5:1500
	run_handover -r "$t/run/modpreload/report.json"
	check "exit 0 at the hand-over" eq "$rc" 0
	check "slow still in init() then" eq "$(ended slow)" 0
	move_run sys
	check "the report where /run went" [ -s "$t/moved/modpreload/report.json" ]
	check "slow's device: add replayed where /sys went" \
		eq "$(head -c 3 "$t/moved-sys/devices/pci0000:00/devA/uevent")" add
	check "user's device: add replayed where /sys went" \
		eq "$(head -c 3 "$t/moved-sys/devices/pci0000:00/devB/uevent")" add
	check "report: 2 replayed" eq "$(jq .handover.replayed "$t/moved/modpreload/report.json")" 2
	check "the held files are gone from where /run went" eq "$(held_files)" ""
	check "nothing written where /run was" eq "$(find "$t/run" -mindepth 1 | wc -l)" 0
}

# A hold that cannot be written (the directory is a file): no hand-over,
# the run waits for the end as before, and says why.
t_handover_unwritable() {
	handover_setup
	RULES=slow:0:1000
	: >"$held"
	run_handover
	check "exit 0" eq "$rc" 0
	check "slow ended before the caller went on" eq "$(ended slow)" 1
	check "report: no hand-over" eq "$(jq .handover "$t/r.json")" null
	check "the log says why, once" eq "$(grep -c "cannot keep udev off the modules still loading: ENOTDIR" "$t/err")" 1
}

# The plan is whole, and loads have not even started (one worker, busy with
# slow): the caller goes on all the same, and the queued ones are held and
# loaded after it, once each.
t_handover_queued() {
	handover_setup
	RULES=slow:0:1500,user:0:0,quick:0:1500
	run_handover -j 1 --pool fixed
	check "exit 0 at the hand-over" eq "$rc" 0
	check "one load had started at most" [ "$(calls)" -le 1 ]
	check "all three held" eq "$(held_files)" \
		"modpreload-held-quick.conf modpreload-held-slow.conf modpreload-held-user.conf "
	check "the child reported" wait_report
	check "each loaded once" eq "$(starts slow) $(starts user) $(starts quick)" "1 1 1"
	check "the held files are gone" eq "$(held_files)" ""
}

# An image with only the binary indexes (mkinitcpio removes modules.alias
# and the other text ones after its depmod): libkmod's dump of
# modules.alias.bin tells the same, so the hand-over still happens, and a
# kernel alias found there still keeps a module from being held.
t_handover_binonly() {
	handover_setup
	rm "$t/root/lib/modules/1.0/modules.alias"
	RULES=slow:0:2000
	run_handover
	check "exit 0 at the hand-over" eq "$rc" 0
	check "slow still in init() then" eq "$(ended slow)" 0
	check "slow held" [ -e "$held/modpreload-held-slow.conf" ]
	check "the child reported" wait_report
	check "slow loaded once" eq "$(starts slow)" 1

	handover_setup
	sed -i 's/^slow alias=/slow alias=fs-slowfs alias=/' "$t/spec"
	printf '%b' "$(cat "$t/spec")" | "$top/tests/unit/mktree.sh" "$t/root" 1.0 >/dev/null
	rm "$t/root/lib/modules/1.0/modules.alias"
	RULES=slow:0:1000
	run_handover
	check "fs alias: slow ended first" eq "$(ended slow)" 1
	wait_report
	check "fs alias: slow never held" eq "$(jq '[.handover.held // [] | .[] | select(. == "slow")] | length' "$t/r.json")" 0
}

# udev still has events queued when slow fails (/run/udev/queue, beside
# the hold directory's parent): slow stays held until the queue is empty,
# so that udev does not try it from an old event and again at the replay.
t_handover_queue() {
	handover_setup
	mkdir -p "$t/run/udev"
	: >"$t/run/udev/queue"
	RULES=slow:5:500
	run_handover
	check "exit 0 at the hand-over" eq "$rc" 0
	sleep 1.5
	check "slow failed by now" eq "$(ended slow)" 1
	check "slow still held while udev has a queue" [ -e "$held/modpreload-held-slow.conf" ]
	check "no add replayed yet" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devA/uevent")" MOD
	rm "$t/run/udev/queue"
	check "the child reported" wait_report
	check "the held files are gone" eq "$(held_files)" ""
	check "slow's device: add replayed" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devA/uevent")" add
	check "report: 2 replayed" eq "$(jq .handover.replayed "$t/r.json")" 2
	check "the log says it waited" grep -q "waiting for udev's queue to empty" "$t/err"
}

# After the hand-over the holds stay until udev's queue is empty (for 3 s),
# a held module that loaded too: each file that goes (or comes: the no-device
# blacklist) makes udevd reload its module index and replace its workers,
# which in coldplug's middle made udev's queue take twice as long to empty
t_handover_queue_loaded() {
	handover_setup
	mkdir -p "$t/run/udev"
	: >"$t/run/udev/queue"
	RULES=slow:0:500
	run_handover
	check "exit 0 at the hand-over" eq "$rc" 0
	sleep 1.5
	check "slow loaded by now" live slow
	check "user loaded by now" live user
	check "slow still held while udev has a queue" [ -e "$held/modpreload-held-slow.conf" ]
	check "user still held while udev has a queue" [ -e "$held/modpreload-held-user.conf" ]
	check "no report while udev has a queue" [ ! -e "$t/r.json" ]
	check "the log says it waits" grep -q "waiting for udev's queue to empty .* before the holds go" "$t/err"
	# empty for an instant, as between the batches of udev's trigger: not
	# empty yet (the queue must stay away 3 s)
	rm "$t/run/udev/queue"
	sleep 0.5
	: >"$t/run/udev/queue"
	sleep 1
	check "slow still held after the queue was away 0.5 s" [ -e "$held/modpreload-held-slow.conf" ]
	check "no report after the queue was away 0.5 s" [ ! -e "$t/r.json" ]
	rm "$t/run/udev/queue"
	check "the child reported" wait_report
	check "the held files are gone" eq "$(held_files)" ""
	check "nothing replayed" eq "$(jq .handover.replayed "$t/r.json")" 0
	check "slow loaded once" eq "$(starts slow)" 1
}

# --handover-soon (the booted system's unit): before the hand-over only
# what it needs loads, and what it leaves (here all: slow and user, which
# needs it, are held) waits until udev's coldplug has begun (its queue file
# beside the hold directory), as udev's workers would have loaded it then;
# at most the run's --timeout.
t_handover_after_udev() {
	handover_setup
	RULES=slow:0:2000
	UDEV=manual run_handover --handover-soon -j 2 --pool fixed -vv
	check "exit 0 at the hand-over" eq "$rc" 0
	sleep 1
	check "slow, ready before the hand-over, not started before it" eq "$(starts slow)" 0
	check "user not started while udev's queue is not there" eq "$(starts user)" 0
	mkdir -p "$t/run/udev"
	: >"$t/run/udev/queue"
	check "the child reported" wait_report
	check "slow loaded once, once the queue was there" eq "$(starts slow)" 1
	check "slow started after the hand-over" \
		jq -e '[.modules[] | select(.name == "slow")][0].start_ms >= .handover.at_ms' "$t/r.json" >/dev/null
	check "user loaded once, once the queue was there" eq "$(starts user)" 1
	check "user live" live user
	check "the log says udev's coldplug began" grep -q "udev's coldplug began after" "$t/err"
	rm -f "$t/run/udev/queue"

	# no udev (its queue never there): after the run's --timeout all the
	# same, said at notice level (what booted-once looks for in the
	# kernel log), and not before it
	handover_setup
	RULES=slow:0:500
	UDEV=manual run_handover --handover-soon -j 2 --pool fixed --timeout 4 -v
	sleep 2
	check "no udev: user not started 2 s in" eq "$(starts user)" 0
	check "no udev: the child reported" wait_report
	check "no udev: user loaded once" eq "$(starts user)" 1
	check "no udev: the log says so" grep -q "udev/queue still not there after 4 s: no udevd" "$t/err"
	check "no udev: user waited the bound" \
		jq -e '[.modules[] | select(.name == "user")][0].start_ms - .handover.at_ms >= 3900' "$t/r.json" >/dev/null

	# without soon (an initramfs's run): nothing waits
	handover_setup
	RULES=slow:0:1000
	run_handover -j 2 --pool fixed -vv
	check "not soon: the child reported" wait_report
	check "not soon: user loaded once" eq "$(starts user)" 1
	check "not soon: no wait for udev" not_in_log "loading the rest"
}
not_in_log() { ! grep -q "$1" "$t/err"; }

# Paused after the hand-over (--handover-soon, no udev queue yet), nothing
# runs and nothing may start: the child looks for the queue every 0.1 s
# and is otherwise asleep. The adaptive pool's 5 ms tick woke it about 200
# times a second there, CPU time that, under TCG, the boot's own units did
# not get. Its wakes (voluntary context switches) over 2 s of the pause.
t_handover_pause_quiet() {
	handover_setup
	RULES=slow:0:200
	UDEV=manual run_handover --handover-soon -j 2 --pool adaptive --timeout 6
	check "exit 0 at the hand-over" eq "$rc" 0
	pid=$(pgrep -f -- "-d $t/root" | head -n 1)
	check "the child is there" [ -n "$pid" ]
	[ -n "$pid" ] || return 0
	sleep 0.5
	w0=$(awk '$1 == "voluntary_ctxt_switches:" { print $2 }' "/proc/$pid/status")
	sleep 2
	w1=$(awk '$1 == "voluntary_ctxt_switches:" { print $2 }' "/proc/$pid/status")
	check "slow not started in the pause" eq "$(starts slow)" 0
	check "at most 60 wakes in 2 s of the pause (got $((w1 - w0)))" [ $((w1 - w0)) -le 60 ]
	mkdir -p "$t/run/udev"
	: >"$t/run/udev/queue"
	check "the child reported" wait_report
	check "slow loaded once" eq "$(starts slow)" 1
}

# A holder killed after the hand-over (SIGKILL: the OOM killer, a unit
# stopped, a crash) removes none of its holds. A run removes a hold whose
# holder is gone (no such pid; the pid another process's now; another
# boot's) before it plans, and loads the module: not the administrator's
# blacklist (the hold directory is read as modprobe.d here, as
# /run/modprobe.d is on a system). The report and the log say so.
t_handover_stale() {
	handover_setup
	hold_as slow 2147483647 1 "$(this_boot)"
	hold_as user $$ 1 "$(this_boot)"
	hold_as quick $$ "$(start_of $$)" 0f6e6d1c-3a43-4a4e-9d53-1f1b0f1d2e3c
	run --coldplug -C "$held" --hold-dir "$held"
	check "exit 0" eq "$rc" 0
	check "each loaded once" eq "$(starts slow) $(starts user) $(starts quick)" "1 1 1"
	check "the holds are gone" eq "$(held_files)" ""
	check "report: the three" eq "$(jq -c '[.stale_holds[].module] | sort' "$t/r.json")" '["quick","slow","user"]'
	check "report: the dead holder's pid" \
		eq "$(jq '.stale_holds[] | select(.module == "slow") | .pid' "$t/r.json")" 2147483647
	check "the log names them, at NOTICE" grep -q "the loader that held .*slow (pid 2147483647).* is gone" "$t/err"
}

# A holder that lives (this shell, its start time, this boot): another
# run's hold, obeyed and kept, as before. So is a hold file without a
# holder line (a modpreload before it) while another modpreload runs.
t_handover_stale_alive() {
	handover_setup
	hold_as quick $$ "$(start_of $$)" "$(this_boot)"
	run --coldplug -C "$held" --hold-dir "$held"
	check "exit 0" eq "$rc" 0
	check "quick held by another run: not loaded" eq "$(starts quick)" 0
	check "its hold kept" [ -e "$held/modpreload-held-quick.conf" ]
	check "report: nothing stale" eq "$(jq '.stale_holds | length' "$t/r.json")" 0

	handover_setup
	mkdir -p "$held"
	echo 'blacklist quick' >"$held/modpreload-held-quick.conf"
	cp "$(command -v sleep)" "$t/modpreload"
	"$t/modpreload" 30 &
	other=$!
	run --coldplug -C "$held" --hold-dir "$held"
	kill "$other"
	wait "$other" 2>/dev/null
	check "no holder line, a modpreload runs: quick not loaded" eq "$(starts quick)" 0
	check "no holder line, a modpreload runs: kept" [ -e "$held/modpreload-held-quick.conf" ]
}

# --release-stale (the booted unit's ExecStopPost=): the holds of a holder
# that is gone go, and the devices that wanted those modules have their add
# replayed, for udev to load them; a live holder's hold stays, its devices
# untouched. Nothing is loaded.
t_release_stale() {
	handover_setup
	hold_as slow 2147483647 1 "$(this_boot)"
	hold_as quick $$ "$(start_of $$)" "$(this_boot)"
	run --release-stale --hold-dir "$held"
	check "exit 0" eq "$rc" 0
	check "nothing loaded" eq "$(calls)" 0
	check "slow's hold removed" [ ! -e "$held/modpreload-held-slow.conf" ]
	check "quick's kept: its holder lives" [ -e "$held/modpreload-held-quick.conf" ]
	check "slow's device: add replayed" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devA/uevent")" add
	check "user's device left alone" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devB/uevent")" MOD
	check "quick's device left alone" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devC/uevent")" MOD
	check "report: slow" eq "$(jq -c '[.stale_holds[].module]' "$t/r.json")" '["slow"]'
	check "the log says it" grep -q "udev was asked again for 1 device" "$t/err"

	# the holder ended as it should: nothing to remove, nothing replayed
	handover_setup
	run --release-stale --hold-dir "$held"
	check "none: exit 0" eq "$rc" 0
	check "none: no add replayed" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devA/uevent")" MOD
	check "none: report: nothing stale" eq "$(jq '.stale_holds | length' "$t/r.json")" 0
}

# A unit's main process outlives its child: when the child is killed after
# READY=1 (SIGKILL: here by the test, on a system the OOM killer), it
# removes the child's holds and replays the add of their devices.
t_handover_killed() {
	handover_setup
	RULES=slow:0:20000
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(30)
print(s.recv(512).decode().split("\n")[0], flush=True)' "$t/notify" >"$t/notified" &
	listener=$!
	i=0
	while [ ! -S "$t/notify" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	(
		export NOTIFY_SOCKET="$t/notify"
		run_handover
	) &
	runner=$!
	i=0
	while ! grep -qx READY=1 "$t/notified" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	holder=$(sed -n 's/^# holder: pid=\([0-9]*\) .*/\1/p' "$held/modpreload-held-slow.conf" 2>/dev/null)
	check "READY=1 sent at the hand-over" grep -qx READY=1 "$t/notified"
	check "slow held, by its holder" [ -n "$holder" ]
	[ -n "$holder" ] && kill -9 "$holder"
	wait "$runner"
	kill "$listener" 2>/dev/null
	wait "$listener" 2>/dev/null
	check "the holds are gone" eq "$(held_files)" ""
	check "slow's device: add replayed" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devA/uevent")" add
	check "the log says the loader died" grep -q "the loader died of signal 9" "$t/err"
	check "the log names slow" grep -q "the loader that held .*slow (pid $holder)" "$t/err"
	# the dead loader wrote no report: its main process writes one at its
	# path, saying so (not the last boot's left there, nor none)
	check "report: the loader died of SIGKILL" eq "$(jq '.loader_died.signal' "$t/r.json")" 9
	check "report: slow's hold released" eq "$(jq -c '[.stale_holds[].module] | index("slow") != null' "$t/r.json")" true
	n=$(sed -n 's/.*udev was asked again for \([0-9]*\) device.*/\1/p' "$t/err")
	check "report: the devices replayed, as the log says" eq "$(jq '.loader_died.replayed' "$t/r.json")" "${n:-none}"
	check "report: this boot's" eq "$(jq -r .boot_id "$t/r.json")" "$(cat /proc/sys/kernel/random/boot_id)"
	analyze "$t/r.json"
	check "analyze says so" grep -q "^The loader died after the hand-over (signal 9)\.$" "$t/an.out"
	check "analyze: what was released" grep -q "^  holds released: [1-9][0-9]*, devices asked for again (for udev): $n$" "$t/an.out"
}

# Another run (the initramfs's, still loading slow after the switch) holds
# slow and its load is coming when ours reaches slow as user's dependency:
# we wait for it and leave its hold alone, neither written over nor
# removed at our end (that run's end removes it, and a failure of its load
# is its to replay), and no device is replayed by us.
t_handover_held_elsewhere() {
	handover_setup
	hold_as slow $$ "$(start_of $$)" "$(this_boot)"
	before_file=$(cat "$held/modpreload-held-slow.conf")
	RULES=slow:0:100
	OTHER=slow:1500:live
	run_handover -C "$held" -v
	check "exit 0" eq "$rc" 0
	wait_report
	check "slow called once, found coming" eq "$(starts slow)" 1
	check "slow live, by the other load" eq "$(state slow)" live
	check "user loaded" eq "$(state user)" loaded
	check "the other run's hold kept as it was" eq "$(cat "$held/modpreload-held-slow.conf" 2>/dev/null)" "$before_file"
	check "no device replayed" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devA/uevent")" MOD
	check "the log says whose it is" grep -q "slow: held from udev by another run (pid $$)" "$t/err"
}

# --handover-soon with the last boot's lookups: a driver only CPUs asked
# for that found no device then (a "nodev" line of the file), and edacdep,
# which only such a driver needs, are held and not tried until udev's queue
# has been empty for 3 s; then once each, and blacklisted for the boot as
# before. The first boot, without the file, tries them with the rest.
t_handover_late() {
	lk=$work/lookups
	rm -f "$lk"
	spec='slow alias=pci:v0000AAAAd*sv*sd*bc*sc*i*\nuser slow alias=pci:v0000BBBBd*sv*sd*bc*sc*i*\nquick alias=pci:v0000CCCCd*sv*sd*bc*sc*i*\ncpunodev alias=cpu:type:x86,ven*fam*mod*:feature:*0001*\nedacdep\nedac edacdep alias=cpu:type:x86,ven*fam*mod*:feature:*0002*\n'
	three_devices
	cpus 4
	bl=$t/run/modprobe.d/modpreload-nodev.conf
	RULES=slow:0:300,cpunodev:19:0,edacdep:19:0
	run_handover --handover-soon --lookups-out "$lk" --nodev-blacklist "$bl"
	check "first: the child reported" wait_report
	check "first: kept, cpunodev found no device" grep -qx 'nodev cpunodev' "$lk"
	check "first: kept, edac (its dependency did not)" grep -qx 'nodev edac' "$lk"
	check "first: edacdep not kept (no CPU asked for it)" not grep -qx 'nodev edacdep' "$lk"
	check "first: nothing late" eq "$(jq -c .handover.late "$t/r.json")" '[]'
	# the next boot, its own /run
	rm -rf "$t/sys/module" "$t/run" "$t/r.json"
	mkdir -p "$t/sys/module" "$t/run"
	: >"$t/log"
	: >"$t/err"
	RULES=slow:0:300,cpunodev:19:0,edacdep:19:0
	UDEV=manual run_handover --handover-soon -v --lookups "$lk" --lookups-out "$lk" --nodev-blacklist "$bl"
	check "exit 0 at the hand-over" eq "$rc" 0
	check "cpunodev held" [ -e "$held/modpreload-held-cpunodev.conf" ]
	check "edac held" [ -e "$held/modpreload-held-edac.conf" ]
	mkdir -p "$t/run/udev"
	: >"$t/run/udev/queue"
	sleep 1.5
	check "slow loaded once udev's queue was there" eq "$(starts slow)" 1
	check "cpunodev not tried while udev has a queue" eq "$(starts cpunodev)" 0
	check "edacdep not tried while udev has a queue" eq "$(starts edacdep)" 0
	rm "$t/run/udev/queue"
	sleep 1
	check "nor 1 s after it emptied" eq "$(starts cpunodev)" 0
	check "the child reported" wait_report
	check "cpunodev tried once, after" eq "$(starts cpunodev)" 1
	check "edacdep tried once, after" eq "$(starts edacdep)" 1
	check "edac not tried: its dependency said ENODEV" eq "$(starts edac)" 0
	check "report: late" eq "$(jq -c .handover.late "$t/r.json")" '["cpunodev","edac","edacdep"]'
	check "cpunodev started 3 s after slow ended at least" \
		[ "$(($(t_start cpunodev) - $(t_end slow)))" -ge 3000 ]
	check "blacklisted for the boot, as before" eq "$(grep '^blacklist' "$bl" | sort | tr '\n' ' ')" \
		"blacklist cpunodev blacklist edac "
	check "the log says why" grep -q "udev's queue is empty: loading 3 modules that found no device" "$t/err"
	check "the holds are gone" eq "$(held_files)" "modpreload-nodev.conf "
	check "kept again" grep -qx 'nodev cpunodev' "$lk"
	# a changed index: the file's word is not used, nothing is late
	al=$t/root/lib/modules/1.0/modules.alias.bin
	cp "$al" "$al.new" && mv "$al.new" "$al"
	rm -rf "$t/sys/module" "$t/run" "$t/r.json"
	mkdir -p "$t/sys/module" "$t/run"
	: >"$t/log"
	RULES=slow:0:300,cpunodev:19:0,edacdep:19:0
	run_handover --handover-soon --lookups "$lk" --nodev-blacklist "$bl"
	check "new index: the child reported" wait_report
	check "new index: nothing late" eq "$(jq -c .handover.late "$t/r.json")" '[]'
	check "new index: cpunodev tried once" eq "$(starts cpunodev)" 1
}

# Soon, with the last boot's lookups (preload/load/early.c): what that
# boot's hand-over held is held again before sysfs is walked, and the
# caller goes on then. Here the walk waits on slow's device (its uevent
# file a fifo) until the case answers, after the caller went on. quick,
# blacklisted since, is held for nothing: its hold goes at the end and its
# device's add is replayed, as for a held module that failed.
t_handover_early() {
	handover_setup
	lk=$work/lookups
	rm -f "$lk"
	RULES=slow:0:1500,quick:0:1500
	run_handover --handover-soon --lookups-out "$lk"
	check "first: the child reported" wait_report
	check "first: kept, it handed over" grep -qx handover "$lk"
	check "first: kept, what it held" eq "$(sed -n 's/^held //p' "$lk" | sort | tr '\n' ' ')" "quick slow user "
	check "first: nothing held early" eq "$(jq -c .handover.early "$t/r.json")" '[]'
	cp "$lk" "$work/lookups.first"
	# the next boot, its own /run
	rm -rf "$t/sys/module" "$t/run" "$t/r.json"
	mkdir -p "$t/sys/module" "$t/run" "$t/root/etc/modprobe.d"
	echo 'blacklist quick' >"$t/root/etc/modprobe.d/quick.conf"
	: >"$t/log"
	dev=$t/sys/devices/pci0000:00/devA
	alias=$(cat "$dev/uevent")
	rm "$dev/uevent" && mkfifo "$dev/uevent"
	RULES=slow:0:300
	UDEV=manual run_handover --handover-early -v --lookups "$lk" --lookups-out "$lk"
	check "exit 0 before the walk" eq "$rc" 0
	check "no report yet" [ ! -e "$t/r.json" ]
	check "held before the walk" eq "$(held_files)" \
		"modpreload-held-quick.conf modpreload-held-slow.conf modpreload-held-user.conf "
	check "nothing loaded yet" eq "$(calls)" 0
	# shellcheck disable=SC2016 # the inner shell's arguments
	check "the walk reads slow's device now" timeout 20 sh -c 'echo "$1" >"$2"' - "$alias" "$dev/uevent"
	rm "$dev/uevent" && echo "$alias" >"$dev/uevent"
	mkdir -p "$t/run/udev" && : >"$t/run/udev/queue"
	check "the child reported" wait_report
	check "the log says when" grep -q "handing over before the plan: 3 modules held" "$t/err"
	check "slow loaded once" eq "$(starts slow)" 1
	check "user loaded once" eq "$(starts user)" 1
	check "quick not loaded (blacklisted)" eq "$(starts quick)" 0
	check "report: early" eq "$(jq -c '.handover.early | sort' "$t/r.json")" '["quick","slow","user"]'
	check "report: held, of the plan" eq "$(jq -c '.handover.held | sort' "$t/r.json")" '["slow","user"]'
	check "the holds are gone" eq "$(held_files)" ""
	check "quick's device: add replayed" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devC/uevent")" add
	check "report: 1 replayed" eq "$(jq .handover.replayed "$t/r.json")" 1
	check "kept again, without quick" eq "$(sed -n 's/^held //p' "$lk" | sort | tr '\n' ' ')" "slow user "
	# quick left to udev now (--leave-single: one device asks for it): held
	# early for nothing too, so replayed; a left module is not the plan's
	early_boot
	run_handover --handover-early --leave-single --lookups "$work/lookups.first"
	check "left: the child reported" wait_report
	check "left: quick held early" eq "$(jq -c '.handover.early | sort' "$t/r.json")" '["quick","slow","user"]'
	check "left: quick not loaded here" eq "$(starts quick)" 0
	check "left: quick's device: add replayed" eq "$(head -c 3 "$t/sys/devices/pci0000:00/devC/uevent")" add
	check "left: the holds are gone" eq "$(held_files)" ""
	# what the last hand-over waited for is not live: after the plan, as before
	early_boot
	cp "$work/lookups.first" "$lk" && echo 'wait quick' >>"$lk"
	run_handover --handover-early -v --lookups "$lk"
	check "wait: the child reported" wait_report
	check "wait: nothing held early" eq "$(jq -c .handover.early "$t/r.json")" '[]'
	check "wait: the log says why" grep -q "quick: the last boot's hand-over waited for it, and it is not live" \
		"$t/err"
	check "wait: each loaded once" eq "$(starts slow) $(starts user) $(starts quick)" "1 1 1"
}
# The names gate before the plan (gate.c): taken early only for a name the
# last boot's run did not leave to systemd-modules-load (the lookups file's
# "left" lines); nm, a name alone, was left, so no gate (nor its file) while
# the walk is held up on slow's device. A file without that line (a device
# asked for nm too then): the gate is there before the walk, and opens, its
# file gone, once the plan leaves nm.
t_handover_early_gate() {
	spec='slow alias=pci:v0000AAAAd*sv*sd*bc*sc*i*\nuser slow alias=pci:v0000BBBBd*sv*sd*bc*sc*i*\nquick alias=pci:v0000CCCCd*sv*sd*bc*sc*i*\nnm\n'
	three_devices
	lk=$work/lookups
	gate=$t/run/modpreload/names.lock
	rm -f "$lk"
	echo 'modules_load=nm' >"$t/cmdline"
	set -- --leave-single --modules-load --names-gate "$gate"
	RULES=slow:0:300
	run_handover --handover-soon "$@" --lookups-out "$lk"
	check "first: the child reported" wait_report
	check "first: nm left to systemd-modules-load" eq "$(starts nm)" 0
	check "first: kept, nm left" grep -qx "left nm" "$lk"
	check "first: kept, it handed over" grep -qx handover "$lk"
	for kept in left other; do
		[ $kept = left ] || sed -i '/^left /d' "$lk"
		rm -rf "$t/sys/module" "$t/run" "$t/r.json"
		mkdir -p "$t/sys/module" "$t/run"
		: >"$t/log"
		dev=$t/sys/devices/pci0000:00/devA
		alias=$(cat "$dev/uevent")
		rm "$dev/uevent" && mkfifo "$dev/uevent"
		UDEV=manual run_handover --handover-early -v "$@" --lookups "$lk"
		check "$kept: exit 0 before the walk" eq "$rc" 0
		check "$kept: held before the walk" [ -n "$(held_files)" ]
		if [ $kept = left ]; then
			check "$kept: no names gate before the walk" [ ! -e "$gate" ]
		else
			check "$kept: the names gate before the walk" [ -e "$gate" ]
			"$bin" --wait-names "$gate" -t 1 2>/dev/null
			check "$kept: and shut (a waiter gives up, status 1)" eq "$?" 1
		fi
		# shellcheck disable=SC2016 # the inner shell's arguments
		check "$kept: the walk reads slow's device now" timeout 20 sh -c 'echo "$1" >"$2"' - "$alias" "$dev/uevent"
		rm "$dev/uevent" && echo "$alias" >"$dev/uevent"
		mkdir -p "$t/run/udev" && : >"$t/run/udev/queue"
		check "$kept: the child reported" wait_report
		check "$kept: the gate's file gone" [ ! -e "$gate" ]
		check "$kept: nm left again" eq "$(starts nm)" 0
		check "$kept: slow loaded once" eq "$(starts slow)" 1
	done
	: >"$t/cmdline"
}

# the next boot for handover_early: its own /run, no report, no blacklist,
# quick's device not replayed yet
early_boot() {
	rm -rf "$t/sys/module" "$t/run" "$t/r.json" "$t/root/etc/modprobe.d/quick.conf"
	mkdir -p "$t/sys/module" "$t/run"
	echo 'MODALIAS=pci:v0000CCCCd00000001sv00000000sd00000000bc00sc00i00' >"$t/sys/devices/pci0000:00/devC/uevent"
	: >"$t/log"
	: >"$t/err"
	RULES=slow:0:300
}
