#!/bin/sh
# dracut pre-pivot hook of the booted-* VM cases (sourced by dracut's hook
# runner, the last hook before switch-root): a trace marker, so that the
# root's report (guest/booted-report.sh) splits the kernel's tracepoints
# into the initramfs's and the booted system's. Nothing after pre-pivot in
# the initramfs loads a module.
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
echo mpt_switch_root >/sys/kernel/tracing/trace_marker 2>/dev/null
