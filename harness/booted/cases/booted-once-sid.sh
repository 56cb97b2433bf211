#!/bin/sh
# tier: full
# booted-once.sh into a root of Debian unstable (issue 25, item 3): a
# systemd of 259 or later, whose systemd-modules-load loads modules-load.d
# in parallel (a thread pool), beside modpreload-coldplug.service, which
# takes the same names over. trixie's 6.12 and its .ko.xz modules, the
# image by the host's dracut 059 (as booted-once-trixie), 16 vCPUs, with
# modpreload (and, MP_BOOTED_WITHOUT=1, the storm without it). The details
# line names the root's systemd; the checks are booted-once's. The root is
# made once from deb.debian.org and kept in the test cache.
exec "$(dirname "$0")/booted-once.sh" sid
