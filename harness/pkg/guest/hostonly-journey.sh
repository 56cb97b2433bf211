#!/bin/sh
# The guest half of harness/pkg/cases/pkg-deb-hostonly.sh: a user's journey
# on the machine the image boots, one step per boot. mpt-journey.service
# runs it after multi-user.target on a Debian trixie root (systemd, udev,
# the root's own generator: dracut, or initramfs-tools when /mpt/generator
# says itools); /mpt/stage on the root disk, which the three boots share,
# says which step this boot is:
#   fresh      the boot of the installer's generic image, no modpreload:
#              what udev did alone; then `apt-get install` of the .deb
#              copied in (offline), the README's line for the generator
#              and its unit, and the image made again with the machine's
#              own configuration (dracut: host-only; initramfs-tools:
#              MODULES=dep)
#   installed  the boot of that image: what modpreload did, its reports,
#              `modpreload analyze` on them; then the README's way off
#              (the unit disabled, the conf.d line removed), `apt-get
#              remove`, the image made again
#   removed    the boot of that image: what udev did alone again
# Each prints "MPT: key=value" lines (harness/lib/lib.sh's counts, among
# them finit_merged: calls a 6.5+ kernel merged with a load in flight; and):
#   stage                         the step
#   mods=a,b,...                  /proc/modules, sorted
#   bin=PATH|none                 modpreload on PATH
#   units=N                       modpreload's unit files systemd knows
#   holds=N                       the hand-over's holds in /run/modprobe.d
#   nodev=a,b                     the no-device blacklist's names
#   run_files=N                   modpreload's files in /run/modprobe.d,
#                                 and /run/modpreload with what is in it
#   report_initrd, report_booted, report_kept   present|absent:
#                                 /run/initramfs/modpreload.json (dracut's;
#                                 initramfs-tools': /run/modpreload/report.json),
#                                 /run/modpreload/booted.json,
#                                 /var/lib/modpreload/last-report.json
#   img.kos, img.modpreload       the image this boot came from: its .ko
#                                 files, its paths naming modpreload
#   next.kos, next.modpreload     the same of the image this step made
#   apt_install, enable, image, analyze, analyze_booted, svg, disable,
#   apt_remove                    each step's exit status
#   svg_bytes                     the size of analyze --svg's timeline
#   "MPTA: LINE"                  what analyze printed
# then powers off (systemd's own poweroff: the next boot reads this disk).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
exec >/dev/ttyS0 2>&1
kv() { echo "MPT: $1=$2"; }
present() { if [ -s "$1" ]; then echo present; else echo absent; fi; }
# shellcheck source=harness/lib/lib.sh
. /mpt/lib.sh

stage=$(cat /mpt/stage 2>/dev/null) || stage=fresh
gen=$(cat /mpt/generator 2>/dev/null) || gen=dracut
kver=$(uname -r)
img=/boot/initrd.img-$kver
initrd_report=/run/initramfs/modpreload.json
[ "$gen" = dracut ] || initrd_report=/run/modpreload/report.json
kv stage "$stage"
kv root_uptime "$(mpt_uptime)"
# the boot's loads are over: udev's queue, then modpreload's runs, whose
# reports are kept once they are done
udevadm settle --timeout=1800
mpt_wait_loaders 240
if systemctl is-enabled modpreload-coldplug.service >/dev/null 2>&1; then
	timeout 1800 systemctl start modpreload-save-report.service
fi
[ -r "$MPT_TRACE/trace" ] || mount -t tracefs tracefs "$MPT_TRACE"
mpt_trace_counts
mpt_trace_callers
kv mods "$(cut -d' ' -f1 /proc/modules | sort | paste -sd, -)"
kv bin "$(command -v modpreload || echo none)"
kv units "$(systemctl list-unit-files --no-legend 'modpreload*' 2>/dev/null | grep -c modpreload)"
kv holds "$(find /run/modprobe.d -name 'modpreload-held-*' 2>/dev/null | grep -c .)"
kv nodev "$(sed -n 's/^blacklist //p' /run/modprobe.d/modpreload-nodev.conf 2>/dev/null | paste -sd, -)"
kv run_files "$({ find /run/modprobe.d -name 'modpreload*'; find /run/modpreload; } 2>/dev/null | grep -c .)"
kv report_initrd "$(present "$initrd_report")"
kv report_booted "$(present /run/modpreload/booted.json)"
kv report_kept "$(present /var/lib/modpreload/last-report.json)"

# image_facts PREFIX: what the image at $img holds
image_facts() {
	if [ "$gen" = dracut ]; then lsinitrd "$img"; else lsinitramfs "$img"; fi >/tmp/img.list 2>/dev/null
	kv "$1.kos" "$(grep -c '\.ko' /tmp/img.list)"
	kv "$1.modpreload" "$(grep -c modpreload /tmp/img.list)"
}
image_facts img

# step NAME COMMAND...: run it, its output to the console, its status as NAME
step() {
	_n=$1
	shift
	"$@" >/tmp/step.log 2>&1
	_rc=$?
	tail -n 30 /tmp/step.log | sed "s/^/MPTL: $_n: /"
	kv "$_n" "$_rc"
}

# make_image: the image again, as the generator's user makes it
make_image() {
	if [ "$gen" = dracut ]; then step image dracut --force; else step image update-initramfs -u -k "$kver"; fi
}

case $stage in
fresh)
	step apt_install apt-get install -y /mpt/modpreload.deb
	if [ "$gen" = dracut ]; then
		echo 'add_dracutmodules+=" modpreload "' >/etc/dracut.conf.d/modpreload.conf
	else
		echo MODPRELOAD=y >/etc/initramfs-tools/conf.d/modpreload
	fi
	step enable systemctl enable modpreload-coldplug.service
	make_image
	image_facts next
	echo installed >/mpt/stage
	;;
installed)
	# the initramfs's report where the docs say, then the booted run's
	step analyze modpreload analyze "$initrd_report"
	sed 's/^/MPTA: /' /tmp/step.log
	step analyze_booted modpreload analyze /run/modpreload/booted.json
	step svg modpreload analyze --svg /tmp/boot.svg /var/lib/modpreload/last-report.json
	kv svg_bytes "$(wc -c </tmp/boot.svg 2>/dev/null || echo 0)"
	step disable systemctl disable modpreload-coldplug.service
	rm -f /etc/dracut.conf.d/modpreload.conf /etc/initramfs-tools/conf.d/modpreload
	step apt_remove apt-get remove -y modpreload
	make_image
	image_facts next
	echo removed >/mpt/stage
	;;
*)
	echo finished >/mpt/stage
	;;
esac
sync
echo "MPT: done"
systemctl poweroff --no-block
