#!/bin/sh
# Where requests and options come from: modprobe.d, config files, the
# kernel command line, modules_load=; usage errors.
# Cases of tests/unit/cli.sh (t_NAME reports as cli/NAME), sourced by it
# after cli/lib.sh: setup, run, check and the other helpers are there.
# shellcheck disable=SC2034,SC2154 # RULES, OTHER: read by run; t, rc, bin...: set by cli.sh, lib.sh

# Options from modprobe.d and from the kernel command line reach the call.
t_options() {
	setup 'p opt=x=1+y=two\nq\n'
	echo 'q.z=3 p.w="a b" rd.modpreload.modules=q' >"$t/cmdline"
	run p
	check "exit 0" eq "$rc" 0
	check "p params" grep -q ' start p 0 finit x=1 y=two w="a b"$' "$t/log"
	check "q from cmdline, with its param" grep -q ' start q 0 finit z=3$' "$t/log"
	check "by source" eq "$(jq -c '[.requests.by_source.argument,.requests.by_source.cmdline]' "$t/r.json")" "[1,1]"
}

# modprobe.d's blacklist stops aliases, not names; modprobe.blacklist= too;
# module_blacklist= (the kernel refuses those) stops everything.
t_blacklist() {
	setup 'a alias=alias-a\nb alias=alias-b\nc\nd c\n'
	echo 'blacklist a' >"$t/root/etc/modprobe.d/bl.conf"
	echo 'modprobe.blacklist=b module_blacklist=c' >"$t/cmdline"
	run alias-a alias-b
	check "exit 0 (nothing to load is fine)" eq "$rc" 0
	check "no calls" eq "$(calls)" 0
	check "blacklisted" eq "$(jq .requests.blacklisted "$t/r.json")" 2
	run a d
	check "a by name loads" eq "$(starts a)" 1
	check "c never called" eq "$(starts c)" 0
	check "c excluded" eq "$(state c)" skipped
	check "d skipped because of c" eq "$(state d)" skipped
	check "exit 1: d could not load" eq "$rc" 1
}

# Each source of names follows the blacklist of the loader it stands in
# for (modpreload(8), SOURCES). modprobe NAME (the arguments, as the
# initramfs-tools hook's /conf/modules; rd.modpreload.modules=, dracut's
# rd.driver.pre=): aliases only. modprobe -b (-b on the arguments:
# mkinitcpio's MODULES), systemd-modules-load (modules-load.d style lists,
# modules_load=): names too, from modprobe.d and modprobe.blacklist= alike.
# Never what a name needs: a blacklisted dependency or softdep still loads,
# as kmod loads it.
t_blacklist_names() {
	# every run from nothing live and an empty log
	fresh() { rm -rf "${t:?}/sys/module" && mkdir "$t/sys/module" && : >"$t/log"; }
	setup 'a\nb a\nc\nd alias=alias-d\ne\nf\ng pre=f\n'
	printf 'blacklist a\nblacklist c\nblacklist d\nblacklist f\n' >"$t/root/etc/modprobe.d/bl.conf"
	echo 'modprobe.blacklist=e' >"$t/cmdline"
	fresh
	run a c e
	check "arguments: names load" eq "$(calls)" 3
	fresh
	run -b a c e alias-d
	check "-b: no call" eq "$(calls)" 0
	check "-b: each counted blacklisted" eq "$(jq .requests.blacklisted "$t/r.json")" 4
	check "-b: none in the plan" eq "$(jq '.modules | length' "$t/r.json")" 0
	fresh
	run --use-blacklist b g
	check "-b: a dependency still loads" eq "$(starts a)" 1
	check "-b: a softdep still loads" eq "$(starts f)" 1
	check "-b: what asked for them too" eq "$(calls)" 4
	printf 'a\nc\ne\nalias-d\nb\n' >"$t/list.conf"
	fresh
	run -c "$t/list.conf"
	check "list: only b, and a for it" eq "$(calls)" 2
	check "list: a as b's dependency" eq "$(jq -r '.modules[] | select(.name == "a") | .why' "$t/r.json")" \
		"dependency of b"
	check "list: blacklisted" eq "$(jq .requests.blacklisted "$t/r.json")" 4
	echo 'modprobe.blacklist=e modules_load=a,c,e,b' >"$t/cmdline"
	fresh
	run --modules-load
	check "modules_load=: only b, and a for it" eq "$(calls)" 2
	echo 'modprobe.blacklist=e rd.modpreload.modules=a,c rd.driver.pre=e' >"$t/cmdline"
	fresh
	run
	check "rd.modpreload.modules=, rd.driver.pre=: names load" eq "$(calls)" 3
	# one name from two sources: each by its own rule, whichever came first
	echo 'modules_load=a rd.driver.pre=a' >"$t/cmdline"
	fresh
	run --modules-load
	check "rd.driver.pre= after modules_load=: a loads" eq "$(starts a)" 1
	check "rd.driver.pre= after modules_load=: one blacklisted" eq "$(jq .requests.blacklisted "$t/r.json")" 1
	: >"$t/cmdline"
	fresh
	run -c "$t/list.conf" a
	check "argument and list: a loads once" eq "$(starts a)" 1
}

