#!/bin/sh
# The identity of the code a boot ran: 12 hex of the sha256 over the
# contents of every tracked file of modpreload itself and its integrations
# (preload/, init/, the initramfs and systemd parts), as they are in the
# work tree. Not the commit: a commit that changes only docs, the harness
# or the bench keeps the records of the code it did not change.
set -eu
cd "$(dirname "$0")/.."
git ls-files -- preload init dracut-module initramfs-tools mkinitcpio-hook systemd |
	LC_ALL=C sort | while IFS= read -r f; do
		printf '%s %s\n' "$(git hash-object -- "$f")" "$f"
	done | sha256sum | cut -c1-12
