#!/bin/sh
# The last boot's lookups (--lookups, --lookups-out): kept, used on the same
# tree only, and never at the cost of a load.
# Cases of tests/unit/cli.sh (t_NAME reports as cli/NAME), sourced by it
# after cli/lib.sh: setup, run, check and the other helpers are there.
# shellcheck disable=SC2034,SC2154 # RULES, OTHER: read by run; t, rc, bin...: set by cli.sh, lib.sh

# the next boot of the same tree: nothing live, nothing loaded yet
lookups_again() {
	rm -rf "$t/sys/module"
	mkdir "$t/sys/module"
	: >"$t/log"
}

# Kept after a run; read by the next on the same tree. That it is read is
# shown from the kernel's side: the file is made to say that x finds c,
# and c is what loads. Anything that changes what a lookup would find (an
# index depmod wrote again, an alias in modprobe.d) and it is not used.
t_lookups() {
	lk=$work/lookups
	rm -f "$lk"
	setup 'a alias=x\nb alias=y\nc\n'
	run --lookups "$lk" --lookups-out "$lk" x y
	check "first: exit 0" eq "$rc" 0
	check "first: a and b" eq "$(ok_loads)" 2
	check "none yet: no word of it" eq "$(grep -c "$lk" "$t/err")" 0
	check "kept: x finds a" grep -qx '= x a' "$lk"
	check "kept: the indexes checked" eq "$(grep -c '^index ' "$lk")" 4
	check "first: libkmod's lookups" eq "$(jq -c '.planned | [.lookups_known, .lookups_libkmod, .indexes_known]' \
		"$t/r.json")" "[0,2,0]"
	sed -i 's/^= x a$/= x c/' "$lk"
	cp "$lk" "$work/lookups.c"
	lookups_again
	run -v --lookups "$lk" --lookups-out "$lk" x y
	check "same tree: what the file says" live c
	check "same tree: not libkmod's" not live a
	check "same tree: y still b" live b
	check "same tree: quiet" eq "$(grep -c "$lk" "$t/err")" 0
	check "same tree: counted" eq "$(jq -c '.planned | [.lookups_known, .lookups_libkmod, .indexes_known]' \
		"$t/r.json")" "[2,0,3]"
	check "kept again" grep -qx '= x c' "$lk"
	# modprobe.d's own alias for x: the file's answer is not used
	cp "$work/lookups.c" "$lk"
	echo 'alias x b' >"$t/root/etc/modprobe.d/x.conf"
	lookups_again
	run -v --lookups "$lk" x
	check "new alias: modprobe.d's (b)" live b
	check "new alias: not c" not live c
	check "new alias: said" grep -q "modprobe.d's aliases or commands changed since" "$t/err"
	rm "$t/root/etc/modprobe.d/x.conf"
	# options for the alias itself: libkmod gives them to what x finds
	echo 'options x p=1' >"$t/root/etc/modprobe.d/x.conf"
	lookups_again
	run --lookups "$lk" x y
	check "options of x: a, by libkmod" live a
	check "options of x: not c" not live c
	check "options of x: y from the file (b)" live b
	rm "$t/root/etc/modprobe.d/x.conf"
	# depmod again: a new modules.alias.bin (another inode)
	al=$t/root/lib/modules/1.0/modules.alias.bin
	cp "$al" "$al.new" && mv "$al.new" "$al"
	lookups_again
	run -v --lookups "$lk" x
	check "new index: a" live a
	check "new index: said" grep -q "depmod's indexes changed since" "$t/err"
}

