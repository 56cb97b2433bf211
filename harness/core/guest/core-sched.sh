# shellcheck shell=sh
# The scheduler on a real kernel: a DAG of test modules whose init()s sleep
# for known times (a chain mpt_chain0..5 and six leaves mpt_fan00..05,
# asked for first), loaded four times: in arrival order and by the longest
# chain on a fixed pool of two, then twice on the adaptive pool, the
# second time with the profile the first one wrote. Then four leaves that
# burn the CPU at -j 1, on the default (fixed) pool and four others on the
# adaptive one. The trace, cleared before each, has the calls; everything
# is unloaded between runs.
# shellcheck source=/dev/null
. /mpt/core-lib.sh
D=400
cmd=''
for m in mpt_fan00 mpt_fan01 mpt_fan02 mpt_fan03 mpt_fan04 mpt_fan05 \
	mpt_chain0 mpt_chain1 mpt_chain2 mpt_chain3 mpt_chain4 mpt_chain5; do
	cmd="$cmd $m.delay_ms=$D"
done
echo "$cmd" >/run/sleep.cmdline
cmd=''
for i in 0 1 2 3 4 5 6 7; do
	cmd="$cmd mpt_fan1$i.spin_ms=300"
done
echo "$cmd" >/run/spin.cmdline
mpt_kv uname "$(uname -r)"

unload() {
	for m in mpt_fan00 mpt_fan01 mpt_fan02 mpt_fan03 mpt_fan04 mpt_fan05 \
		mpt_fan10 mpt_fan11 mpt_fan12 mpt_fan13 mpt_fan14 mpt_fan15 mpt_fan16 \
		mpt_fan17 mpt_chain5 mpt_chain4 mpt_chain3 \
		mpt_chain2 mpt_chain1 mpt_chain0 mpt_fanbase; do
		rmmod "$m" 2>/dev/null
	done
}

# sched NAME ARGS...: one run of the sleeping DAG, its calls as NAME.call.*
sched() {
	n=$1
	shift
	unload
	core_trace_clear
	core_run "$n" --no-default-config --cmdline /run/sleep.cmdline "$@" \
		mpt_fan00 mpt_fan01 mpt_fan02 mpt_fan03 mpt_fan04 mpt_fan05 mpt_chain5
	core_calls | sed "s/call\./$n.call./"
}

sched fifo -j 2 --pool fixed --order fifo --profile '' --profile-out ''
sched cpf -j 2 --pool fixed --profile '' --profile-out ''
sched first -j 2 --pool adaptive --profile '' --profile-out /run/profile
mpt_kv profile.kernel "$(sed -n 2p /run/profile)"
mpt_kv profile.lines "$(grep -c '^mpt_' /run/profile)"
sched prof -j 2 --pool adaptive --profile /run/profile --profile-out '' -r /run/r.json
mpt_kv prof.profile_state "$(sed -n '/"profile": {/,/}/s/^ *"state": "\(.*\)",*$/\1/p' /run/r.json)"
mpt_kv prof.known "$(sed -n '/"profile": {/,/}/s/^ *"known": \([0-9]*\),*$/\1/p' /run/r.json)"

unload
core_trace_clear
core_run spin --no-default-config --cmdline /run/spin.cmdline -j 1 --profile '' --profile-out '' \
	mpt_fan10 mpt_fan11 mpt_fan12 mpt_fan13
core_calls | sed 's/call\./spin.call./'
unload
core_trace_clear
core_run spina --no-default-config --cmdline /run/spin.cmdline -j 1 --pool adaptive \
	--profile '' --profile-out '' mpt_fan14 mpt_fan15 mpt_fan16 mpt_fan17
core_calls | sed 's/call\./spina.call./'
# when each init() was spinning, from the kernel log: spin.NAME=START,END (us)
dmesg | awk '/mpt: spin mpt_fan1[0-7] (start|end)$/ {
	t = $0; sub(/^[^[]*\[ */, "", t); sub(/\].*/, "", t)
	n = $(NF - 1); if ($NF == "start") s[n] = int(t * 1000000); else e[n] = int(t * 1000000)
} END { for (n in s) printf "MPT: spinwin.%s=%.0f,%.0f\n", n, s[n], e[n] }'
