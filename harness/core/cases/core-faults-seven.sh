#!/bin/sh
# tier: full
# core-faults.sh on Linux 7.x (issue 37): Debian's newest 7.x
# (harness/lib/kernels.sh seven: 7.3 from trixie-backports), the test
# modules built against its headers. The same faults; an init() that
# returns EEXIST (mpt_exist) reaches userspace as EBUSY there, and
# modpreload names it with that errno, tries it once and goes on
# (docs/linux-7.md). make check-full's: the first run fetches the kernel
# and builds its modpost and objtool (about 3 minutes).
exec "$(dirname "$0")/core-faults.sh" seven
