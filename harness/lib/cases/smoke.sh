#!/bin/sh
# tier: full
# The harness itself on all three kernels (harness/lib/smoke.sh): kmod's
# modprobe loads the test chain and diamond (and ext4 on 6.12), one
# successful load syscall per module, nothing loaded twice; compression and
# module stats as each kernel has them.  About 45 s once everything is
# cached; the first run also builds the stats kernel (~4.5 min).
top=$(cd "$(dirname "$0")/../../.." && pwd)
"$top/harness/lib/smoke.sh" all | grep -v '^smoke: '
exit 0
