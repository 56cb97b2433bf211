#!/bin/sh
# The module tree and its indexes: names not found, names that look like
# paths, files gone, corrupt or missing indexes.
# Cases of tests/unit/cli.sh (t_NAME reports as cli/NAME), sourced by it
# after cli/lib.sh: setup, run, check and the other helpers are there.
# shellcheck disable=SC2034,SC2154 # RULES, OTHER: read by run; t, rc, bin...: set by cli.sh, lib.sh

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

# A corrupt modules.symbols.bin past its header: libkmod reads it for
# "symbol:" names alone, so it is checked before the first of them. A run
# without one loads as usual and says nothing of it; with one, it warns,
# finds nothing for that name, and loads the rest.
t_bad_symbols() {
	setup 'a\nb a\nc\n'
	sy=$t/root/lib/modules/1.0/modules.symbols.bin
	head -c $(($(stat -c %s "$sy") - 3)) "$sy" >"$sy.cut" && mv "$sy.cut" "$sy"
	run b
	check "no symbol: name: b loaded" live b
	check "no symbol: name: no word of it" eq "$(grep -c symbols.bin "$t/err")" 0
	run symbol:sym_a c
	check "symbol: name: warned" grep -q "modules.symbols.bin: corrupt (EBADMSG): lookups through it will find nothing" "$t/err"
	check "symbol: name: not found" grep -q "not found: symbol:sym_a" "$t/err"
	check "symbol: name: c still loads" live c
	setup 'a\nb a\n'
	run symbol:sym_a
	check "whole index: symbol:sym_a is a" live a
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
