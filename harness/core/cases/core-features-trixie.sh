#!/bin/sh
# core-features.sh on Debian trixie's 6.12 (modules as .ko.xz).
exec "$(dirname "$0")/core-features.sh" trixie
