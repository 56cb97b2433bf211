#!/bin/sh
# tier: full
# pkg-deb-hostonly.sh on Linux 7.3 (issue 37): the trixie root with
# trixie-backports' kernel, as a trixie user installs it, and the root's
# own dracut 106 (dracut-ng), host-only. The same three boots and checks:
# install, rebuild in the guest, one load call per module over the boot,
# the reports and `modpreload analyze`, removal.
exec "$(dirname "$0")/pkg-deb-hostonly.sh" dracut seven trixie
