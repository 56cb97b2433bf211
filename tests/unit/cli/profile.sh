#!/bin/sh
# The profile: written where asked, read back, ordering the loads.
# Cases of tests/unit/cli.sh (t_NAME reports as cli/NAME), sourced by it
# after cli/lib.sh: setup, run, check and the other helpers are there.
# shellcheck disable=SC2034,SC2154 # RULES, OTHER: read by run; t, rc, bin...: set by cli.sh, lib.sh

# The profile: written where asked, read back, and it orders loads.
# x and y are alike on disk; the profile says y is slow, so with one
# worker y goes first. Bad profiles are warnings, never failures.
t_profile() {
	setup 'x\ny\nz x\n'
	run --profile-out "$t/profile" z y
	check "exit 0" eq "$rc" 0
	check "written where asked" eq "$(sed -n '1,2p' "$t/profile" | tr '\n' ' ')" "modpreload-profile 1 kernel 1.0 "
	check "one line a load, by name" eq "$(sed -n '3,$p' "$t/profile" | cut -d' ' -f1 | tr '\n' ' ')" "x y z "
	check "no profile used" eq "$(jq -r .profile.state "$t/r.json")" none
	printf 'modpreload-profile 1\nkernel 1.0\nx 10\ny 500000\n' >"$work/p"
	setup 'x\ny\nz x\n'
	run -j 1 --profile "$work/p" --profile-out "$work/p2" x y
	check "with a profile: exit 0" eq "$rc" 0
	check "y first" eq "$(starts_in_order)" "y x "
	check "used" eq "$(jq -r .profile.state "$t/r.json")" used
	check "known" eq "$(jq -r '.modules[] | select(.name=="y") | .expected_from' "$t/r.json")" profile
	check "expected" eq "$(jq -r '.modules[] | select(.name=="y") | .expected_ms' "$t/r.json")" 500
	check "summary" grep -q "profile $work/p: 2 of 2 loads known; the most moved: y" "$t/err"
	check "--profile-out" grep -q '^x [0-9]*$' "$work/p2"
	check "not beside the report then" [ ! -e "$t/profile" ]
	# another kernel, garbage, a newer version, cut lines: warnings
	printf 'modpreload-profile 1\nkernel 9.9\ny 500000\n' >"$work/p"
	setup 'x\ny\n'
	run --profile "$work/p" x y
	check "other kernel: exit 0" eq "$rc" 0
	check "other kernel: said" grep -q "profile $work/p: made on kernel 9.9, not 1.0: ignored" "$t/err"
	check "other kernel: ignored" eq "$(jq -r .profile.state "$t/r.json")" ignored
	head -c 3000 /dev/urandom >"$work/p"
	setup 'x\ny\n'
	run --profile "$work/p" x y
	check "garbage: exit 0" eq "$rc" 0
	check "garbage: said" grep -q "profile $work/p: not a modpreload profile" "$t/err"
	check "garbage: both loaded" eq "$(ok_loads)" 2
	printf 'modpreload-profile 2\nkernel 1.0\n' >"$work/p"
	setup 'x\n'
	run --profile "$work/p" x
	check "version 2: said" grep -q "a profile version this modpreload does not know" "$t/err"
	printf 'modpreload-profile 1\nkernel 1.0\nx 5\n../y 7\ny\ny 99999999999\nx 6' >"$work/p"
	setup 'x\n'
	run --profile "$work/p" x
	check "bad lines: exit 0" eq "$rc" 0
	check "bad lines: counted" grep -q "profile $work/p: 3 lines not understood, skipped" "$t/err"
	check "bad lines: the rest used" eq "$(jq -r '.modules[] | select(.name=="x") | .expected_ms' "$t/r.json")" 0.006
	rm -f "$work/p"
	setup 'x\n'
	run --profile "$work/p" x
	check "missing: exit 0" eq "$rc" 0
	check "missing: said" grep -q "profile $work/p: .*ENOENT" "$t/err"
}

# The image's own profile (/usr/lib/modpreload/profile, here through the
# shim): the image builders copy the booted system's last one whatever its
# kernel, and the binary alone judges it. This kernel's orders the loads;
# another's (the old kernel's, after an upgrade) is ignored without a
# warning, said at -v.
t_profile_image() {
	printf 'modpreload-profile 1\nkernel 1.0\nx 10\ny 500000\n' >"$work/img"
	setup 'x\ny\n'
	MP_SHIM_PROFILE=$work/img run -j 1 x y
	check "this kernel's: exit 0" eq "$rc" 0
	check "this kernel's: used" eq "$(jq -r .profile.state "$t/r.json")" used
	check "this kernel's: y first" eq "$(starts_in_order)" "y x "
	printf 'modpreload-profile 1\nkernel 9.9\nx 10\ny 500000\n' >"$work/img"
	setup 'x\ny\n'
	MP_SHIM_PROFILE=$work/img run -j 1 x y
	check "another kernel's: exit 0" eq "$rc" 0
	check "another kernel's: ignored" eq "$(jq -r .profile.state "$t/r.json")" ignored
	check "another kernel's: not by it" eq "$(starts_in_order)" "x y "
	check "another kernel's: no warning" eq "$(jq '.warnings | length' "$t/r.json")" 0
	check "another kernel's: quiet" not grep -q "made on kernel" "$t/err"
	setup 'x\ny\n'
	MP_SHIM_PROFILE=$work/img run -v x y
	check "another kernel's: said at -v" grep -q "profile /usr/lib/modpreload/profile: made on kernel 9.9, not 1.0: ignored" "$t/err"
}
