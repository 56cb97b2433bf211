#!/bin/sh
# What reaches the kernel: each module once, in dependency order, softdeps
# before and after; modules already live, builtin, or loaded by someone else.
# Cases of tests/unit/cli.sh (t_NAME reports as cli/NAME), sourced by it
# after cli/lib.sh: setup, run, check and the other helpers are there.
# shellcheck disable=SC2034,SC2154 # RULES, OTHER: read by run; t, rc, bin...: set by cli.sh, lib.sh

# A chain with softdeps: everything loads once, in order.
t_basic() {
	setup 'a\nb a\nc b pre=d post=e\nd\ne\n'
	run c
	check "exit 0" eq "$rc" 0
	check "5 calls" eq "$(calls)" 5
	check "5 live" eq "$(ok_loads)" 5
	for m in a b c d e; do check "$m live" live $m; done
	check "a before b" before a b
	check "b before c" before b c
	check "pre d before c" before d c
	check "c before post e" before c e
	check "report: c loaded" eq "$(state c)" loaded
	check "report: wave of c" eq "$(jq '.modules[] | select(.name=="c") | .wave' "$t/r.json")" 2
}

# The storm: the same module asked for hundreds of times, by name, by
# alias with '-' for '_', and through dependencies: one load each.
t_duplicates() {
	setup 'base\nmid base\ntop mid alias=my-top-alias\nother base\n'
	set --
	i=0
	while [ $i -lt 100 ]; do
		set -- "$@" top my-top-alias my_top_alias other
		i=$((i + 1))
	done
	run "$@"
	check "exit 0" eq "$rc" 0
	check "4 calls" eq "$(calls)" 4
	for m in base mid top other; do check "$m once" eq "$(starts $m)" 1; done
	check "requests" eq "$(jq .requests.total "$t/r.json")" 400
	check "unique" eq "$(jq .unique "$t/r.json")" 4
	# 300 requests name top, 100 name other
	check "collapsed" eq "$(jq .duplicates_collapsed "$t/r.json")" $((299 + 99))
	# counting each request for everything it needs: top, mid 300 each,
	# base 400, other 100
	check "with dependencies" eq "$(jq .duplicates_with_dependencies "$t/r.json")" $((299 * 2 + 399 + 99))
	size=$(stat -c %s "$t/root/lib/modules/1.0/kernel/test/top.ko")
	check "bytes not read" eq "$(jq .bytes_not_read "$t/r.json")" $((299 * size + 99 * $(stat -c %s "$t/root/lib/modules/1.0/kernel/test/other.ko")))
}

# Already live and builtin modules are counted, not loaded.
t_live_builtin() {
	setup 'a\nb a\nc builtin\n'
	mkdir -p "$t/sys/module/a" && echo live >"$t/sys/module/a/initstate"
	run b c
	check "exit 0" eq "$rc" 0
	check "only b loaded" eq "$(calls)" 1
	check "a live" eq "$(state a)" live
	check "c builtin" eq "$(state c)" builtin
	check "counts" eq "$(jq -c '[.counts.loaded,.counts.live,.counts.builtin]' "$t/r.json")" "[1,1,1]"
}

# Someone else is loading our module (initstate "coming"): wait for it,
# never call finit_module for it.
t_other_loader() {
	setup 'a\nb a\n'
	mkdir -p "$t/sys/module/a" && echo coming >"$t/sys/module/a/initstate"
	# a rename, as the kernel's file never reads empty: truncating it in
	# place let modpreload see "" once on a busy machine and load a itself
	(sleep 0.5 && echo live >"$t/initstate.new" && mv "$t/initstate.new" "$t/sys/module/a/initstate") &
	run b
	wait
	check "exit 0" eq "$rc" 0
	check "a never called" eq "$(starts a)" 0
	check "b loaded after a went live" eq "$(starts b)" 1
	check "a live by someone else" eq "$(state a)" live
}

# A softdep cycle is broken with a warning; both load once.
t_softdep_cycle() {
	setup 'x pre=y\ny pre=x\n'
	run x
	check "exit 0" eq "$rc" 0
	check "2 calls" eq "$(calls)" 2
	check "warning" grep -q "softdep cycle" "$t/err"
	check "warning in report" eq "$(jq '.warnings | length' "$t/r.json")" 1
}

# A softdep that fails never fails its module.
t_softdep_fails() {
	setup 'main pre=pre post=post\npre\npost\n'
	RULES=pre:22:0
	run main
	check "main loaded" live main
	check "post loaded" live post
	check "pre failed" eq "$(state pre)" failed
	check "exit 1: pre did fail" eq "$rc" 1
}
