#!/bin/sh
# The modpreload CLI against fake module trees, with the LD_PRELOAD shim
# (tests/shim/shim.c) standing in for the kernel's finit_module and
# init_module. Assertions are on what the "kernel" saw (the shim's log and
# its fake sysfs), and on the report where the report is the thing tested.
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
t_start() { awk -v m="$1" '$2 == "start" && $3 == m { print $1; exit }' "$t/log"; }
t_end() { awk -v m="$1" '$2 == "end" && $3 == m { print $1; exit }' "$t/log"; }
before() { # $1 ended before $2 started
	[ -n "$(t_end "$1")" ] && [ -n "$(t_start "$2")" ] && [ "$(t_end "$1")" -le "$(t_start "$2")" ]
}
state() { jq -r --arg m "$1" '.modules[] | select(.name == $m) | .state' "$t/r.json"; }
live() { [ "$(cat "$t/sys/module/$1/initstate" 2>/dev/null)" = live ]; }
eq() { [ "$1" = "$2" ] || { echo "    got '$1', want '$2'" >&2; return 1; }; }

# --- the cases ---

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

# A failing init(): only its dependents are skipped, the rest loads, the
# exit status and the report say so, and the message names module and errno.
t_failure() {
	setup 'a\nb a\nc b post=e\nd a\ne\nf\n'
	RULES=b:19:0
	run c d f
	check "exit 1" eq "$rc" 1
	check "b tried once" eq "$(starts b)" 1
	check "c never tried" eq "$(starts c)" 0
	for m in a d e f; do check "$m live" live $m; done
	check "report b failed" eq "$(state b)" failed
	check "report b errno" eq "$(jq -r '.modules[] | select(.name=="b") | .error' "$t/r.json")" ENODEV
	check "report c skipped" eq "$(state c)" skipped
	check "message names b" grep -q "failed: b: init() found no device (ENODEV)" "$t/err"
	check "message says why c" grep -q "skipped: c: depends on b, which failed (ENODEV)" "$t/err"
}

# An init() that returns EBUSY: the module is gone when the call returns,
# so nobody else is loading it and asking again would only run its init()
# again. One call, a failure naming it and EBUSY, its dependent skipped.
t_busy() {
	setup 'a\nbusy a\nkid busy\nfree a\n'
	RULES=busy:16:0
	run kid free
	check "exit 1" eq "$rc" 1
	check "busy tried once" eq "$(starts busy)" 1
	check "kid never tried" eq "$(starts kid)" 0
	check "free live" live free
	check "report busy failed" eq "$(state busy)" failed
	check "report busy errno" eq "$(jq -r '.modules[] | select(.name=="busy") | .error' "$t/r.json")" EBUSY
	check "report kid skipped" eq "$(state kid)" skipped
	check "message names busy and EBUSY" grep -q "failed: busy: .*init() returned EBUSY.*(EBUSY)" "$t/err"
	check "message says why kid" grep -q "skipped: kid: depends on busy, which failed (EBUSY)" "$t/err"
}

# An init() that returns EEXIST (a cpufreq driver while another one is
# registered): nothing is loaded, so it is a failure, not "already live"
# (what a duplicate of a live module hears), after one call.
t_init_eexist() {
	setup 'a\nexist a\nkid exist\nfree a\n'
	RULES=exist:17:0
	run kid free
	check "exit 1" eq "$rc" 1
	check "exist tried once" eq "$(starts exist)" 1
	check "kid never tried" eq "$(starts kid)" 0
	check "report exist failed" eq "$(state exist)" failed
	check "report exist errno" eq "$(jq -r '.modules[] | select(.name=="exist") | .error' "$t/r.json")" EEXIST
	check "message names exist and EEXIST" grep -q "failed: exist: init() found its place taken.*(EEXIST)" "$t/err"
	check "message says why kid" grep -q "skipped: kid: depends on exist, which failed (EEXIST)" "$t/err"
	check "free live" live free
}

# An init() that never returns: we give up on it after --timeout, skip its
# dependents, load the rest, and return.
t_hang() {
	setup 'a\nhang a\nkid hang\nfree a\n'
	RULES=hang:0:30000
	start=$(date +%s)
	run -t 1 -j 1 kid free
	took=$(($(date +%s) - start))
	check "exit 1" eq "$rc" 1
	check "returned within the timeout" [ "$took" -le 5 ]
	check "free loaded (the pool got a new worker)" live free
	check "kid never tried" eq "$(starts kid)" 0
	check "report hung" eq "$(state hang)" hung
	check "report kid skipped" eq "$(state kid)" skipped
	check "message names it" grep -q "hung: hang" "$t/err"
}

# EBUSY is retried only while someone else's load of the same module is
# coming; a module whose own init() says EBUSY fails after one call, and
# the message says what EBUSY means for it.
t_ebusy() {
	setup 'a\nb a\nc\n'
	RULES=b:16:0
	run b c
	check "exit 1" eq "$rc" 1
	check "b called once" eq "$(starts b)" 1
	check "report: b failed with EBUSY" eq "$(jq -r '.modules[] | select(.name=="b") | "\(.state) \(.error)"' "$t/r.json")" "failed EBUSY"
	check "c loaded" live c
	check "message names b and EBUSY" grep -q "failed: b: .*(EBUSY)" "$t/err"
	check "not 'still loading'" eq "$(grep -c 'still loading' "$t/err")" 0
	# someone else's load is coming when we call: we wait for it
	setup 'a\nb a\n'
	OTHER=b:300:live
	run b
	check "other live: exit 0" eq "$rc" 0
	check "other live: b called once" eq "$(starts b)" 1
	check "other live: b live" eq "$(state b)" live
	# ... and when it fails, we load it ourselves
	setup 'a\nb a\n'
	OTHER=b:300:gone
	run b
	check "other gone: exit 0" eq "$rc" 0
	check "other gone: b called again" eq "$(starts b)" 2
	check "other gone: b loaded" eq "$(state b)" loaded
}

