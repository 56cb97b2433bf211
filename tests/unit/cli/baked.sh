#!/bin/sh
# The plan baked at image build (--bake-plan, --plan).
# Cases of tests/unit/cli.sh (t_NAME reports as cli/NAME), sourced by it
# after cli/lib.sh: setup, run, check and the other helpers are there.
# shellcheck disable=SC2034,SC2154 # RULES, OTHER: read by run; t, rc, bin...: set by cli.sh, lib.sh

# A plan baked at image build: the same plan with it as without it (the
# modules, their paths, waves, edges, options and requests), the kernel
# command line still applied on top; a stale, damaged or other kernel's
# plan is a warning and libkmod resolves; what it does not cover (an
# alias from modprobe.d) goes to libkmod and is counted.
t_baked() {
	setup 'a\nb a alias=alias-b\nc b pre=d post=e opt=x=1\nd\ne\nf builtin\ng alias=pci:v00001234d*\nh a alias=pci:v00001234d0000ABCD*\n'
	printf 'blacklist g\nalias myalias a\noptions b z=9\n' >"$t/root/etc/modprobe.d/more.conf"
	echo 'c.y=2 b.w=3 modprobe.blacklist=h' >"$t/cmdline"
	check "bake: exit 0" bake
	check "bake: the key" grep -q "^key $(stat -c %s "$t/root/lib/modules/1.0/modules.dep.bin") " "$t/plan"
	check "bake: no command line in it" eq "$(grep -c 'y=2\|w=3' "$t/plan")" 0
	check "same plan" same_plan c alias-b f pci:v00001234d0000ABCDsv0 pci:v00001234d00000001 nosuch pci:v9
	check "used" eq "$(baked state)" used
	check "nothing fell back" eq "$(baked fell_back)" 0
	check "command line options" eq "$(jq -r '.modules[] | select(.name=="c") | .options' "$t/r.json")" "x=1 y=2"
	check "modprobe.d blacklist on the alias" eq "$(jq .requests.blacklisted "$t/r.json")" 2
	run c alias-b --plan "$t/plan"
	check "loads: exit 0" eq "$rc" 0
	check "loads: c with both options" grep -q ' start c 0 finit x=1 y=2$' "$t/log"
	check "loads: b with both options" grep -q ' start b 0 finit z=9 w=3$' "$t/log"
	check "loads: 5 calls" eq "$(calls)" 5
	check "loads: d before c" before d c

	# modprobe.d's alias: libkmod's
	check "same plan, alias from modprobe.d" same_plan myalias c
	check "not covered: counted" eq "$(baked fell_back)" 1
	check "not covered: a planned" eq "$(jq -r ".modules[0].name" "$t/r.json")" a

	# another kernel, another tree, a damaged file: libkmod, and a warning
	sed 's/^kernel 1.0$/kernel 9.9/' "$t/plan" >"$t/plan.k" && mv "$t/plan.k" "$t/plan"
	check "other kernel: same plan" same_plan c
	check "other kernel: ignored" eq "$(baked state)" ignored
	check "other kernel: warned" grep -q "baked plan .*: baked for kernel 9.9" "$t/err"
	bake
	head -c 300 "$t/plan" >"$t/plan.cut" && mv "$t/plan.cut" "$t/plan"
	check "cut short: same plan" same_plan c
	check "cut short: ignored" eq "$(baked state)" ignored
	bake
	mv "$t/plan" "$work/plan"
	setup 'a\nb a alias=alias-b\nc b pre=d post=e opt=x=1\nd\ne\nz\n'
	mv "$work/plan" "$t/plan"
	check "stale: same plan" same_plan c
	check "stale: ignored" eq "$(baked state)" ignored
	check "stale: warned" grep -q "baked plan .*another modules.dep.bin" "$t/err"
	run -n --plan "$t/nowhere" c
	check "missing: ignored" eq "$(baked state)" ignored
	run -n c
	check "none by default" eq "$(baked state)" none

	# libkmod is opened only for what the plan does not cover: a damaged
	# modules.alias.bin goes unnoticed (unread) until then
	bake
	al=$t/root/lib/modules/1.0/modules.alias.bin
	head -c $(($(stat -c %s "$al") - 3)) "$al" >"$al.cut" && mv "$al.cut" "$al"
	run --plan "$t/plan" c
	check "covered: libkmod's indexes not read" eq "$(grep -c 'modules.alias.bin' "$t/err")" 0
	check "covered: c loaded" live c
	echo 'alias myalias a' >"$t/root/etc/modprobe.d/more.conf"
	bake
	head -c $(($(stat -c %s "$al") - 3)) "$al" >"$al.cut" && mv "$al.cut" "$al"
	run --plan "$t/plan" myalias
	check "not covered: libkmod opened, its index checked" grep -q "modules.alias.bin: corrupt" "$t/err"
	check "not covered: a loaded" live a

	# module_blacklist= (the kernel refuses those) stops a module from the plan too
	echo 'module_blacklist=e' >"$t/cmdline"
	rm -rf "${t:?}/sys/module"/*
	check "module_blacklist=: same plan" same_plan c
	check "module_blacklist=: e excluded" eq "$(state e)" skipped
}
