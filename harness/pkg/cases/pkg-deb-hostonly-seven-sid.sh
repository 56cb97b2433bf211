#!/bin/sh
# tier: full
# pkg-deb-hostonly.sh on a Debian sid root (systemd 262, kmod 34, dracut-ng
# 112) with Linux 7.3: dracut-ng's own default is host-only since 109, so
# the machine's configuration is the one apt installed, no preset added.
exec "$(dirname "$0")/pkg-deb-hostonly.sh" dracut seven sid
