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

# --- the baked plan (baked.sh) ---

# bake the plan of the tree into $t/plan
bake() { "$bin" -d "$t/root" -S 1.0 --cmdline "" -C "$t/root/etc/modprobe.d" --bake-plan "$t/plan" \
	>"$t/bake.out" 2>&1; }
plan_of() { jq -S '{modules: [.modules[] | del(.ms, .start_ms, .end_ms, .worker)], waves, requests}' "$t/r.json"; }
same_plan() { # the requests, run with and without the plan
	rm -f "$t/r.json"
	run -n --plan "" "$@"
	plan_of >"$t/p0" || return 1
	rm -f "$t/r.json"
	run -n --plan "$t/plan" "$@"
	plan_of >"$t/p1" || return 1
	cmp -s "$t/p0" "$t/p1" || { diff "$t/p0" "$t/p1" | head -20 >&2; return 1; }
}
baked() { jq -r ".baked.$1" "$t/r.json"; }
