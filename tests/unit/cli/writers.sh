#!/bin/sh
# What the program writes and where (the load profile, the no-device
# blacklist), what it logs of its input (control bytes escaped), the words
# it is handed (a name starting with '-', quoted module options from the
# command line), the lists an image gets, and a usage error's cleanup.
# Cases run with run_bare (no report unless asked for).
# shellcheck disable=SC2034,SC2154 # RULES is read by run_bare; t, rc, bin, work: set by cli.sh
# A usage error after -C (the list freed).
t_small() {
	setup 'a\nb a\n'
	"$bin" -C "$t/root/etc/modprobe.d" -C x --bogus >"$t/out" 2>"$t/err"
	check "-C then a bad option: exit 2" eq "$?" 2
	"$bin" -C x -j 0 a >"$t/out" 2>>"$t/err"
	check "-C then a bad -j: exit 2" eq "$?" 2
	"$bin" -C x -c y --order z a >"$t/out" 2>>"$t/err"
	check "-C, -c then a bad --order: exit 2" eq "$?" 2
	check "no leak" not grep -q LeakSanitizer "$t/err"
}

# The load profile goes where --profile-out says, or beside a report in
# /run/modpreload (the project's own directory); never over a file that
# is not a profile: a report in /etc once replaced /etc/profile.
t_profile_where() {
	setup 'x\ny x\n'
	mkdir -p "$t/etc"
	echo 'export PATH=/keep/me' >"$t/etc/profile"
	run_bare -r "$t/etc/x.json" y
	check "report elsewhere: exit 0" eq "$rc" 0
	check "report elsewhere: written" [ -s "$t/etc/x.json" ]
	check "report elsewhere: the file beside it untouched" eq "$(cat "$t/etc/profile")" "export PATH=/keep/me"
	rm "$t/etc/profile"
	run_bare -r "$t/etc/x.json" y
	check "report elsewhere: no profile beside it" [ ! -e "$t/etc/profile" ]
	# asked for, over a file that is not a profile: refused, said, exit 0
	echo 'precious' >"$t/etc/other"
	run_bare -r "$t/r.json" --profile-out "$t/etc/other" y
	check "not a profile: exit 0" eq "$rc" 0
	check "not a profile: left as it was" eq "$(cat "$t/etc/other")" precious
	check "not a profile: said" grep -q "etc/other: .*not a modpreload profile" "$t/err"
	check "not a profile: no temporary left" eq "$(ls "$t/etc")" "other
x.json"
	ln -s other "$t/etc/link"
	run_bare --profile-out "$t/etc/link" y
	check "a symlink: left as it was" [ -L "$t/etc/link" ]
	mkfifo "$t/etc/fifo"
	run_bare --profile-out "$t/etc/fifo" y
	check "a fifo: left as it was" [ -p "$t/etc/fifo" ]
	# over an older profile, or where there is none: written
	printf 'modpreload-profile 1\nkernel 1.0\nold 5\n' >"$t/etc/p"
	run_bare --profile-out "$t/etc/p" y
	check "over a profile: replaced" grep -q '^y [0-9]*$' "$t/etc/p"
	run_bare --profile-out "$t/etc/new" y
	check "a new one: written" eq "$(head -n 1 "$t/etc/new")" "modpreload-profile 1"
	# the default beside a report in /run/modpreload, in a mount
	# namespace of our own with a tmpfs on /run
	if unshare -m true 2>/dev/null; then
		rm -rf "${t:?}/sys/module" && mkdir "$t/sys/module"
		# shellcheck disable=SC2016 # expanded by the inner shell
		unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs tmpfs /run && mkdir /run/modpreload &&
			LD_PRELOAD=$1 MP_SHIM_SYSFS=$2/sys MP_SHIM_LOG=$2/log "$3" -d "$2/root" -S 1.0 \
			--sysfs "$2/sys" --cmdline "$2/cmdline" --no-default-config -r /run/modpreload/report.json y \
			>/dev/null 2>>"$2/err"; cp /run/modpreload/profile "$2/runprofile"' - "$shim" "$t" "$bin"
		check "/run/modpreload: the profile beside the report" grep -q '^y [0-9]*$' "$t/runprofile"
	else
		echo "  (no mount namespace: the /run/modpreload case not run)" >&2
	fi
}

