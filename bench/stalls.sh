#!/bin/sh
# The emulator's stalls that began before multi-user.target, boot by boot,
# from the guest reports bench/boot-pairs.sh keeps (bench/results/boots/
# CODE/*.txt.gz): under TCG a vCPU at times runs one kernel path for tens of
# seconds (soft lockups in the page allocator, in whatever program was
# allocating: a udev worker, systemd's modprobe@ units, modpreload), and
# what waits for that CPU waits with it. One line per stall that began
# before the boot's multi-user.target:
#   PAIR VARIANT BEGAN_S PROCESS STUCK_S MULTI_USER_S
# BEGAN_S: a soft lockup's report time less its "stuck for S s", an RCU
# stall's less its t= jiffies (the CPU and program its backtrace names); a
# stall reported again (longer) is the same one, kept once. And a frozen
# load: a module that systemd's own loaders (PID 1, its modprobe@ units,
# systemd-modules-load; "modprobe", "systemd", "systemd_modules" in the
# booted system's "lmod" lines; "modprobe" is also what the kernel runs
# for its own requests, the same on both sides) took over 8 s to load,
# which on hardware takes milliseconds and under TCG at times freezes the
# whole guest, PID 1 with it (harness/booted/guest/sampler.c saw PID 1 and the sampler itself
# stopped, configfs's load in alternatives_smp_module_add for 11 s, while
# modpreload loaded nothing); its PROCESS is "load:MODULE/LOADER". These
# loads are the same in both boots of a pair, with modpreload or without.
#
# Usage: bench/stalls.sh [CODE]      (default the work tree's)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
code=${1:-$("$top/bench/code-id.sh")}
for f in "$top/bench/results/boots/$code"/*.txt.gz; do
	[ -f "$f" ] || continue
	b=$(basename "$f" .txt.gz)
	zcat "$f" | awk -v pair="${b%-*}" -v variant="${b##*-}" '
		/^MPT: uptime_multi_user=/ { split($0, kv, "="); mu = kv[2] + 0 }
		/^MPT: stall .*soft lockup - CPU#[0-9]+ stuck for [0-9]+s!/ {
			t = $0; sub(/^MPT: stall \[ */, "", t); sub(/\].*/, "", t)
			s = $0; sub(/.* stuck for /, "", s); sub(/s!.*/, "", s)
			who = $0; sub(/.*s! \[/, "", who); sub(/\].*/, "", who)
			c = $0; sub(/.*CPU#/, "", c); sub(/ .*/, "", c)
			k = c " " who
			if (!(k in began) || t - s < began[k]) { if (!(k in began)) keys[++n] = k; began[k] = t - s; stuck[k] = s }
		}
		# an RCU stall: reported t jiffies (HZ 250, Debian'"'"'s) after its
		# grace period began; the CPU and program on the next "Comm:" line
		# (a CPU that saw its own stall says "self-detected stall", with
		# "(t=N jiffies" on a line of its own; an expedited one "} N jiffies")
		/^MPT: stall .*rcu_preempt (self-)?detected (expedited )?stall/ {
			rt = $0; sub(/^MPT: stall \[ */, "", rt); sub(/\].*/, "", rt); rj = -1
		}
		/^MPT: stall .*t=[0-9]+ jiffies/ && rt != "" && rj < 0 {
			rj = $0; sub(/.*t=/, "", rj); sub(/ jiffies.*/, "", rj)
		}
		/^MPT: stall .*\} [0-9]+ jiffies/ && rt != "" && rj < 0 {
			rj = $0; sub(/.*\} /, "", rj); sub(/ jiffies.*/, "", rj)
		}
		/^MPT: stall .*CPU: [0-9]+ PID: [0-9]+ Comm: / && rt != "" && rj >= 0 {
			c = $0; sub(/.*CPU: /, "", c); sub(/ .*/, "", c)
			p = $0; sub(/.* PID: /, "", p); sub(/ .*/, "", p)
			who = $0; sub(/.* Comm: /, "", who); sub(/ Tainted.*/, "", who); sub(/ +$/, "", who)
			k = c " " who ":" p
			if (!(k in began) || rt - rj / 250 < began[k]) {
				if (!(k in began)) keys[++n] = k
				began[k] = rt - rj / 250; stuck[k] = sprintf("%.0f", rj / 250)
			}
			rt = ""
		}
		/^MPT: lmod=/ && ($5 == "modprobe" || $5 == "systemd" || $5 == "systemd_modules") && $4 - $3 > 8 {
			m = $2; sub(/^lmod=/, "", m)
			k = "- load:" m "/" $5
			keys[++n] = k; began[k] = $3 + 0; stuck[k] = sprintf("%.0f", $4 - $3)
		}
		END {
			for (i = 1; i <= n; i++) {
				split(keys[i], kp, " ")
				if (mu > 0 && began[keys[i]] < mu)
					printf "%s %s %.1f %s %s %.2f\n", pair, variant, began[keys[i]], kp[2], stuck[keys[i]], mu
			}
		}'
done
