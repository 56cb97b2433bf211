#!/bin/sh
# Compressed modules: decompressed in userspace or by the kernel,
# and the memory budget against decompression bombs.
# Cases of tests/unit/cli.sh (t_NAME reports as cli/NAME), sourced by it
# after cli/lib.sh: setup, run, check and the other helpers are there.
# shellcheck disable=SC2034,SC2154 # RULES, OTHER: read by run; t, rc, bin...: set by cli.sh, lib.sh

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
# compressed; gzip's are in test_decompress.c: the host's depmod cannot read
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

# After a switch-root the root's tree may keep a module with another
# compression than the image did (mkinitcpio's MODULES_DECOMPRESS: foo.ko
# in the image, foo.ko.zst in the root): found by its name with the other
# suffix, loaded once; one the root's modules.dep has in another
# directory, from there. A file that is not there at all is said to be
# missing, never an unknown symbol (finit_module's ENOENT).
t_file_recompressed() {
	dir=$t/root/lib/modules/1.0/kernel/test
	setup 'slow\nlate slow\ngone slow\nmoved slow\n'
	RULES=slow:0:1500
	run -j 2 late gone moved &
	runner=$!
	sleep 0.5
	zstd -q --rm "$dir/late.ko"
	rm -f "$dir/gone.ko"
	# and one the root's index keeps in another directory
	mkdir -p "$dir/../other"
	mv "$dir/moved.ko" "$dir/../other/moved.ko"
	depmod -b "$t/root" 1.0 2>/dev/null
	wait "$runner"
	check "late loaded from late.ko.zst" eq "$(state late)" loaded
	check "late: once, decompressed" eq "$(grep -c ' start late 0 init ' "$t/log")" 1
	check "moved loaded from its new directory, once" eq "$(state moved) $(starts moved)" "loaded 1"
	check "gone failed" eq "$(state gone)" failed
	check "gone: its file is missing, said so" \
		eq "$(jq -r '.modules[] | select(.name=="gone") | .message' "$t/r.json")" \
		"its file is not in the module directory (nor moved, nor with another compression)"
	check "no unknown symbol said" eq "$(grep -c 'unknown symbol' "$t/err")" 0
}
