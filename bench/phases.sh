#!/bin/sh
# Where each boot's time went, from the guest reports bench/boot-pairs.sh
# keeps (bench/results/boots/CODE/*.txt.gz; boots recorded since the
# reports carry the systemd timelines, "irl" and "brl" lines). One line a
# boot, guest seconds since it began ("-": not in that report):
#   PAIR VARIANT PRE_UDEV UDEVD ROOTDEV FS_MODS EXT4 ROOTFS SWITCH READY_GAP TRIGGER MULTI_USER FIRST_LOADS
# PRE_UDEV: the initramfs's pre-udev hook finished (modpreload's run, with
#   it; nothing, without); UDEVD: the initramfs's udevd started; ROOTDEV:
#   the root device checked (systemd-fsck-root finished: the device was
#   there); FS_MODS: "START-END" of the initramfs's loads by modprobe that
#   the kernel ran (request_module: the root file system's module and what
#   it needs, at the mount; "ilmod" lines); EXT4: when the initramfs's
#   load of ext4 (the root's module) ended, and whose ("21.1/modpreload",
#   "42.2/modprobe"); ROOTFS: initrd-root-fs.target
#   (the root mounted, its file
#   system's module loaded on the way: the kernel asks for it at the
#   mount); SWITCH: "Switching root"; READY_GAP: seconds from the booted
#   unit's "handing over" line to systemd's "Started" line for it (READY=1
#   as PID 1 took it; - without); TRIGGER: systemd-udev-trigger's start
#   in the booted system; MULTI_USER: multi-user.target reached;
#   FIRST_LOADS: seconds from the first start to the last end of systemd's
#   own first loads in the booted system (its modprobe@ units' and
#   systemd-modules-load's: "lmod" lines by modprobe or systemd_modules),
#   which end together when the guest stalls.
# With -m: for each cell and variant (stack-vCPUs-condition with or
# without), the median of each phase as seconds since
# switch-root (the booted system's units' times) and how many boots had
# FIRST_LOADS over 8 s.
#
# Usage: bench/phases.sh [-m] [CODE]      (default the work tree's)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = -m ]; then
	shift
	# bench/stats.awk's rows (cell variant - - - pair key value) and its
	# medians; "long" has a row only for FIRST_LOADS over 8 s, so its n
	# is their count
	"$0" "$@" | awk -v OFS='\t' '$9 != "-" {
		c = $1; sub(/^[^-]*-/, "", c)
		print c, $2, "-", "-", "-", $1, "boots", 0
		if ($11 != "-") print c, $2, "-", "-", "-", $1, "trigger", $11 - $9
		if ($12 != "-") print c, $2, "-", "-", "-", $1, "multi-user", $12 - $9
		if ($13 != "-") print c, $2, "-", "-", "-", $1, "first", $13
		if ($13 != "-" && $13 > 8) print c, $2, "-", "-", "-", $1, "long", $13
	}' | awk -f "$top/bench/stats.awk" | awk -F'\t' '
		{ g = $1 " " $2; groups[g] = 1; n[g, $6] = $7; m[g, $6] = $8 }
		END {
			for (g in groups) {
				printf "%s (%d boots): switch-root to", g, n[g, "boots"]
				printf " the trigger %.1f s, to multi-user.target %.1f s;", m[g, "trigger"], m[g, "multi-user"]
				printf " first loads %.1f s, over 8 s in %d\n", m[g, "first"], n[g, "long"]
			}
		}' | sort
	exit
fi
code=${1:-$("$top/bench/code-id.sh")}
for f in "$top/bench/results/boots/$code"/*.txt.gz; do
	[ -f "$f" ] || continue
	b=$(basename "$f" .txt.gz)
	zcat "$f" | awk -v pair="${b%-*}" -v variant="${b##*-}" '
		function at(line) { sub(/^MPT: [a-z]+ /, "", line); sub(/ .*/, "", line); return line }
		function kmsg_at(line) { sub(/^MPT: kmsg \[ */, "", line); sub(/\].*/, "", line); return line }
		/^MPT: irl .* Finished dracut-pre-udev\.service/ { v["pre"] = at($0) }
		/^MPT: irl .* Started systemd-udevd\.service/ { v["udevd"] = at($0) }
		/^MPT: irl .* Finished systemd-fsck-root\.service/ { v["rootdev"] = at($0) }
		/^MPT: irl .* Reached target initrd-root-fs\.target/ { v["rootfs"] = at($0) }
		/^MPT: ilmod=.* modprobe$/ { if (ks == "" || $3 < ks) ks = $3; if ($4 > ke) ke = $4 }
		/^MPT: ilmod=ext4 / { v["ext4"] = sprintf("%.1f/%s", $4, $5) }
		/^MPT: irl .* Switching root/ { v["switch"] = at($0) }
		/^MPT: kmsg .*modpreload: handing over/ && kmsg_at($0) > v["switch"] + 0 && v["switch"] != "" { h = kmsg_at($0) }
		/^MPT: kmsg .*systemd\[1\]: Started modpreload-coldplug\.service/ { s = kmsg_at($0) }
		/^MPT: unit\.systemd-udev-trigger=/ { split($2, kv, "="); if (kv[2] > 0) v["trigger"] = sprintf("%.2f", kv[2] / 1e6) }
		/^MPT: uptime_multi_user=/ { split($2, kv, "="); v["mu"] = kv[2] }
		/^MPT: lmod=.* (modprobe|systemd_modules)$/ { if (fs == "" || $3 < fs) fs = $3; if ($4 > fe) fe = $4 }
		END {
			if (h != "" && s != "") v["gap"] = sprintf("%.2f", s - h)
			if (ks != "") v["fsmods"] = sprintf("%.1f-%.1f", ks, ke)
			if (fs != "") v["first"] = sprintf("%.1f", fe - fs)
			printf "%s %s", pair, variant
			n = split("pre udevd rootdev fsmods ext4 rootfs switch gap trigger mu first", k, " ")
			for (i = 1; i <= n; i++) printf " %s", (k[i] in v) ? v[k[i]] : "-"
			printf "\n"
		}'
done
