#!/bin/sh
# tier: full
# booted-storm.sh on Debian trixie (issue 25): trixie's 6.12 (its modules
# .ko.xz, decompressed by the kernel) in a dracut 059 image made by the
# host's dracut, into a trixie root by mmdebstrap (systemd 257, udev, kmod
# 34) with modpreload-coldplug.service enabled, at 16 vCPUs: the same
# checks, with the hand-over, and the storm without modpreload beside them
# (MP_BOOTED_WITHOUT, default 1 here: the pair is what this case is for, on
# a kernel that merges concurrent loads of one file). make check-full only:
# the pair takes longer than make check's budget has (about 15 minutes on a
# busy 2-core host, 5 more the first time: mmdebstrap, the image, the disk).
MP_BOOTED_WITHOUT=${MP_BOOTED_WITHOUT:-1}
export MP_BOOTED_WITHOUT
exec "$(dirname "$0")/booted-storm.sh" trixie
