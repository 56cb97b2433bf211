#!/bin/sh
# How fast this host boots a guest now, as a factor the VM deadlines are
# multiplied by (harness/lib/run.sh). A shared or loaded host boots a TCG guest
# several times slower than a quiet one; a deadline meant to catch a hung
# guest must grow with it, or a slow host fails cases that did nothing wrong.
#
# Usage: harness/lib/calibrate.sh [--force]
#
# Prints sourceable lines:
#   MPT_VM_SCALE=F        deadline factor: the boot's wall time over the
#                         quiet-host reference (MPT_VM_REF_S, 10 s), never
#                         below 1
#   MPT_VM_CALIB_S=S      wall seconds of the calibration boot
#   MPT_VM_CALIB_AT=T     when it ran (epoch seconds)
# The calibration boot is Debian's 6.1 kernel (harness/lib/kernels.sh bookworm)
# on 2 vCPUs with a busybox image whose guest script does nothing: from
# QEMU's start to the guest's power-off. A quiet 2-core host takes 6-8 s.
#
# The result is kept in build/vm/calibration.env and reused while it is
# younger than MPT_VM_CALIB_MAX_AGE seconds (default 900): load changes
# during a long run, so a run of the whole suite calibrates again now and
# then. MPT_VM_SCALE set in the environment overrides all of this.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
work=$top/build/vm/calibrate
cache=$top/build/vm/calibration.env
ref=${MPT_VM_REF_S:-10}
max_age=${MPT_VM_CALIB_MAX_AGE:-900}

log() { printf 'calibrate.sh: %s\n' "$*" >&2; }

mkdir -p "$work"
# One calibration at a time; the others wait and reuse it.
exec 9>"$work/lock"
flock 9

now=$(date +%s)
if [ "${1:-}" != --force ] && [ -f "$cache" ]; then
	at=$(sed -n 's/^MPT_VM_CALIB_AT=//p' "$cache")
	if [ -n "$at" ] && [ $((now - at)) -lt "$max_age" ]; then
		cat "$cache"
		exit 0
	fi
fi

# shellcheck source=harness/lib/hostlib.sh
. "$here/hostlib.sh"
if mpt_kernel bookworm /dev/stderr; then
	kver=$KVER kd=$KDIR
else
	log "no bookworm kernel: deadlines are not scaled"
	printf 'MPT_VM_SCALE=1\nMPT_VM_CALIB_S=0\nMPT_VM_CALIB_AT=0\n'
	exit 0
fi
printf 'mpt_kv calibrate ok\n' >"$work/guest.sh"
if [ ! -f "$work/image.img" ] || [ -n "$(find "$work/guest.sh" "$kd/kernel.env" -newer "$work/image.img")" ]; then
	"$here/mkimage.sh" -o "$work/image.img" -k "$kver" -M "$kd" --script "$work/guest.sh" >&2
fi
# The boot itself is not scaled: 600 s is far beyond any host that can run
# the suite at all.
t0=$(date +%s.%N)
if ! MPT_VM_SCALE=1 "$here/run.sh" -k "$kd/vmlinuz" -i "$work/image.img" -s 2 -t 600 \
	--no-trace -l "$work/serial.log" >"$work/result.txt" 2>"$work/run.log"; then
	log "the calibration boot failed (see $work/serial.log): deadlines are not scaled"
	printf 'MPT_VM_SCALE=1\nMPT_VM_CALIB_S=0\nMPT_VM_CALIB_AT=0\n'
	exit 0
fi
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v ref="$ref" -v now="$now" 'BEGIN {
	s = b - a
	f = s / ref
	if (f < 1) f = 1
	printf "MPT_VM_SCALE=%.1f\nMPT_VM_CALIB_S=%.1f\nMPT_VM_CALIB_AT=%d\n", f + 0.05, s, now
}' >"$cache.tmp"
mv "$cache.tmp" "$cache"
log "a guest boot took $(sed -n 's/^MPT_VM_CALIB_S=//p' "$cache") s: deadlines x $(sed -n 's/^MPT_VM_SCALE=//p' "$cache")"
cat "$cache"
