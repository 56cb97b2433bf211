#!/bin/sh
# The integrations' shell hooks under the shells that run them (busybox
# ash, dash, bash), with hostile command lines: what they hand modpreload
# must be names after "--", never options and never globs. Each hook is
# copied with its fixed paths (the binary, /proc/cmdline, /conf/modules,
# /scripts/functions, /run) pointed into a scratch directory, and the
# binary is a stub that writes its arguments one a line.
# Prints PASS:/FAIL: lines.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
suite=${MP_SUITE:-hooks}
work=$(mktemp -d "${TMPDIR:-/tmp}/mp-hooks.XXXXXX")
trap 'rm -rf "$work"' EXIT

shells=
for s in "busybox sh" dash bash; do
	if command -v "${s%% *}" >/dev/null 2>&1; then
		shells="$shells${shells:+:}$s"
	else
		echo "SKIP: $suite/shell-$s: not installed"
	fi
done

failed=0
check() { # description, then a command that must succeed
	what=$1
	shift
	if ! "$@"; then
		echo "  check failed: $what" >&2
		failed=1
	fi
}
eq() { [ "$1" = "$2" ] || { printf '    got:\n%s\n    want:\n%s\n' "$1" "$2" >&2; return 1; }; }
# after_dashdash: the stub's arguments after "--", one a line
after_dashdash() { sed -n '/^--$/,$p' "$w/argv" | sed 1d; }
before_dashdash() { sed '/^--$/,$d' "$w/argv"; }

# prepare: a scratch root with the stub, a hostile command line, and
# files a glob would match
prepare() {
	w=$work/w
	rm -rf "$w"
	mkdir -p "$w/bin" "$w/run" "$w/cwd" "$w/scripts"
	# shellcheck disable=SC2016 # the stub's own expansions
	printf '#!/bin/sh\nfor a; do printf "%%s\\n" "$a"; done >"%s/argv"\n' "$w" >"$w/bin/modpreload"
	chmod +x "$w/bin/modpreload"
	printf 'root=/dev/vda earlymodules=-r,/dev/vda,*,ok quiet\n' >"$w/cmdline"
	: >"$w/cwd/GLOBBED"
	: >"$w/argv"
}
# point FILE's fixed paths into $w
rewrite() {
	sed -e "s|/usr/s\\{0,1\\}bin/modpreload|$w/bin/modpreload|g" -e "s|/proc/cmdline|$w/cmdline|g" \
		-e "s|/conf/modules|$w/modules|g" -e "s|/scripts/functions|$w/scripts/functions|g" \
		-e "s|/run/|$w/run/|g" -e "s|dir=/run/modpreload|dir=$w/run/modpreload|" "$1"
}

t_mkinitcpio() {
	prepare
	rewrite "$top/mkinitcpio-hook/hooks/modpreload" >"$w/hook"
	# /init's environment: earlymodules= from the command line, MODULES from /config
	(cd "$w/cwd" && earlymodules='-r,/dev/vda,*,ok' MODULES='* mod1' $sh -c \
		'msg() { :; }; err() { :; }; . ./../hook; run_earlyhook; case $- in *f*) echo noglob-left-on;; esac' \
		>"$w/out" 2>&1)
	check "ran" [ -s "$w/argv" ]
	check "names after --" eq "$(after_dashdash)" "$(printf '%s\n' -r /dev/vda '*' ok '*' mod1)"
	check "no word from the command line before --" eq "$(before_dashdash | grep -c -e '^-r$' -e vda -e GLOBBED)" 0
	check "the blacklist stops names, as modprobe -qab" eq "$(before_dashdash | grep -c -x -e --use-blacklist)" 1
	check "globbing as it was" eq "$(cat "$w/out")" ""
}