# A load given up on as hung is never tried again, though the other load
# it waited behind goes away while the rest of the plan is still running.
t_ebusy_hung() {
	setup 'b\nkid b\ns1\ns2 s1\ns3 s2\ns4 s3\n'
	# b is given up on at 2 s, the other load goes at 3 s, the chain runs
	# to 4 s; each link has a second to spare for a loaded host
	RULES=b:0:800,s1:0:1000,s2:0:1000,s3:0:1000,s4:0:1000
	OTHER=b:3000:gone
	run -t 2 -j 4 kid s4
	check "exit 1" eq "$rc" 1
	check "s4 loaded" live s4
	# the scheduler's verdict (hung) or the wait's own (still coming at
	# the deadline), whichever came first
	check "b given up on" grep -q -e "hung: b" -e "failed: b: still coming after the timeout" "$t/err"
	check "kid skipped" eq "$(state kid)" skipped
	check "b called once" eq "$(starts b)" 1
	check "b not loaded behind its dependents' backs" [ ! -e "$t/sys/module/b/initstate" ]
}

# The scheduler's loop stops on an error (no thread to replace a hung
# worker) while another worker is inside a hung init(): nothing waits for
# that init() beyond its own bound, and the report says what happened.
t_loop_error() {
	setup 'h1\nd\nh2 d\nkid h2\n'
	RULES=h1:0:30000,d:0:400,h2:0:30000
	start=$(date +%s)
	MP_SHIM_THREADS=2
	export MP_SHIM_THREADS
	run -t 1 -j 2 h1 kid
	unset MP_SHIM_THREADS
	took=$(($(date +%s) - start))
	check "exit 1" eq "$rc" 1
	check "returned within the bound, not after the hung init()" [ "$took" -le 5 ]
	check "says why it stopped" grep -q "stopped: .*(EAGAIN)" "$t/err"
	check "d loaded" live d
	check "h1 hung" eq "$(state h1)" hung
	check "h2 hung" eq "$(state h2)" hung
	check "kid never tried" eq "$(starts kid)" 0
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

# Compressed modules: userspace decompression when the kernel cannot, the
# kernel's own when /sys/module/compression says it can.
t_compressed() {
	setup 'z comp=zstd\nx comp=xz\nplain\n'
	run z x plain
	check "exit 0" eq "$rc" 0
	check "zstd via init_module" grep -q ' start z 0 init ' "$t/log"
	check "xz via init_module" grep -q ' start x 0 init ' "$t/log"
	check "plain via finit" grep -q ' start plain 0 finit ' "$t/log"
	check "3 live" eq "$(ok_loads)" 3
	setup 'z comp=zstd\nx comp=xz\n'
	echo xz >"$t/sys/module/compression"
	run z x
	check "xz handed to the kernel" grep -q ' start x 0 finit+compressed ' "$t/log"
	check "zstd still in userspace" grep -q ' start z 0 init ' "$t/log"
}

# Decompression bombs (a module plus hundreds of MiB of zeros, a few KiB
# compressed; gzip's are in test_parse: the host's depmod cannot read
# .ko.gz): the images of all workers together stay within one budget
# of 256 MiB, so two of 150 MiB are never in memory at once and each waits
# for the other; one larger than the whole budget fails alone, by name.
t_bombs() {
	setup 'z1 comp=zstd pad=150\nz2 comp=zstd pad=150\nx comp=xz pad=150\nbig comp=zstd pad=300\nsmall comp=zstd\n'
	RULES=z1:0:1000,z2:0:1000,x:0:300
	# each waits for the one before to give its memory back: under TSan on a
	# loaded host that is minutes, which the default 60 s would call hung
	run -j 4 -t 900 z1 z2 x big small
	check "exit 1" eq "$rc" 1
	for m in z1 z2 x small; do check "$m loaded" eq "$(state $m)" loaded; done
	max=$(grep -e ' z1 ' -e ' z2 ' -e ' x ' "$t/log" | sort -n |
		awk '$2=="start"{n++} $2=="end"{n--} n>m{m=n} END{print m}')
	check "one 150 MiB image in memory at a time" eq "$max" 1
	check "big never called" eq "$(starts big)" 0
	check "report: big failed with EFBIG" eq "$(jq -r '.modules[] | select(.name=="big") | "\(.state) \(.error)"' "$t/r.json")" "failed EFBIG"
	check "message names big, the limit and EFBIG" grep -q "failed: big: .*256 MiB.*(EFBIG)" "$t/err"
}

# A load that waits for memory and finds none reports ENOMEM, not a hung
# init() it never reached: its own wait ends before the scheduler's
# verdict. Whichever of z1, z2 goes first holds 150 MiB in an init() that
# never returns; the other waits for room until just before its time is up.
t_bombs_wait() {
	setup 'z1 comp=zstd pad=150\nz2 comp=zstd pad=150\n'
	RULES=z1:0:60000,z2:0:60000
	run -j 2 -t 10 z1 z2
	check "exit 1" eq "$rc" 1
	check "one hung, one failed" eq "$(jq -r '[.modules[].state] | sort | join(" ")' "$t/r.json")" "failed hung"
	check "the failed one: ENOMEM" eq "$(jq -r '.modules[] | select(.state=="failed") | .error' "$t/r.json")" ENOMEM
	check "one call in all" eq "$(calls)" 1
}

# A report whose directory cannot be made says mkdir's errno (here EROFS,
# a read-only mount), not the ENOENT of the file it then cannot create.
t_report_rofs() {
	setup 'a\n'
	mkdir -p "$t/ro"
	# shellcheck disable=SC2016 # expanded by the inner shell
	LD_PRELOAD=$shim MP_SHIM_SYSFS=$t/sys MP_SHIM_LOG=$t/log unshare -m sh -c \
		'mount -t tmpfs -o ro none "$1/ro" && shift && exec "$@"' _ "$t" \
		"$bin" -d "$t/root" -S 1.0 --sysfs "$t/sys" --cmdline "$t/cmdline" \
		--no-default-config -r "$t/ro/sub/r.json" a >"$t/out" 2>"$t/err"
	rc=$?
	check "exit 4" eq "$rc" 4
	check "a loaded all the same" live a
	check "mkdir's errno" grep -q "$t/ro/sub/r.json: cannot write the report: Read-only file system (EROFS)" "$t/err"
}

# --waves: no module of a wave starts before the previous wave ended.
t_waves() {
	setup 'a\nb\nc a\nd b\ne c\n'
	RULES=a:0:300,d:0:100
	run --waves -j 4 e d
	check "exit 0" eq "$rc" 0
	check "wave 0 (a) before wave 1 (d)" before a d
	check "wave 1 (c) after a" before a c
	setup 'a\nb\nc a\nd b\ne c\n'
	RULES=a:0:300,d:0:100
	run -j 4 e d
	check "dataflow: d starts before a ends" [ "$(t_start d)" -lt "$(t_end a)" ]
	check "mode" eq "$(jq -r .mode "$t/r.json")" dataflow
}

# Independent modules overlap; -j bounds how many run at once (with
# --pool=fixed, whatever they do; see t_pool for the adaptive pool).
t_parallel() {
	spec=
	for i in 0 1 2 3 4 5 6 7; do spec="${spec}p$i\n"; done
	setup "$spec"
	RULES='*:0:200'
	run -j 3 --pool fixed p0 p1 p2 p3 p4 p5 p6 p7
	check "exit 0" eq "$rc" 0
	check "at most 3 at once" [ "$(most_at_once)" -le 3 ]
	check "really parallel" [ "$(most_at_once)" -ge 2 ]
}

# the most loads the shim saw at once
most_at_once() { sort -n "$t/log" | awk '$2=="start"{n++} $2=="end"{n--} n>m{m=n} END{print m+0}'; }
# the order of the starts, names only
starts_in_order() { sort -n "$t/log" | awk '$2=="start"{printf "%s ", $3}'; }
first_two() { starts_in_order | awk -v m="$1" '{ exit !($1 == m || $2 == m) }'; }

# Critical path first. Six short independent loads, asked for first, and a
# chain c1 < c2 < c3 < c4 of the same length each; two workers. In arrival
# order the chain starts after the six (7 x 200 ms); by the longest chain
# it starts at once and the six fill the other worker (about 5 x 200 ms).
# The order is the proof; how much sooner it ends is the benchmark's
# business (a timed check here flaked on a loaded host).
t_fifo_worse() {
	dag='s1\ns2\ns3\ns4\ns5\ns6\nc1\nc2 c1\nc3 c2\nc4 c3\n'
	setup "$dag"
	RULES='*:0:200'
	run -j 2 --pool fixed --order fifo s1 s2 s3 s4 s5 s6 c4
	check "fifo: exit 0" eq "$rc" 0
	check "fifo: c1 after every s" eq "$(starts_in_order | sed 's/ $//' | awk '{print $7}')" c1
	setup "$dag"
	RULES='*:0:200'
	run -j 2 --pool fixed s1 s2 s3 s4 s5 s6 c4
	check "critical: exit 0" eq "$rc" 0
	check "critical: c1 among the first two" first_two c1
	check "critical: the order in the report" eq "$(jq -r .profile.order "$t/r.json")" critical
}

# The pool follows the CPU: loads asleep in init() do not hold back the
# others (eight 400 ms sleeps at -j 2 overlap far beyond 2), loads that
# burn the CPU never run more than -j at once, nor do loads asleep before
# their init() (not yet "coming": that sleep ends in CPU work). Adaptive is
# the default; a job count given makes it fixed.
t_pool() {
	spec=
	for i in 0 1 2 3 4 5 6 7; do spec="${spec}p$i\n"; done
	setup "$spec"
	RULES='*:0:400'
	run -j 2 --pool fixed p0 p1 p2 p3 p4 p5 p6 p7
	check "fixed: -j at once" eq "$(most_at_once)" 2
	setup "$spec"
	RULES='*:0:400'
	run -j 2 --pool adaptive p0 p1 p2 p3 p4 p5 p6 p7
	check "sleeping: exit 0" eq "$rc" 0
	check "sleeping: more than -j at once ($(most_at_once))" [ "$(most_at_once)" -ge 4 ]
	check "sleeping: the pool in the report" eq "$(jq -r .profile.pool "$t/r.json")" adaptive
	setup "$spec"
	RULES='*:0:150:spin'
	run -j 2 --pool adaptive p0 p1 p2 p3 p4 p5 p6 p7
	check "spinning: exit 0" eq "$rc" 0
	check "spinning: never more than -j at once ($(most_at_once))" [ "$(most_at_once)" -le 2 ]
	setup "$spec"
	RULES='*:0:300:pre'
	run -j 2 --pool adaptive p0 p1 p2 p3 p4 p5 p6 p7
	check "asleep before init(): exit 0" eq "$rc" 0
	check "asleep before init(): never more than -j at once ($(most_at_once))" [ "$(most_at_once)" -le 2 ]
	setup 'p0\n'
	run p0
	check "default: adaptive" eq "$(jq -r .profile.pool "$t/r.json")" adaptive
	run -j 3 p0
	check "-j: fixed" eq "$(jq -r .profile.pool "$t/r.json")" fixed
	echo 'rd.modpreload.jobs=3' >"$t/cmdline"
	run p0
	check "rd.modpreload.jobs=: fixed" eq "$(jq -r .profile.pool "$t/r.json")" fixed
}

# The profile: written where asked, read back, and it orders loads.
# x and y are alike on disk; the profile says y is slow, so with one
# worker y goes first. Bad profiles are warnings, never failures.
t_profile() {
	setup 'x\ny\nz x\n'
	run --profile-out "$t/profile" z y
	check "exit 0" eq "$rc" 0
	check "written where asked" eq "$(sed -n '1,2p' "$t/profile" | tr '\n' ' ')" "modpreload-profile 1 kernel 1.0 "
	check "one line a load, by name" eq "$(sed -n '3,$p' "$t/profile" | cut -d' ' -f1 | tr '\n' ' ')" "x y z "
	check "no profile used" eq "$(jq -r .profile.state "$t/r.json")" none
	printf 'modpreload-profile 1\nkernel 1.0\nx 10\ny 500000\n' >"$work/p"
	setup 'x\ny\nz x\n'
	run -j 1 --profile "$work/p" --profile-out "$work/p2" x y
	check "with a profile: exit 0" eq "$rc" 0
	check "y first" eq "$(starts_in_order)" "y x "
	check "used" eq "$(jq -r .profile.state "$t/r.json")" used
	check "known" eq "$(jq -r '.modules[] | select(.name=="y") | .expected_from' "$t/r.json")" profile
	check "expected" eq "$(jq -r '.modules[] | select(.name=="y") | .expected_ms' "$t/r.json")" 500
	check "summary" grep -q "profile $work/p: 2 of 2 loads known; the most moved: y" "$t/err"
	check "--profile-out" grep -q '^x [0-9]*$' "$work/p2"
	check "not beside the report then" [ ! -e "$t/profile" ]
	# another kernel, garbage, a newer version, cut lines: warnings
	printf 'modpreload-profile 1\nkernel 9.9\ny 500000\n' >"$work/p"
	setup 'x\ny\n'
	run --profile "$work/p" x y
	check "other kernel: exit 0" eq "$rc" 0
	check "other kernel: said" grep -q "profile $work/p: made on kernel 9.9, not 1.0: ignored" "$t/err"
	check "other kernel: ignored" eq "$(jq -r .profile.state "$t/r.json")" ignored
	head -c 3000 /dev/urandom >"$work/p"
	setup 'x\ny\n'
	run --profile "$work/p" x y
	check "garbage: exit 0" eq "$rc" 0
	check "garbage: said" grep -q "profile $work/p: not a modpreload profile" "$t/err"
	check "garbage: both loaded" eq "$(ok_loads)" 2
	printf 'modpreload-profile 2\nkernel 1.0\n' >"$work/p"
	setup 'x\n'
	run --profile "$work/p" x
	check "version 2: said" grep -q "a profile version this modpreload does not know" "$t/err"
	printf 'modpreload-profile 1\nkernel 1.0\nx 5\n../y 7\ny\ny 99999999999\nx 6' >"$work/p"
	setup 'x\n'
	run --profile "$work/p" x
	check "bad lines: exit 0" eq "$rc" 0
	check "bad lines: counted" grep -q "profile $work/p: 3 lines not understood, skipped" "$t/err"
	check "bad lines: the rest used" eq "$(jq -r '.modules[] | select(.name=="x") | .expected_ms' "$t/r.json")" 0.006
	rm -f "$work/p"
	setup 'x\n'
	run --profile "$work/p" x
	check "missing: exit 0" eq "$rc" 0
	check "missing: said" grep -q "profile $work/p: .*ENOENT" "$t/err"
}

# A name not in the tree: error naming it, exit 1, the rest loads.
t_missing() {
	setup 'a\n'
	run nosuch a
	check "exit 1" eq "$rc" 1
	check "a loaded" live a
	check "message" grep -q "not found: nosuch" "$t/err"
	check "report" eq "$(jq -r '.requests.missing_names[0]' "$t/r.json")" nosuch
}

# Names that look like paths never reach the indexes; a symlink in the
# tree pointing outside it is not followed.
t_paths() {
	setup 'a\nb\n'
	run ../../a /tmp/x.ko a..b a
	check "exit 0: refused names are not failures of modules" eq "$rc" 0
	check "refused 3" eq "$(jq .requests.refused "$t/r.json")" 3
	check "a loaded" live a
	setup 'a\nb\n'
	d=$t/root/lib/modules/1.0/kernel/test
	cp "$d/b.ko" "$work/outside.ko"
	rm "$d/b.ko"
	ln -s "$work/outside.ko" "$d/b.ko"
	run b
	check "b refused" eq "$(state b)" failed
	check "b never called" eq "$(starts b)" 0
	check "exit 1" eq "$rc" 1
}

# The index names a file that is gone: the module fails with what the
# file system said (not the kernel's meaning of ENOENT), its dependent is
# skipped, the rest loads.
t_missing_file() {
	setup 'a\nb\nc b\n'
	rm "$t/root/lib/modules/1.0/kernel/test/b.ko"
	run a c
	check "exit 1" eq "$rc" 1
	check "a loaded" live a
	check "b failed" eq "$(state b)" failed
	check "b never called" eq "$(starts b)" 0
	check "c skipped" eq "$(state c)" skipped
	check "report errno" eq "$(jq -r '.modules[] | select(.name == "b") | .error' "$t/r.json")" ENOENT
	check "report says the file" grep -q '"message": *"[^"]*/b.ko: No such file or directory"' "$t/r.json"
	check "summary says the file" grep -q "failed: b: .*/b.ko: No such file or directory (ENOENT)" "$t/err"
}

# One file on a modules.dep line is gone: only it fails. libkmod then
# drops the whole line; the healthy dependencies on it are still planned
# as usual, whichever request comes first (coldplug's order is the
# kernel's, not ours).
t_missing_sibling() {
	for order in "top other" "other top"; do
		setup 'base\nsib base\ngone\ntop sib gone\nother sib\n'
		rm "$t/root/lib/modules/1.0/kernel/test/gone.ko"
		# shellcheck disable=SC2086 # two names
		run $order
		check "$order: exit 1" eq "$rc" 1
		check "$order: gone failed" eq "$(state gone)" failed
		check "$order: gone ENOENT" eq "$(jq -r '.modules[] | select(.name == "gone") | .error' "$t/r.json")" ENOENT
		check "$order: top skipped" eq "$(state top)" skipped
		for m in base sib other; do
			check "$order: $m loaded" live $m
			check "$order: $m once" eq "$(starts $m)" 1
		done
		check "$order: base before sib" before base sib
		check "$order: 3 calls" eq "$(calls)" 3
	done
}

# A corrupt or missing modules.dep.bin: a clear error, exit 3, no crash.
t_bad_index() {
	setup 'a\n'
	dep=$t/root/lib/modules/1.0/modules.dep.bin
	head -c $(($(stat -c %s "$dep") / 2)) "$dep" >"$dep.cut" && mv "$dep.cut" "$dep"
	run a
	check "truncated: exit 3" eq "$rc" 3
	check "names the file" grep -q "modules.dep.bin: corrupt" "$t/err"
	rm "$dep"
	run a
	check "missing: exit 3" eq "$rc" 3
	check "says missing" grep -q "modules.dep.bin: missing" "$t/err"
	check "no calls" eq "$(calls)" 0
	# a file that cannot be read (here a directory: mmap says ENODEV) is
	# no fault of depmod's
	mkdir "$dep"
	run a
	check "unreadable: exit 3" eq "$rc" 3
	check "says unreadable" grep -q "modules.dep.bin: unreadable (ENODEV)$" "$t/err"
	check "unreadable: no depmod advice" eq "$(grep -c "run depmod" "$t/err")" 0
	setup 'a alias=x\nb\n'
	al=$t/root/lib/modules/1.0/modules.alias.bin
	head -c $(($(stat -c %s "$al") - 3)) "$al" >"$al.cut" && mv "$al.cut" "$al"
	run x b
	check "bad alias index: b still loads" live b
	check "bad alias index: warned" grep -q "modules.alias.bin: corrupt" "$t/err"
	run -d "$work/nowhere" a
	check "no module dir: exit 3" eq "$rc" 3
}

# The dry run loads nothing, needs nothing, and prints the plan as JSON.
t_dry_run() {
	setup 'a\nb a\nc b\n'
	LD_PRELOAD=$shim MP_SHIM_LOG=$t/log "$bin" -n -d "$t/root" -S 1.0 --sysfs "$t/sys" \
		--cmdline '' --no-default-config c >"$t/out" 2>"$t/err"
	rc=$?
	check "exit 0" eq "$rc" 0
	check "no calls" eq "$(calls)" 0
	check "planned" eq "$(jq -r '[.modules[].state] | unique | join(",")' "$t/out")" planned
	check "waves" eq "$(jq -c '[.waves[].modules]' "$t/out")" '[["a"],["b"],["c"]]'
	check "why" eq "$(jq -r '.modules[] | select(.name=="a") | .why' "$t/out")" "dependency of c"
	check "critical path" eq "$(jq -c .critical_path.modules "$t/out")" '["a","b","c"]'
}

# Coldplug of a fake sysfs: 16 "CPUs" with the same modalias, devices in a
# modalias file-less uevent: one load per module.
t_coldplug() {
	setup 'cpumod alias=cpu:type:x86,ven*fam*mod*:feature:*0001*\nplat alias=platform:thing\n'
	i=0
	while [ $i -lt 16 ]; do
		mkdir -p "$t/sys/devices/system/cpu/cpu$i"
		printf 'DRIVER=processor\nMODALIAS=cpu:type:x86,ven0000fam0006mod003F:feature:,0000,0001,0002\n' \
			>"$t/sys/devices/system/cpu/cpu$i/uevent"
		i=$((i + 1))
	done
	mkdir -p "$t/sys/devices/platform/thing.0" "$t/sys/devices/platform/other"
	echo 'MODALIAS=platform:thing' >"$t/sys/devices/platform/thing.0/uevent"
	echo 'MODALIAS=platform:nobody' >"$t/sys/devices/platform/other/uevent"
	ln -s ../../devices "$t/sys/devices/platform/loop"
	run --coldplug --settle-ms 50
	check "exit 0" eq "$rc" 0
	check "2 calls" eq "$(calls)" 2
	check "coldplug requests" eq "$(jq .requests.by_source.coldplug "$t/r.json")" 18
	check "unmatched" eq "$(jq .requests.unmatched "$t/r.json")" 1
	check "collapsed" eq "$(jq .duplicates_collapsed "$t/r.json")" 15
}

# A driver coldplug matched whose init() finds no device (ENODEV) is
# reported but not a failure; the same module asked for by name is. A DMI
# modalias (slashes in its date) is looked up, not refused.
t_no_device() {
	setup 'nodev alias=platform:nodev\nkid nodev alias=platform:kid\nok alias=dmi:*svnQEMU*\n'
	mkdir -p "$t/sys/devices/platform/x" "$t/sys/devices/platform/y" "$t/sys/devices/virtual/dmi/id"
	echo 'MODALIAS=platform:nodev' >"$t/sys/devices/platform/x/uevent"
	echo 'MODALIAS=platform:kid' >"$t/sys/devices/platform/y/uevent"
	echo 'MODALIAS=dmi:bvnSeaBIOS:bd04/01/2014:svnQEMU:pnStandardPC(i440FX+PIIX,1996):' \
		>"$t/sys/devices/virtual/dmi/id/uevent"
	RULES=nodev:19:0
	run --coldplug --settle-ms 20
	check "exit 0" eq "$rc" 0
	check "ok loaded through the DMI alias" eq "$(starts ok)" 1
	check "nodev failed" eq "$(state nodev)" failed
	check "no_device" eq "$(jq '.modules[] | select(.name=="nodev") | .no_device' "$t/r.json")" true
	check "kid skipped, no_device" eq "$(jq -r '.modules[] | select(.name=="kid") | "\(.state) \(.no_device)"' "$t/r.json")" "skipped true"
	check "nothing refused" eq "$(jq .requests.refused "$t/r.json")" 0
	run --coldplug --settle-ms 20 nodev
	check "asked by name: exit 1" eq "$rc" 1
	# skipped for a dependency that hung, not for one that found no device:
	# a problem, not news (and never on the no-device blacklist)
	setup 'slow\nhkid slow alias=cpu:type:x86,ven*fam*mod*:feature:*0001*\n'
	mkdir -p "$t/sys/devices/system/cpu/cpu0"
	echo 'MODALIAS=cpu:type:x86,ven0000fam0006mod003F:feature:,0000,0001' \
		>"$t/sys/devices/system/cpu/cpu0/uevent"
	RULES=slow:0:30000
	run --coldplug --settle-ms 20 -t 1 --nodev-blacklist "$t/bl.conf"
	check "hung dependency: exit 1" eq "$rc" 1
	check "hung dependency: skipped, not no_device" eq \
		"$(jq -r '.modules[] | select(.name=="hkid") | "\(.state) \(.no_device)"' "$t/r.json")" "skipped false"
	check "hung dependency: not blacklisted" test ! -e "$t/bl.conf"
}

# --nodev-blacklist: a driver only CPUs asked for whose init() said ENODEV
# is blacklisted (appended, so an earlier run's lines stay); one a platform
# device asked for too, one that failed otherwise, and a name given on the
# command line are not. The next run leaves the blacklisted one alone but
# still loads it by name; modpreload.nodev=0 writes nothing.
t_nodev() {
	setup 'cpunodev alias=cpu:type:x86,ven*fam*mod*:feature:*0001*\nshared alias=cpu:type:x86,ven*fam*mod*:feature:*0002*\ncpubusy alias=cpu:type:x86,ven*fam*mod*:feature:*0001*\ncpulate alias=cpu:type:x86,ven*fam*mod*:feature:*0001*\ncpuexist alias=cpu:type:x86,ven*fam*mod*:feature:*0001*\nedacdep\nedac edacdep alias=cpu:type:x86,ven*fam*mod*:feature:*0002*\nfreq alias=acpi*:LNXCPU:*\n'
	# "shared" stands for a driver that a PCI device's alias matches too
	printf 'alias platform:shared shared\n' >"$t/root/etc/modprobe.d/alias.conf"
	i=0
	while [ $i -lt 4 ]; do
		mkdir -p "$t/sys/devices/system/cpu/cpu$i"
		echo 'MODALIAS=cpu:type:x86,ven0000fam0006mod003F:feature:,0000,0001,0002' \
			>"$t/sys/devices/system/cpu/cpu$i/uevent"
		i=$((i + 1))
	done
	# the ACPI processor objects: acpi-cpufreq and pcc-cpufreq match them
	mkdir -p "$t/sys/devices/LNXSYSTM:00/LNXCPU:00"
	echo 'MODALIAS=acpi:LNXCPU:' >"$t/sys/devices/LNXSYSTM:00/LNXCPU:00/uevent"
	mkdir -p "$t/sys/devices/platform/s"
	echo 'MODALIAS=platform:shared' >"$t/sys/devices/platform/s/uevent"
	bl=$t/root/etc/modprobe.d/nodev.conf
	# cpuexist: an init() that says EEXIST (pcc_cpufreq while another
	# cpufreq driver is registered) has loaded nothing: not "live"
	RULES=cpunodev:19:0,shared:19:0,cpubusy:16:0,edacdep:19:0,freq:19:0,cpuexist:17:0
	run --coldplug --settle-ms 20 --nodev-blacklist "$bl"
	check "exit 1 (cpubusy)" eq "$rc" 1
	check "each tried once" eq "$(calls)" 7
	check "cpuexist failed" eq "$(state cpuexist)" failed
	check "cpuexist: EEXIST" eq "$(jq -r '.modules[] | select(.name=="cpuexist") | .error' "$t/r.json")" EEXIST
	check "edac skipped" eq "$(state edac)" skipped
	# edac, not edacdep: what the CPU asks for, whose dependency said ENODEV
	check "blacklisted" eq "$(grep '^blacklist' "$bl" | sort | tr '\n' ' ')" \
		"blacklist cpuexist blacklist cpunodev blacklist edac blacklist freq "
	check "how to undo it, said" grep -q '^# Delete this file' "$bl"
	check "logged" grep -q "4 drivers that found no device for any CPU blacklisted" "$t/err"
	# the next run (the booted system's after the initramfs's): cpunodev
	# is left alone, what it finds is appended
	: >"$t/log"
	rm -rf "$t/sys/module/cpulate"
	RULES=shared:19:0,cpubusy:16:0,cpulate:19:0,edacdep:19:0,freq:19:0
	run --coldplug --settle-ms 20 --nodev-blacklist "$bl"
	check "cpunodev not asked again" eq "$(starts cpunodev)" 0
	check "cpuexist not asked again" eq "$(starts cpuexist)" 0
	check "edacdep not asked again" eq "$(starts edacdep)" 0
	check "freq not asked again" eq "$(starts freq)" 0
	check "shared asked again" eq "$(starts shared)" 1
	check "appended" eq "$(grep -v '^#' "$bl" | tail -n 1)" "blacklist cpulate"
	check "one header" eq "$(grep -c '^# Delete this file' "$bl")" 1
	: >"$t/log"
	run cpunodev
	check "by name it is still tried" eq "$(starts cpunodev)" 1
	rm -f "$bl"
	echo 'modpreload.nodev=0' >"$t/cmdline"
	run --coldplug --settle-ms 20 --nodev-blacklist "$bl"
	check "modpreload.nodev=0: no file" test ! -e "$bl"
	check "modpreload.nodev=0 is not a module option" eq "$(grep -c modpreload "$t/log")" 0
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

# Devices that appear while loading (a bus driver's children) get their
# modules too, found by the final rescan when no uevent is heard (the
# shim's devices announce nothing), two levels deep, each module once.
t_second_level() {
	setup 'bus alias=cpu:type:x86,ven*fam*mod*:feature:*0001*\nleaf alias=platform:leaf\nleaflib\nleaf2 leaflib alias=platform:leaf2\n'
	i=0
	while [ $i -lt 8 ]; do
		mkdir -p "$t/sys/devices/system/cpu/cpu$i"
		echo 'MODALIAS=cpu:type:x86,ven0000fam0006mod003F:feature:,0000,0001' \
			>"$t/sys/devices/system/cpu/cpu$i/uevent"
		i=$((i + 1))
	done
	MP_SHIM_SPAWN='bus=platform/leaf.0=platform:leaf;bus=platform/leaf.1=platform:leaf;leaf=platform/leaf.0/sub=platform:leaf2'
	export MP_SHIM_SPAWN
	run --coldplug --settle-ms 50
	unset MP_SHIM_SPAWN
	check "exit 0" eq "$rc" 0
	check "4 calls" eq "$(calls)" 4
	for m in bus leaf leaflib leaf2; do check "$m once" eq "$(starts $m)" 1; done
	check "bus before leaf" before bus leaf
	check "leaf before leaf2" before leaf leaf2
	check "rescan requests" eq "$(jq .requests.by_source.uevent "$t/r.json")" 3
}

# The kernel's statistics before and after, and the delta.
t_kstats() {
	setup 'a\n'
	mkdir -p "$t/sys/kernel/debug/modules"
	cp "$top/tests/data/kstats-clean.txt" "$t/sys/kernel/debug/modules/stats"
	run a
	check "before" eq "$(jq '.kernel_stats.before["Mods ever loaded"]' "$t/r.json")" 66
	check "delta 0" eq "$(jq '.kernel_stats.delta["Failed becoming bytes"]' "$t/r.json")" 0
	run --no-kstats a
	check "--no-kstats" eq "$(jq .kernel_stats "$t/r.json")" null
}

# A stats file without the counters the summary names (another kernel's
# labels, or garbage): the summary says only what it found, or nothing.
t_kstats_labels() {
	setup 'a\n'
	mkdir -p "$t/sys/kernel/debug/modules"
	printf '%25s\t%u\n' 'Something else' 5 'Other label' 7 >"$t/sys/kernel/debug/modules/stats"
	run a
	check "exit 0" eq "$rc" 0
	check "other labels: no stats line" eq "$(grep -c 'kernel module stats' "$t/err")" 0
	check "other labels: in the report" eq "$(jq '.kernel_stats.after["Other label"]' "$t/r.json")" 7
	check "nothing but text logged" eq "$(LC_ALL=C grep -c '[^[:print:][:space:]]' "$t/err")" 0
	printf '%25s\t%u\n' 'Other label' 7 'Mods failed on load' 3 >"$t/sys/kernel/debug/modules/stats"
	run a
	check "one label: exactly it" eq "$(grep 'kernel module stats' "$t/err")" \
		"modpreload: kernel module stats during the run: Mods failed on load +0"
	printf 'garbage \377\001 here\nno number\n\t\t7 x\n' >"$t/sys/kernel/debug/modules/stats"
	run a
	check "garbage: exit 0" eq "$rc" 0
	check "garbage: said so" grep -q "modules/stats: cannot parse" "$t/err"
	check "garbage: no stats line" eq "$(grep -c 'kernel module stats' "$t/err")" 0
}

# Output that cannot be written is an error that names the output and the
# errno, with exit status 4; the modules are loaded all the same.
t_output() {
	setup 'a\n'
	# a plan far bigger than a pipe holds: head leaves while it is written
	i=0
	while [ $i -lt 3000 ]; do echo "not a name $i"; i=$((i + 1)); done >"$t/many.conf"
	{
		"$bin" -n -d "$t/root" -S 1.0 --sysfs "$t/sys" --cmdline '' --no-default-config \
			-c "$t/many.conf" a 2>"$t/err"
		echo $? >"$t/rc"
	} | head -c 10 >"$t/head"
	check "head got its 10 bytes" eq "$(wc -c <"$t/head")" 10
	check "closed pipe: exit 4" eq "$(cat "$t/rc")" 4
	check "closed pipe: says so" grep -q "standard output: cannot write the report: Broken pipe (EPIPE)" "$t/err"
	check "closed pipe: no blame on the index" eq "$(grep -c index "$t/err")" 0
	LD_PRELOAD=$shim MP_SHIM_SYSFS=$t/sys MP_SHIM_LOG=$t/log "$bin" -d "$t/root" -S 1.0 \
		--sysfs "$t/sys" --cmdline "$t/cmdline" --no-default-config -r - a >/dev/full 2>"$t/err"
	rc=$?
	check "full disk: exit 4" eq "$rc" 4
	check "full disk: says so" grep -q "standard output: cannot write the report: No space left on device (ENOSPC)" "$t/err"
	check "full disk: a loaded all the same" live a
	setup 'a\n'
	run -r "$t/log/r.json" a
	check "report path under a file: exit 4" eq "$rc" 4
	check "report path under a file: names it" grep -q "$t/log/r.json.*: cannot write the report: Not a directory (ENOTDIR)" "$t/err"
	"$bin" --help >/dev/full 2>"$t/err"
	check "--help to a full disk: exit 4" eq "$?" 4
	check "--help to a full disk: says so" grep -q "standard output: No space left on device" "$t/err"
}

# The report is written beside its path and renamed into place; a symlink
# planted where the temporary file used to be is never followed.
t_report_tmp() {
	setup 'a\n'
	echo untouched >"$t/victim"
	ln -s "$t/victim" "$t/r.json.tmp"
	run a
	check "exit 0" eq "$rc" 0
	check "the link's target unchanged" eq "$(cat "$t/victim")" untouched
	check "the report is a file, not the link" eq "$(stat -c %F "$t/r.json")" "regular file"
	check "the report is whole" eq "$(jq -r '.modules[0].state' "$t/r.json")" loaded
	check "readable by all, as before" eq "$(stat -c %a "$t/r.json")" 644
	check "no temporary file left" eq "$(find "$t" -maxdepth 1 -name 'r.json?*' ! -name r.json.tmp | wc -l)" 0
}

# A report path that is not a regular file is written where it points (a
# device, a fifo, the caller's link), never replaced by a renamed file: as
# root, -r /dev/stderr would otherwise put a file where the link was.
t_report_link() {
	setup 'a\n'
	ln -s "$t/target.json" "$t/r.json"
	: >"$t/target.json"
	run a
	check "exit 0" eq "$rc" 0
	check "the link is still a link" [ -L "$t/r.json" ]
	check "the report went where it points" eq "$(jq -r '.modules[0].state' "$t/target.json")" loaded
	mkfifo "$t/fifo"
	# bounded: a loader that renamed a file over the fifo never opens it
	timeout 120 cat "$t/fifo" >"$t/fifo.out" &
	# the loader opens a fifo without blocking (no reader: ENXIO, exit 4),
	# so the reader must hold it open first
	n=0
	while [ $n -lt 200 ] && ! find /proc/[0-9]*/fd -lname "$t/fifo" 2>/dev/null | grep -q .; do
		sleep 0.05
		n=$((n + 1))
	done
	run a -r "$t/fifo"
	wait
	check "through a fifo: exit 0" eq "$rc" 0
	check "the fifo is still a fifo" [ -p "$t/fifo" ]
	check "the report came through the fifo" eq "$(jq -r '.modules[0].name' "$t/fifo.out")" a
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

# A corrupt index is set aside in a directory of libkmod's own (under
# TMPDIR here, /run at boot); nothing of it is left behind, even while
# the loader still hangs in an init() (at boot, /run moves on to the
# booted system).
t_shadow_gone() {
	setup 'a alias=x\nhang a\nkid hang\nfree a\n'
	al=$t/root/lib/modules/1.0/modules.alias.bin
	head -c $(($(stat -c %s "$al") - 3)) "$al" >"$al.cut" && mv "$al.cut" "$al"
	mkdir "$t/tmp"
	RULES=hang:0:30000
	TMPDIR=$t/tmp run -t 1 -j 1 kid free x
	check "exit 1" eq "$rc" 1
	check "warned" grep -q "modules.alias.bin: corrupt" "$t/err"
	check "free loaded" live free
	check "hang hung" eq "$(state hang)" hung
	check "nothing left" eq "$(ls -A "$t/tmp")" ""
	TMPDIR=$t/tmp run -n a
	check "dry run: nothing left" eq "$(ls -A "$t/tmp")" ""
}

# A fan-out of 64 on one base, under load: all once, base first.
t_fanout() {
	spec='base\n'
	i=0
	names=
	while [ $i -lt 64 ]; do
		spec="${spec}fan$i base\n"
		names="$names fan$i"
		i=$((i + 1))
	done
	setup "$spec"
	RULES='base:0:50'
	# shellcheck disable=SC2086
	run -j 8 $names $names
	check "exit 0" eq "$rc" 0
	check "65 calls" eq "$(calls)" 65
	check "base first" [ "$(sort -n "$t/log" | awk '$2=="start"{print $3; exit}')" = base ]
	check "one wave after base" eq "$(jq '.waves | length' "$t/r.json")" 2
}

# Bytes from config files reach the report as names and in warnings: valid
# UTF-8 passes as it is, every invalid byte becomes U+FFFD, control
# characters are escaped, and a strict parser takes the whole report.
t_utf8() {
	setup 'a\n'
	conf=$(printf '%s/li\377st.conf' "$t")
	printf 'caf\303\251\nbad\377\376\n..\303\050\n\001ctl\nnot a name\n\355\240\200x\n\300\257y\na\nz\342\202' >"$conf"
	run -c "$conf"
	check "exit 1 (missing names)" eq "$rc" 1
	check "a loaded" live a
	check "strict UTF-8 JSON" python3 -c \
		'import json,sys; json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))' "$t/r.json"
	check "valid UTF-8 unchanged" eq "$(jq -r '.requests.missing_names[0]' "$t/r.json")" "$(printf 'caf\303\251')"
	check "invalid bytes replaced" eq "$(jq -r '.requests.missing_names[1]' "$t/r.json")" "$(printf 'bad\357\277\275\357\277\275')"
	check "a surrogate is not UTF-8" eq "$(jq -r '.requests.missing_names[2]' "$t/r.json")" \
		"$(printf '\357\277\275\357\277\275\357\277\275x')"
	check "control character escaped" grep -q '"refusing to load \\"\\u0001ctl\\"' "$t/r.json"
	check "the path in a warning" eq "$(jq -r '.warnings[] | select(test("not a module name, line"))' "$t/r.json")" \
		"$(printf '%s/li\357\277\275st.conf:5: not a module name, line ignored' "$t")"
}

# A plan baked at image build: the same plan with it as without it (the
# modules, their paths, waves, edges, options and requests), the kernel
# command line still applied on top; a stale, damaged or other kernel's
# plan is a warning and libkmod resolves; what it does not cover (an
# alias from modprobe.d) goes to libkmod and is counted.
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

cases="basic:sched duplicates:sched failure:sched busy:sched init_eexist:sched hang:sched ebusy:sched ebusy_hung:sched loop_error:sched
live_builtin other_loader:sched
options blacklist softdep_cycle softdep_fails:sched compressed bombs:sched waves:sched parallel:sched
missing missing_file paths bad_index dry_run coldplug:sched no_device nodev modules_load second_level:sched kstats config_usage fanout:sched"
cases="$cases missing_sibling config_big cmdline_long kmod_config shadow_gone"
cases="$cases kstats_labels output report_tmp report_link report_rofs bombs_wait utf8"
cases="$cases fifo_worse:sched pool:sched profile baked"

[ -n "${MP_CASES:-}" ] && cases=$MP_CASES
for c in $cases; do
	name=${c%%:*}
	tag=${c#"$name"}
	[ -n "$only" ] && [ "$tag" != ":$only" ] && continue
	failed=0
	"t_$name"
	if [ $failed = 0 ] && ! grep -q -e 'ERROR: AddressSanitizer' -e 'runtime error' \
		-e 'WARNING: ThreadSanitizer' "$t/err" 2>/dev/null; then
		echo "PASS: $suite/$name"
	else
		echo "FAIL: $suite/$name"
		sed 's/^/    | /' "$t/err" 2>/dev/null | head -20 >&2
	fi
done
