#!/bin/sh
# tier: full
# booted-once.sh on Debian trixie with the image made by the current
# dracut-ng release (issue 25): the one Debian sid carries, built from its
# upstream source into a private prefix (harness/lib/dracutng.sh), with
# modpreload's dracut module from this tree; trixie's 6.12 and its .ko.xz
# modules into the trixie root (systemd 257, udev, kmod 34), 16 vCPUs, to
# multi-user.target: booted-once-trixie's checks, with the hand-over, and
# the storm without modpreload beside it.
exec "$(dirname "$0")/booted-once.sh" trixie-ng
