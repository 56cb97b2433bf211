#!/bin/sh
# A module's init() that fails, says EBUSY or EEXIST, or never
# returns: one call, only its dependents skipped, the messages say why.
# Cases of tests/unit/cli.sh (t_NAME reports as cli/NAME), sourced by it
# after cli/lib.sh: setup, run, check and the other helpers are there.
# shellcheck disable=SC2034,SC2154 # RULES, OTHER: read by run; t, rc, bin...: set by cli.sh, lib.sh

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
	# the scheduler's verdict or the wait's own (still coming at the
	# deadline), whichever came first: both call it hung, not failed (a
	# failure is replayed to udev, and the other load is still in init())
	check "b given up on" grep -q "hung: b" "$t/err"
	check "report: b hung" eq "$(state b)" hung
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
