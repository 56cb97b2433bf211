#!/bin/sh
# harness/lib/run.sh's second boot, with a QEMU stand-in on PATH: a QEMU
# that dies of a signal before the initramfs spoke (a SIGSEGV at "Booting
# from ROM", as once in CI) is booted once more and the case goes on; one
# that dies after the initramfs spoke is a failure, not booted again.
# Prints PASS:/FAIL: lines.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/mp-vmrun.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
: >"$work/kernel"
: >"$work/initrd"
# MODE=early: the first boot crashes before the guest spoke, the second
# finishes; MODE=late: every boot crashes after the initramfs spoke
cat >"$work/bin/qemu-system-x86_64" <<'EOF'
#!/bin/sh
n=$(cat "$MPT_FAKE_DIR/boots" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" >"$MPT_FAKE_DIR/boots"
echo "Booting from ROM..."
case $MPT_FAKE_MODE.$n in
early.1) kill -SEGV $$ ;;
late.*) echo "MPT: started=1"; kill -SEGV $$ ;;
esac
echo "MPT: done"
EOF
chmod +x "$work/bin/qemu-system-x86_64"

boot() { # MODE: run.sh's exit code, then its stdout, in $work/MODE.*
	rm -f "$work/boots"
	PATH="$work/bin:$PATH" MPT_FAKE_DIR=$work MPT_FAKE_MODE=$1 MPT_VM_SCALE=1 MPT_VM_CALIB_S=1 \
		"$top/harness/lib/run.sh" -k "$work/kernel" -i "$work/initrd" -t 30 -l "$work/$1.log" \
		>"$work/$1.out" 2>"$work/$1.err"
	echo $? >"$work/$1.rc"
}

boot early
rc=$(cat "$work/early.rc") boots=$(cat "$work/boots")
if [ "$rc" = 0 ] && [ "$boots" = 2 ] && grep -q 'MPT: vm_boots=2' "$work/early.out" &&
	[ -f "$work/early.log.first" ]; then
	echo "PASS: vmrun/crash-before-initramfs (booted once more)"
else
	echo "FAIL: vmrun/crash-before-initramfs: exit $rc after $boots boots, want 0 after 2"
	sed 's/^/  /' "$work/early.err" >&2
fi

boot late
rc=$(cat "$work/late.rc") boots=$(cat "$work/boots")
if [ "$rc" = 1 ] && [ "$boots" = 1 ] && grep -q 'QEMU exit 139' "$work/late.out"; then
	echo "PASS: vmrun/crash-after-initramfs (a failure, not booted again)"
else
	echo "FAIL: vmrun/crash-after-initramfs: exit $rc after $boots boots, want 1 after 1, QEMU exit 139 named"
	sed 's/^/  /' "$work/late.err" >&2
fi
