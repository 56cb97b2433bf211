# shellcheck shell=sh
# Host-side helpers for the VM tests: read the "MPT: key=value" lines that
# tests/vm/run.sh prints (or a raw serial log; CRs and text before "MPT: "
# on a line are ignored).  Source it: . tests/vm/hostlib.sh
#
#   mpt_get KEY [FILE]      value of the last KEY line; status 1 if none
#   mpt_num KEY [FILE]      like mpt_get, but 0 when absent or not a number
#   mpt_has KEY [FILE]      status 0 when a KEY line exists
#   mpt_keys PREFIX [FILE]  "key=value" for every key starting with PREFIX
# Input is FILE, or stdin when FILE is not given.

mpt_lines_() {
	if [ $# -gt 0 ]; then tr -d '\r' <"$1"; else tr -d '\r'; fi |
		sed -n 's/.*MPT: //p'
}

mpt_get() {
	mpt_key_=$1
	shift
	mpt_lines_ "$@" | awk -v k="$mpt_key_" '
		index($0, k "=") == 1 { v = substr($0, length(k) + 2); f = 1 }
		END { if (f) print v; exit !f }'
}

mpt_num() {
	mpt_v_=$(mpt_get "$@") || mpt_v_=0
	case $mpt_v_ in
	'' | *[!0-9-]*) echo 0 ;;
	*) echo "$mpt_v_" ;;
	esac
}

mpt_has() {
	mpt_get "$@" >/dev/null
}

mpt_keys() {
	mpt_prefix_=$1
	shift
	mpt_lines_ "$@" | awk -v p="$mpt_prefix_" 'index($0, p) == 1'
}