t_initramfs_tools() {
	prepare
	printf 'log_warning_msg() { :; }\n' >"$w/scripts/functions"
	printf '# a comment\n-r\n*\n--report=/etc/passwd\nmod1\nmod2 opt=1\n' >"$w/modules"
	rewrite "$top/initramfs-tools/scripts/init-top/modpreload" >"$w/hook"
	(cd "$w/cwd" && $sh ../hook >"$w/out" 2>&1)
	check "ran" [ -s "$w/argv" ]
	check "names after --" eq "$(after_dashdash)" "$(printf '%s\n' -r '*' --report=/etc/passwd mod1)"
	check "no word from /conf/modules before --" \
		eq "$(before_dashdash | grep -c -e '^-r$' -e passwd -e GLOBBED)" 0
	check "the blacklist stops aliases only, as load_modules' modprobe" \
		eq "$(before_dashdash | grep -c -e --use-blacklist -e '^-b$')" 0
}

# save-report waits for root's modpreload runs to end, and only for
# those: a process any user names modpreload must not hold the boot's
# reports back until a power-off. Orders, not times: with root's fake run
# alive it must not have copied yet; with a user's alive it must be done
# while that one still runs. The wait is the real binary's (--wait-runs,
# found on PATH as the unit finds it); the runs are sleep(1) named
# modpreload.
t_save_report() {
	prepare
	bin=$work/bin real=$work/real
	mkdir -p "$bin" "$real" "$w/run/modpreload" "$w/keep"
	chmod 0755 "$work" "$bin"
	cp "$(command -v sleep)" "$bin/modpreload"
	cp "${MP_BIN:-$top/build/modpreload}" "$real/modpreload"
	rewrite "$top/systemd/save-report" >"$w/save-report"
	echo '{"booted":1}' >"$w/run/modpreload/booted.json"
	# a user's: save-report is done while it still runs. In a PID
	# namespace of its own, where that is the only process named
	# modpreload: a host that runs one of root's (an installed booted unit,
	# a cli case's child in a hung init()) would be waited for, rightly
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --pid --fork --mount-proc sh -c '
		setpriv --reuid=65534 --regid=65534 --clear-groups "$1" 4 &
		sleep 0.3
		PATH=$6:$PATH MODPRELOAD_WAIT_S=20 $2 "$3" "$4" >"$5" 2>&1
		kill -0 $! && echo alive' - "$bin/modpreload" "$sh" "$w/save-report" "$w/keep" "$w/out" "$real" >"$w/user"
	check "a user's process named modpreload is not waited for" grep -qx alive "$w/user"
	check "kept with it alive" [ -s "$w/keep/last-report.json" ]
	# root's: nothing is kept until it has ended (the same namespace, so
	# that no other of root's is waited for too)
	rm -f "$w/keep/last-report.json"
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --pid --fork --mount-proc sh -c '
		"$1" 2 &
		mine=$!
		PATH=$6:$PATH MODPRELOAD_WAIT_S=20 $2 "$3" "$4" >"$5" 2>&1 &
		saver=$!
		sleep 0.5
		[ -e "$4/last-report.json" ] || echo waited
		wait "$mine"
		wait "$saver"
		[ -s "$4/last-report.json" ] && echo kept' - "$bin/modpreload" "$sh" "$w/save-report" "$w/keep" "$w/out" \
		"$real" >"$w/root"
	check "root's run is waited for" grep -qx waited "$w/root"
	check "kept once it ended" grep -qx kept "$w/root"
}

cases="mkinitcpio initramfs_tools"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 && unshare --pid --fork --mount-proc true 2>/dev/null; then
	cases="$cases save_report"
else
	echo "SKIP: $suite/save_report: needs root, setpriv and a PID namespace"
fi
IFS=:
for sh in $shells; do
	IFS=' '
	for c in $cases; do
		failed=0
		"t_$c"
		name=$(echo "$sh" | tr ' ' '-')
		if [ $failed = 0 ]; then
			echo "PASS: $suite/$c-$name"
		else
			echo "FAIL: $suite/$c-$name"
			sed 's/^/    | /' "$w/argv" | head -20 >&2
		fi
	done
	IFS=:
done