t_nodev_whole() {
	# a file without a final newline: the next line is not glued on
	nodev_setup
	printf '# mine\nblacklist other' >"$bl"
	run_bare --coldplug --settle-ms 20 --nodev-blacklist "$bl"
	check "no newline: exit 0" eq "$rc" 0
	check "no newline: its line kept whole" grep -qx 'blacklist other' "$bl"
	check "no newline: ours whole" eq "$(grep -c '^blacklist cpu[ab]$' "$bl")" 2
	# a full file system (the file size limit: EFBIG, SIGXFSZ ignored):
	# what was there stays, nothing of ours is cut
	nodev_setup
	# 10 bytes short of 8 KiB, the limit: a line fits no more
	{ awk 'BEGIN { for (i = 0; i < 240; i++) printf "# padding padding padding padding\n" }'
		printf '%*s\n' $((8192 - 10 - 240 * 34 - 1)) ''; } >"$bl"
	check "full: the file is 8182 bytes" eq "$(stat -c %s "$bl")" 8182
	cp "$bl" "$t/bl.before"
	(
		trap '' XFSZ
		ulimit -f 16
		run_bare --coldplug --settle-ms 20 --nodev-blacklist "$bl"
		echo "$rc" >"$t/rc"
	)
	check "full: the file as it was" cmp -s "$bl" "$t/bl.before"
	check "full: said" grep -q "cannot write the no-device blacklist.*EFBIG" "$t/err"
	# a fifo at its path: refused at once, not waited on
	nodev_setup
	mkfifo "$bl"
	start=$(date +%s)
	timeout 30 sh -c "exec 3<>\"$bl\"; sleep 40" &
	holder=$!
	sleep 0.2
	LD_PRELOAD=$shim MP_SHIM_SYSFS=$t/sys MP_SHIM_LOG=$t/log MP_SHIM_RULES=$RULES timeout 20 \
		"$bin" -d "$t/root" -S 1.0 --sysfs "$t/sys" --cmdline "$t/cmdline" --no-default-config \
		-C "$t/root/etc/modprobe.d" --coldplug --settle-ms 20 --nodev-blacklist "$bl" >"$t/out" 2>"$t/err"
	rc=$?
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	check "fifo: not waited on" [ $(($(date +%s) - start)) -lt 15 ]
	check "fifo: exit 0" eq "$rc" 0
	check "fifo: refused, said" grep -q "nodev.conf: cannot write the no-device blacklist: .*not a regular file" "$t/err"
	# nor one without a reader
	nodev_setup
	mkfifo "$bl"
	LD_PRELOAD=$shim MP_SHIM_SYSFS=$t/sys MP_SHIM_LOG=$t/log MP_SHIM_RULES=$RULES timeout 20 \
		"$bin" -d "$t/root" -S 1.0 --sysfs "$t/sys" --cmdline "$t/cmdline" --no-default-config \
		-C "$t/root/etc/modprobe.d" --coldplug --settle-ms 20 --nodev-blacklist "$bl" >"$t/out" 2>"$t/err"
	check "fifo without a reader: exit 0" eq "$?" 0
	# a symlink is not followed
	nodev_setup
	: >"$t/target"
	ln -s "$t/target" "$bl"
	run_bare --coldplug --settle-ms 20 --nodev-blacklist "$bl"
	check "symlink: not followed" [ ! -s "$t/target" ]
}

t_log_escaped() {
	setup 'a\n'
	bad=$(printf 'x\033[31my\007')
	printf 'a\n%s\n' "$bad" >"$t/list.conf"
	cp "$t/list.conf" "$t/li$bad.conf"
	run_bare -c "$t/li$bad.conf" -c "$t/no$bad.conf" "$bad" "n$bad.o"
	check "names: logged" grep -q 'refusing to load "x\\x1b\[31my\\x07"' "$t/err"
	check "paths: logged" grep -q 'nox\\x1b\[31my\\x07.conf: cannot read' "$t/err"
	check "no raw ESC or BEL" not raw_ctl "$t/err"
	check "a loaded" eq "$(starts a)" 1
	"$bin" --order "$bad" a >"$t/out" 2>"$t/err"
	check "usage error: no raw ESC or BEL" not raw_ctl "$t/err"
	check "usage error: said" grep -q "order: 'x" "$t/err"
}

# A name that starts with '-' (after --, or from a hook's list) is an
# option someone slipped in: refused by name, the others still load.
t_dash_name() {
	setup 'a\nb\n'
	run_bare -- -r a --report=x b
	check "a loaded" eq "$(starts a)" 1
	check "b loaded" eq "$(starts b)" 1
	check "-r refused, named" grep -q 'refusing to load "-r" (argument): not a module name' "$t/err"
	check "--report=x refused" grep -q 'refusing to load "--report=x"' "$t/err"
	check "no report written" [ ! -e x ]
}

t_cmdline_quotes() {
	cmdline_quotes same
	cmdline_quotes other
}

# --list-config-files ROOT: the modpreload.d lists a run would read, for the
# image builders: a name in an earlier directory hides a later one, a link
# to /dev/null masks, and every directory the binary reads counts.
t_list_config() {
	setup 'a\n'
	r=$t/sysroot
	for d in etc run usr/local/lib usr/lib lib; do mkdir -p "$r/$d/modpreload.d"; done
	echo a >"$r/usr/lib/modpreload.d/masked.conf"
	ln -s /dev/null "$r/etc/modpreload.d/masked.conf"
	echo a >"$r/usr/local/lib/modpreload.d/local.conf"
	echo a >"$r/lib/modpreload.d/old.conf"
	echo a >"$r/lib/modpreload.d/hidden.conf"
	echo a >"$r/usr/lib/modpreload.d/hidden.conf"
	echo a >"$r/etc/modpreload.d/etc.conf"
	echo a >"$r/lib/modpreload.d/not-a-list"
	"$bin" --list-config-files "$r" >"$t/out" 2>"$t/err"
	check "exit 0" eq "$?" 0
	check "the lists, in name order" eq "$(sed "s|^$r||" "$t/out" | tr '\n' ' ')" \
		"/etc/modpreload.d/etc.conf /usr/lib/modpreload.d/hidden.conf /usr/local/lib/modpreload.d/local.conf \
/lib/modpreload.d/old.conf "
	"$bin" --list-config-files "$t/none" >"$t/out" 2>>"$t/err"
	check "no such root: none, exit 0" eq "$?:$(cat "$t/out")" "0:"
}