# A file that is not one, or not for this kernel: said, not used, and the
# loads are as without it. A bad index is found by its check whatever the
# file says of the one that was there.
t_lookups_bad() {
	lk=$work/lookups
	rm -f "$lk"
	setup 'a alias=x\nb alias=y\nc\n'
	run --lookups-out "$lk" x
	sed -i 's/^= x a$/= x c/' "$lk"
	cp "$lk" "$work/lookups.c"
	head -c 3000 /dev/urandom >"$lk"
	lookups_again
	run --lookups "$lk" x y
	check "garbage: exit 0" eq "$rc" 0
	check "garbage: said" grep -q "$lk: not a modpreload lookup cache (EBADMSG): not used" "$t/err"
	check "garbage: libkmod's" eq "$(ok_loads)" 2
	sed 's/^= x c$/= x ..\/..\/c/' "$work/lookups.c" >"$lk"
	lookups_again
	run --lookups "$lk" x
	check "a path for a name: said" grep -q "$lk: not a modpreload lookup cache" "$t/err"
	check "a path for a name: libkmod's" live a
	{ cat "$work/lookups.c"; echo 'nodev ../../c'; } >"$lk"
	lookups_again
	run --lookups "$lk" x
	check "a path for a no-device driver: said" grep -q "$lk: not a modpreload lookup cache" "$t/err"
	# a NUL inside a line would end its words early (x finding nothing)
	sed 's/^= x c$/= x\x00 c/' "$work/lookups.c" >"$lk"
	lookups_again
	run --lookups "$lk" x
	check "a NUL in a line: said" grep -q "$lk: not a modpreload lookup cache" "$t/err"
	check "a NUL in a line: libkmod's" live a
	head -n 3 "$work/lookups.c" >"$lk"
	printf 'index modules.dep.bin 1 2\n' >>"$lk"
	lookups_again
	run --lookups "$lk" x
	check "cut: said" grep -q "$lk: not a modpreload lookup cache" "$t/err"
: >"$lk"
	lookups_again
	run --lookups "$lk" x
	check "empty: said" grep -q "$lk: not a modpreload lookup cache (EBADMSG)" "$t/err"
	check "empty: libkmod's" live a
	sed '1s/.*/modpreload lookups 1/' "$work/lookups.c" >"$lk"
	lookups_again
	run -v --lookups "$lk" x
	check "another version: said" grep -q "$lk: written by another version of modpreload: not used" "$t/err"
	check "another version: libkmod's" live a
	sed 's/^kernel 1.0$/kernel 9.9/' "$work/lookups.c" >"$lk"
	lookups_again
	run -v --lookups "$lk" x
	check "other kernel: said" grep -q "$lk: for another kernel or module directory: not used" "$t/err"
	check "other kernel: libkmod's" live a
	# a corrupt alias index in place of the one the file knows
	cp "$work/lookups.c" "$lk"
	al=$t/root/lib/modules/1.0/modules.alias.bin
	head -c $(($(stat -c %s "$al") - 3)) "$al" >"$al.cut" && mv "$al.cut" "$al"
	lookups_again
	run --lookups "$lk" x y
	check "corrupt index: found" grep -q "modules.alias.bin: corrupt" "$t/err"
	check "corrupt index: nothing by the file's word" not live c
	check "corrupt index: nor by the bad index" not live a
	check "corrupt index: not found, exit 1" eq "$rc" 1
}

# The hand-over's kinds of alias per module (what it may hold) are kept too,
# and used while modules.alias is the same file. Shown from the holds: the
# file is made to say a kernel alias leads to slow, and slow is not held;
# the run waits for it instead. A new modules.alias and it is held again.
t_lookups_holds() {
	lk=$work/lookups
	rm -f "$lk"
	handover_setup
	mkdir -p "$t/sys/module/quick"
	echo live >"$t/sys/module/quick/initstate"
	RULES=slow:0:2000
	run_handover --lookups-out "$lk"
	check "first: slow held" [ -e "$held/modpreload-held-slow.conf" ]
	check "first: the child reported" wait_report
	check "kept: slow's kinds" grep -qx 'kinds slow device' "$lk"
	check "kept: user's kinds" grep -qx 'kinds user device' "$lk"
	check "kept: quick's, live before the run (the next boot's may not be)" grep -qx 'kinds quick device' "$lk"
	check "kept: modules.alias's identity" grep -Eq '^index modules.alias [0-9]+ [0-9]+ [0-9]+ ' "$lk"
	sed -i 's/^kinds slow device$/kinds slow device kernel/' "$lk"
	cp "$lk" "$work/lookups.k"
	lookups_again
	rm -rf "$held" "$t/r.json" "$t/run/udev"
	RULES=slow:0:2000
	run_handover -vv --lookups "$lk" --lookups-out "$lk"
	check "same file: slow not held" [ ! -e "$held/modpreload-held-slow.conf" ]
	check "same file: the run waited for slow" eq "$(ended slow)" 1
	check "same file: said" grep -q "slow: asked for by name or by a kernel alias: not held" "$t/err"
	check "same file: the child reported" wait_report
	check "same file: modules.alias not walked, counted" eq "$(jq .planned.indexes_known "$t/r.json")" 4
	check "kept again: slow's kinds" grep -qx 'kinds slow device kernel' "$lk"
	al=$t/root/lib/modules/1.0/modules.alias
	cp "$al" "$al.new" && mv "$al.new" "$al"
	cp "$work/lookups.k" "$lk"
	lookups_again
	rm -rf "$held" "$t/r.json" "$t/run/udev"
	RULES=slow:0:2000
	run_handover --lookups "$lk" --lookups-out "$lk"
	check "new modules.alias: slow held" [ -e "$held/modpreload-held-slow.conf" ]
	check "new modules.alias: the child reported" wait_report
	check "new modules.alias: walked" eq "$(jq .planned.indexes_known "$t/r.json")" 3
	check "new modules.alias: kept as it is" grep -qx 'kinds slow device' "$lk"
	check "slow loaded once each time" eq "$(starts slow)" 1
}