# --modules-load: modules_load= on the command line, as systemd-modules-load
# reads it (its directories are the host's: not touched here).
t_modules_load() {
	setup 'a\nb\n'
	echo 'modules_load=a modules-load=b' >"$t/cmdline"
	run
	check "not without --modules-load" eq "$(calls)" 0
	run --modules-load
	check "exit 0" eq "$rc" 0
	check "a and b" eq "$(calls)" 2
	check "from the command line" eq "$(jq .requests.by_source.cmdline "$t/r.json")" 2
}

# Config files, the kernel command line switch, usage errors.
t_config_usage() {
	setup 'a\nb\nc\n'
	printf '# list\na\n\n b \nnot a name\n' >"$t/list.conf"
	run -c "$t/list.conf"
	check "a and b from config" eq "$(calls)" 2
	check "bad line warned" grep -q "list.conf:5: not a module name" "$t/err"
	check "by source" eq "$(jq .requests.by_source.config "$t/r.json")" 2
	echo 'rd.modpreload=0' >"$t/cmdline"
	run c
	check "rd.modpreload=0: exit 0" eq "$rc" 0
	check "rd.modpreload=0: nothing" eq "$(starts c)" 0
	"$bin" -j 0 a >/dev/null 2>&1
	check "bad -j: exit 2" eq "$?" 2
	"$bin" --bogus >/dev/null 2>&1
	check "bad option: exit 2" eq "$?" 2
	"$bin" --help | grep -q -- --coldplug
	check "--help" eq "$?" 0
}

# A config file past 1 MiB is read whole: no line is cut at a buffer's
# end and requested cut ("nv" for "nvme_core"). One that never ends is
# refused by name.
t_config_big() {
	setup 'nv\nnvme_core\n'
	awk 'BEGIN { while (n < 1048573 - 100) { print "# padding padding padding padding padding"; n += 42 } }' >"$t/big.conf"
	pad=$((1048573 - $(stat -c %s "$t/big.conf") - 1))
	{ printf '#%*s\n' $((pad - 1)) '' | tr ' ' x; echo nvme_core; } >>"$t/big.conf"
	run -c "$t/big.conf"
	check "exit 0" eq "$rc" 0
	check "nvme_core loaded" live nvme_core
	check "nv never asked for" eq "$(starts nv)" 0
	check "one config request" eq "$(jq .requests.by_source.config "$t/r.json")" 1
	setup 'nv\n'
	run -c /dev/zero nv
	check "endless: nv still loads" live nv
	check "endless: refused by name" grep -q "/dev/zero: .*(EFBIG)" "$t/err"
}

# A name on the command line too long for any module is warned about,
# cut and escaped (it reaches the console), not dropped unseen.
t_cmdline_long() {
	setup 'a\n'
	long=$(printf '\033[2J%0300d' 0)
	echo "rd.modpreload.modules=a,$long" >"$t/cmdline"
	run
	check "a loaded" live a
	check "warned, escaped" grep -q 'rd.modpreload.modules (a name longer than 255 bytes: "\\x1b\[2J000.*\.\.\.")' "$t/err"
	check "no raw escape byte" eq "$(tr -dc '\033' <"$t/err" | wc -c)" 0
}

# libkmod parses modprobe.d before it can be given our log function: what
# it says about a garbage file still comes through our log, escaped, and
# never as raw bytes on the console.
t_kmod_config() {
	setup 'a\n'
	printf 'blacklist b\n\033[2J\001garbage here\n' >"$t/root/etc/modprobe.d/garbage.conf"
	run a
	check "exit 0" eq "$rc" 0
	check "a loaded" live a
	check "through our log, escaped" grep -q '^modpreload: .*garbage.conf.*\\x1b\[2J\\x01garbage' "$t/err"
	check "no raw control bytes" eq "$(tr -dc '\001\033' <"$t/err" | wc -c)" 0
	check "in the report" grep -q 'garbage.conf' "$t/r.json"
}
