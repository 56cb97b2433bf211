# shellcheck shell=sh
# shellcheck disable=SC2154 # top, tmp: set by the case
# The install path every generator's integration checks without booting
# (dracut-install.sh, itools-install.sh), written once. Source it after the
# family's host.sh; the case has a scratch directory $tmp.
#
#   scenario_make_install TARGET DIR SRC FILES PREFIXED DIRVAR=VALUE DIRVARED
#                         PATTERN WHAT
#       `make TARGET DESTDIR=...` puts each of FILES (paths under SRC in
#       the tree) under DIR, executable and unchanged; with PREFIX=/opt/mp
#       the file PREFIXED (under /opt/mp) is there, executable; with
#       DIRVAR=VALUE the file DIRVARED (under VALUE) is; `make -n install`
#       names PATTERN (WHAT: what it installs, for the message). Reasons
#       are harness/lib/verdict.sh's; the case gives the verdict.
#   install_stub ROOT STATUS
#       a stand-in for ROOT/usr/sbin/modpreload that records its arguments
#       in /run/stub.args and the command line file it was given in
#       /run/stub.cmdline, then ends with STATUS ("segv": killed by
#       SIGSEGV; "none": no binary at all)

scenario_make_install() {
	if ! make -s -C "$top" "$1" DESTDIR="$tmp/d1" >"$tmp/make.log" 2>&1; then
		fail "make $1 failed: $(tail -n 3 "$tmp/make.log")"
	fi
	for _si_f in $4; do
		if [ ! -x "$tmp/d1/$2/$_si_f" ]; then
			fail "no executable $2/$_si_f"
		elif ! cmp -s "$tmp/d1/$2/$_si_f" "$top/$3/$_si_f"; then
			fail "$2/$_si_f differs from the source"
		fi
	done
	make -s -C "$top" "$1" DESTDIR="$tmp/d2" PREFIX=/opt/mp >/dev/null 2>&1
	[ -x "$tmp/d2/opt/mp/$5" ] || fail "PREFIX=/opt/mp not honoured"
	make -s -C "$top" "$1" DESTDIR="$tmp/d3" "$6" >/dev/null 2>&1
	[ -x "$tmp/d3${6#*=}/$7" ] || fail "${6%%=*} not honoured"
	make -n -C "$top" install DESTDIR="$tmp/d4" 2>/dev/null | grep -q "$8" ||
		fail "make install does not install $9"
}

# shellcheck disable=SC2016 # the stand-in's own code, expanded when it runs
install_stub() {
	rm -f "$1/usr/sbin/modpreload" "$1/run/stub.args" "$1/run/stub.cmdline"
	[ "$2" = none ] && return
	{
		echo '#!/bin/sh'
		echo 'echo "$*" >/run/stub.args'
		echo 'while [ $# -gt 1 ]; do [ "$1" = --cmdline ] && cat "$2" >/run/stub.cmdline; shift; done'
		if [ "$2" = segv ]; then echo 'kill -SEGV $$'; else echo "exit $2"; fi
	} >"$1/usr/sbin/modpreload"
	chmod 755 "$1/usr/sbin/modpreload"
}
