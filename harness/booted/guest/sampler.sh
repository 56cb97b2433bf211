#!/bin/bash
# The booted-* VM cases' sampler (mpt.sample on the kernel command line;
# bench/boot-pairs.sh -C lean-sampled): from just after switch-root until
# the report, every 0.5 s, what the guest's CPUs went to. Bash builtins
# only (no fork per sample: under TCG a fork costs more than the reading).
# Writes /run/mpt-samples, which guest/booted-report.sh prints as
# "MPT: smp ..." lines:
#   smp T UPTIME CPU user nice system idle iowait irq softirq   (/proc/stat)
#   smp P PID COMM STATE TICKS WCHAN   a task whose user+system ticks grew
#                                      since the last sample, or in D state
#   smp 1 STATE WCHAN                  PID 1, every sample
#   smp K PID COMM LINE                the kernel stack of a task in D state
# Nothing here reads a clock to decide anything: it is for the reader.
out=/run/mpt-samples
declare -A last
exec 3>"$out"
# the pause between samples: a read with a timeout on a FIFO no one
# writes (made once; sleep(1) would fork each time)
mkfifo /run/mpt-sampler.fifo && exec 4<>/run/mpt-sampler.fifo
while [ ! -e /run/mpt-sampler.stop ]; do
	read -r up _ </proc/uptime
	read -r c u n s i w q sq _ </proc/stat
	echo "T $up $c $u $n $s $i $w $q $sq" >&3
	read -r w1 </proc/1/wchan 2>/dev/null
	read -r s1 </proc/1/stat 2>/dev/null
	s1=${s1##*) }
	echo "1 ${s1%% *} ${w1:-0}" >&3
	for d in /proc/[0-9]*; do
		p=${d#/proc/}
		read -r st <"$d/stat" 2>/dev/null || continue
		comm=${st#*(}
		comm=${comm%)*}
		rest=${st##*) }
		# fields after comm: state ppid pgrp session tty tpgid flags
		# minflt cminflt majflt cmajflt utime stime
		set -- $rest
		state=$1 t=$((${12} + ${13}))
		if [ "${last[$p]:-0}" != "$t" ] || [ "$state" = D ]; then
			read -r wc <"$d/wchan" 2>/dev/null
			echo "P $p ${comm// /_} $state $((t - ${last[$p]:-0})) ${wc:-0}" >&3
			last[$p]=$t
			if [ "$state" = D ]; then
				mapfile -t k <"$d/stack" 2>/dev/null
				echo "K $p ${comm// /_} ${k[*]}" >&3
			fi
		fi
	done
	read -rt 0.5 -u 4 _ || :
done
