#!/bin/bash
# shellcheck disable=SC2154 # moddir, dracutsysrootdir: set by dracut
# dracut module "modpreload": load every module early boot asks for
# (coldplug modaliases, rd.driver.pre=, rd.modpreload.modules=, the lists in
# modpreload.d) exactly once, in parallel, in a pre-udev hook. udevd starts
# after it, finds every driver already live and loads nothing twice, instead
# of one modprobe per device and per CPU racing for the same modules.
#
# Opt-in: `dracut --add modpreload` (or add_dracutmodules+=" modpreload " in
# dracut.conf.d). It adds the binary, its lists and the hook; which kernel
# modules the image holds stays kernel-modules' business.
#
# 50: the range dracut-ng (108 and later) keeps for modules outside its tree
# and recommends; dracut 059 takes any number. The number only orders
# module-setup.sh scripts while the image is built; at boot the hook's
# place comes from its hook point and priority (inst_hook below), the same
# in 059, 106 and 112. Nothing here names a hook directory or another
# module's number: dracut-ng moved the hooks to /var/lib/dracut/hooks and
# renumbered its own modules (dracut-systemd 98 -> 77, base 99 -> 80).
#
# Set in the environment or in dracut.conf.d (both are seen here):
#   MODPRELOAD_BIN      the binary to install (default: /usr/sbin/modpreload,
#                       /sbin/modpreload or /usr/local/sbin/modpreload)
#   MODPRELOAD_SYSROOT  the root whose modpreload.d lists go into the image
#                       (default: dracut's --sysroot, else /)
# MODPRELOAD_BIN is a path on the build host, under --sysroot when one is given.

# _modpreload_lists BIN: the modpreload.d lists BIN would read on the root
# the image is made from, into the image at the same paths.
_modpreload_lists() {
    local _root=${MODPRELOAD_SYSROOT:-${dracutsysrootdir-}} _f
    _root=${_root%/}
    while IFS= read -r _f; do
        [[ -s $_f ]] || continue
        if [[ ${MODPRELOAD_SYSROOT-} ]]; then
            inst "$_f" "${_f#"$_root"}"
        else
            # dracut-install reads sources under --sysroot itself
            inst "${_f#"$_root"}"
        fi
    done < <("${dracutsysrootdir-}$1" --list-config-files "${_root:-/}")
}

# The binary to install: MODPRELOAD_BIN, else where `make install` puts it
# for the usual prefixes.
_modpreload_bin() {
    local _b
    if [[ $MODPRELOAD_BIN ]]; then
        printf '%s\n' "$MODPRELOAD_BIN"
        return
    fi
    for _b in /usr/sbin/modpreload /sbin/modpreload /usr/local/sbin/modpreload; do
        if [[ -x ${dracutsysrootdir-}$_b ]]; then
            printf '%s\n' "$_b"
            return
        fi
    done
    printf '%s\n' /usr/sbin/modpreload
}

# called by dracut
check() {
    local _bin
    _bin=$(_modpreload_bin)
    if [[ ! -x ${dracutsysrootdir-}$_bin ]]; then
        dinfo "dracut module 'modpreload' needs $_bin (make install, or set MODPRELOAD_BIN)"
        return 1
    fi
    # Only when asked for: installing the package changes no initramfs.
    return 255
}

# called by dracut
depends() {
    # modprobe.d (options, blacklists, softdeps) and the module tree
    echo kernel-modules
    # Under systemd, pre-udev hooks run only from dracut-pre-udev.service,
    # which comes with dracut-systemd: an image with systemd but without it
    # (an explicit -m list) would hold the hook and never run it. dracut
    # checks modules in their numbers' order, and systemd's (00 up to 106,
    # 10 from 108) is below 50, so systemd is seen here.
    if dracut_module_included systemd; then
        [[ " ${omit_dracutmodules-} " == *" dracut-systemd "* ]] &&
            derror "modpreload: systemd is in the image and dracut-systemd is omitted: nothing would run modpreload's pre-udev hook (dracut-pre-udev.service comes with dracut-systemd)"
        echo dracut-systemd
    fi
    return 0
}

# called by dracut
install() {
    local _bin _confdir _f

    # systemd pulled in after depends() ran (by a later module's own
    # depends): no image that silently never runs the hook.
    if dracut_module_included systemd && ! dracut_module_included dracut-systemd; then
        dfatal "modpreload: systemd is in the image but dracut-systemd is not, so nothing would run modpreload's pre-udev hook: add dracut-systemd (dracut -a dracut-systemd) or leave modpreload out"
        exit 1
    fi

    _bin=$(_modpreload_bin)
    # Installed under its usual name whatever it was built as: the hook
    # calls /usr/sbin/modpreload.
    inst_binary "$_bin" /usr/sbin/modpreload || return 1

    # The lists it reads at boot, as the binary says (modpreload(8),
    # --list-config-files: a name in an earlier directory hides the same name
    # in a later one, a link to /dev/null masks it). Not hostonly (-H)
    # files: they say what to load wherever the image boots.
    _modpreload_lists "$_bin"

    # pre-udev: dracut's shell init sources it right before it starts udevd;
    # with systemd, dracut-pre-udev.service (Before=systemd-udevd.service)
    # does. 05: after fips (01), which must load its crypto first, before
    # every other pre-udev hook (25 and up in 059, 106 and 112). Hooks are
    # sourced in their priority's order whatever the modules' numbers.
    inst_hook pre-udev 05 "$moddir/modpreload-pre-udev.sh"

    _modpreload_profile
}

# The booted system's last profile (modpreload(8), PROFILE), which orders
# this image's loads by what they took. modpreload itself ignores one made
# on another kernel than the image's. MODPRELOAD_PROFILE: another file (the
# tests).
_modpreload_profile() {
    local _p=${MODPRELOAD_PROFILE:-/var/lib/modpreload/profile}
    [[ -f ${dracutsysrootdir-}$_p ]] || return 0
    inst_simple "$_p" /usr/lib/modpreload/profile
}
