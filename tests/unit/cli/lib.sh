# shellcheck shell=sh
# The helpers of tests/unit/cli.sh's cases (tests/unit/cli/*.sh), sourced by
# cli.sh, which sets top, bin, shim, work and t before.
# shellcheck disable=SC2034,SC2154 # failed, rc: read by cli.sh and the cases; top, bin, shim, work, t: set by cli.sh

failed=0
check() { # description, then a command that must succeed
	what=$1
	shift
	if ! "$@"; then
		echo "  check failed: $what" >&2
		failed=1
	fi
}

# setup SPEC: a fresh tree (see mktree.sh), sysfs and log
setup() {
	rm -rf "$t"
	mkdir -p "$t/sys/devices" "$t/sys/module"
	printf '%b' "$1" | "$top/tests/unit/mktree.sh" "$t/root" 1.0 >/dev/null 2>"$t/mktree.err" ||
		cat "$t/mktree.err" >&2
	: >"$t/log"
	: >"$t/cmdline"
	RULES=
	OTHER=
}

run() {
	LD_PRELOAD=$shim MP_SHIM_SYSFS=$t/sys MP_SHIM_LOG=$t/log MP_SHIM_RULES=$RULES \
		MP_SHIM_OTHER=$OTHER "$bin" -d "$t/root" -S 1.0 --sysfs "$t/sys" --cmdline "$t/cmdline" \
		--no-default-config -C "$t/root/etc/modprobe.d" -r "$t/r.json" \
		"$@" >"$t/out" 2>"$t/err"
	rc=$?
}

# cpus N: N CPUs in the fake sysfs, each with features 0000, 0001 and 0002
cpus() {
	i=0
	while [ $i -lt "$1" ]; do
		mkdir -p "$t/sys/devices/system/cpu/cpu$i"
		echo 'MODALIAS=cpu:type:x86,ven0000fam0006mod003F:feature:,0000,0001,0002' \
			>"$t/sys/devices/system/cpu/cpu$i/uevent"
		i=$((i + 1))
	done
}
starts() { grep -c " start $1 " "$t/log"; }
calls() { grep -c " start " "$t/log"; }
ok_loads() { grep -c " end [a-z_0-9]* 0 " "$t/log"; }
# when $1's load started and ended, by the shim's clock (helpers, not cases)
t_start() { awk -v m="$1" '$2 == "start" && $3 == m { print $1; exit }' "$t/log"; }
t_end() { awk -v m="$1" '$2 == "end" && $3 == m { print $1; exit }' "$t/log"; }
before() { # $1 ended before $2 started
	[ -n "$(t_end "$1")" ] && [ -n "$(t_start "$2")" ] && [ "$(t_end "$1")" -le "$(t_start "$2")" ]
}
state() { jq -r --arg m "$1" '.modules[] | select(.name == $m) | .state' "$t/r.json"; }
live() { [ "$(cat "$t/sys/module/$1/initstate" 2>/dev/null)" = live ]; }
eq() { [ "$1" = "$2" ] || { echo "    got '$1', want '$2'" >&2; return 1; }; }

# --- the scheduler's order (sched.sh, profile.sh) ---

# the most loads the shim saw at once
most_at_once() { sort -n "$t/log" | awk '$2=="start"{n++} $2=="end"{n--} n>m{m=n} END{print m+0}'; }
# the order of the starts, names only
starts_in_order() { sort -n "$t/log" | awk '$2=="start"{printf "%s ", $3}'; }
first_two() { starts_in_order | awk -v m="$1" '{ exit !($1 == m || $2 == m) }'; }

# run_bare ARGS: the binary on the tree, nothing live yet, no report unless
# ARGS ask for one (tests/unit/cli/writers.sh)
run_bare() {
	rm -rf "${t:?}/sys/module" && mkdir "$t/sys/module"
	LD_PRELOAD=$shim MP_SHIM_SYSFS=$t/sys MP_SHIM_LOG=$t/log MP_SHIM_RULES=$RULES \
		"$bin" -d "$t/root" -S 1.0 --sysfs "$t/sys" --cmdline "$t/cmdline" \
		--no-default-config -C "$t/root/etc/modprobe.d" \
		"$@" >"$t/out" 2>"$t/err"
	rc=$?
}
not() { ! "$@"; }

# The no-device blacklist: whole lines or none. A CPU whose modalias
# matches two drivers that find no device.
nodev_setup() {
	setup 'cpua alias=cpu:type:x86,ven*fam*mod*:feature:*0001*\ncpub alias=cpu:type:x86,ven*fam*mod*:feature:*0001*\n'
	mkdir -p "$t/sys/devices/system/cpu/cpu0"
	echo 'MODALIAS=cpu:type:x86,ven0000fam0006mod003F:feature:,0000,0001' \
		>"$t/sys/devices/system/cpu/cpu0/uevent"
	RULES=cpua:19:0,cpub:19:0
	bl=$t/run/modprobe.d/nodev.conf
	mkdir -p "$t/run/modprobe.d"
}

# Bytes from input reach the console escaped: a name, a list's path, a
# usage error's argument with ESC and BEL in them.
raw_ctl() { LC_ALL=C grep -q "$(printf '[\033\007]')" "$@"; }

# Module options with quotes, as next_arg() and libkmod read them: each once,
# modprobe.d's first, with the kernel's value, whether libkmod read them in
# /proc/cmdline (mkinitcpio), or we in a copy of it (dracut, initramfs-tools)
# or in another file (the test's). The shim shows libkmod the same
# /proc/cmdline; a host's own would only add options for other modules.
cmdline_quotes() { # $1: the file libkmod reads as /proc/cmdline
	setup 'a opt=k=1\nb\n'
	printf '%s\n' 'a.p=x,"y z" "a.q=b c" a.r="s t" a.k=2 a.s=u"v w" b.x' >"$t/cmdline"
	cp "$t/cmdline" "$t/proc-cmdline"
	[ "$1" = same ] || : >"$t/proc-cmdline"
	MP_SHIM_CMDLINE=$t/proc-cmdline run_bare a b
	check "$1: exit 0" eq "$rc" 0
	check "$1: a's params, each once" eq "$(sed -n 's/.* start a 0 finit //p' "$t/log")" \
		'k=1 p=x,"y z" q="b c" r="s t" k=2 s=u"v w"'
	check "$1: b's" eq "$(sed -n 's/.* start b 0 finit //p' "$t/log")" 'x'
	: >"$t/log"
	MP_SHIM_CMDLINE=$t/cmdline run_bare --cmdline /proc/cmdline a
	check "$1: from /proc/cmdline, the same" eq "$(sed -n 's/.* start a 0 finit //p' "$t/log")" \
		'k=1 p=x,"y z" q="b c" r="s t" k=2 s=u"v w"'
}
