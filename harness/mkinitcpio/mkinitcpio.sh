#!/bin/bash
# A stand-in for mkinitcpio's build step (mkinitcpio is not packaged for
# Debian), following mkinitcpio(8): a mkinitcpio.conf (MODULES, BINARIES,
# FILES, HOOKS), install hooks found by name under each -D DIR/install and
# sourced with build() called in HOOKS order, the runtime hooks they add
# under /hooks, /config recording MODULES and the hooks of each hook point
# for /init, the modules with a depmod of the image.  functions.sh holds the
# hook API.
#
# Usage: harness/mkinitcpio/mkinitcpio.sh -c CONFIG -k KVER -r MODROOT -D DIR...
#            [-g IMAGE] [-d BUILDROOT] [-A HOOK,...] [-S HOOK,...] [-v]
#
#   -c CONFIG     mkinitcpio.conf-style file (bash)
#   -k KVER       kernel version ("none": no modules)
#   -r MODROOT    root under which lib/modules/KVER is
#   -D DIR        hook directory (DIR/install, DIR/hooks); repeatable, the
#                 first that has a hook wins
#   -g IMAGE      write a gzip'ed newc cpio image
#   -d BUILDROOT  build the tree here (kept; must not exist) instead of a
#                 temporary directory
#   -A, -S        add / skip hooks, as mkinitcpio's -A and -S
#   -v            list every file added
# Exit status: 0, or 1 when an add_* call failed or the image was not made.
set -u
shopt -s extglob

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=harness/mkinitcpio/functions.sh
. "$here/functions.sh"

usage() {
    sed -n 's/^# Usage: /usage: /p; s/^#            /            /p' "$0" >&2
    exit 2
}

config='' image='' keep='' _mkc_moduleroot='' KERNELVERSION=''
_mkc_installpath='' _mkc_hookpath=''
declare -a addhooks=() skiphooks=()
while getopts 'c:k:r:D:g:d:A:S:vh' opt; do
    case $opt in
    c) config=$OPTARG ;;
    k) KERNELVERSION=$OPTARG ;;
    r) _mkc_moduleroot=$OPTARG ;;
    D)
        _mkc_installpath+="${_mkc_installpath:+:}$OPTARG/install"
        _mkc_hookpath+="${_mkc_hookpath:+:}$OPTARG/hooks"
        ;;
    g) image=$OPTARG ;;
    d) keep=$OPTARG ;;
    A) IFS=, read -r -a a <<<"$OPTARG" && addhooks+=("${a[@]}") ;;
    S) IFS=, read -r -a a <<<"$OPTARG" && skiphooks+=("${a[@]}") ;;
    v) _mkc_verbose=1 ;;
    *) usage ;;
    esac
done
[[ -n $config && -n $KERNELVERSION && -n $_mkc_installpath ]] || usage
[[ $KERNELVERSION == none || -n $_mkc_moduleroot ]] || usage
# modinfo reports absolute paths: the image's paths are taken relative to it
[[ -n $_mkc_moduleroot ]] && _mkc_moduleroot=$(realpath -- "$_mkc_moduleroot")
_mkc_moduledir=$_mkc_moduleroot/lib/modules/$KERNELVERSION
if [[ $KERNELVERSION != none && ! -d $_mkc_moduledir ]]; then
    error "'%s' is not a valid kernel module directory" "$_mkc_moduledir"
    exit 1
fi

# --- the build root, laid out as mkinitcpio lays it out ---------------------
if [[ -n $keep ]]; then
    [[ ! -e $keep ]] || { error "%s exists" "$keep"; exit 1; }
    mkdir -p "$keep"
    BUILDROOT=$(cd "$keep" && pwd)
else
    BUILDROOT=$(mktemp -d "${TMPDIR:-/tmp}/mkinitcpio-test.XXXXXX")
    trap 'rm -rf "$BUILDROOT"' EXIT
fi
export BUILDROOT KERNELVERSION
install -d "$BUILDROOT"/{proc,sys,dev,run,tmp,var,etc,sysroot} \
    "$BUILDROOT"/usr/{local/{bin,sbin,lib},lib,bin}
ln -s usr/lib "$BUILDROOT/lib"
ln -s bin "$BUILDROOT/usr/sbin"
ln -s usr/bin "$BUILDROOT/bin"
ln -s usr/bin "$BUILDROOT/sbin"
ln -s ../run "$BUILDROOT/var/run"
ln -s lib "$BUILDROOT/usr/lib64"
ln -s usr/lib "$BUILDROOT/lib64"
ln -s sysroot "$BUILDROOT/new_root"
ln -s ../proc/self/mounts "$BUILDROOT/etc/mtab"
: >"$BUILDROOT/etc/fstab"
: >"$BUILDROOT/etc/initrd-release"
: >"$BUILDROOT/etc/ld.so.conf"
printf 'mkinitcpio-test' >"$BUILDROOT/VERSION"
[[ $KERNELVERSION == none ]] || install -d "$BUILDROOT/usr/lib/modules/$KERNELVERSION/kernel"

# --- configuration --------------------------------------------------------------
# its path stays known to the hooks, as mkinitcpio's _f_config
_mkc_config=$(realpath -- "$config")
MODULES=() BINARIES=() FILES=() HOOKS=()
# shellcheck disable=SC1090 # the configuration under test
. "$config" || { error "cannot read %s" "$config"; exit 1; }
declare -a hooks=()
for h in "${HOOKS[@]}" "${addhooks[@]}"; do
    [[ " ${skiphooks[*]} " == *" $h "* ]] || hooks+=("$h")
done
((${#hooks[@]})) || { error "no hooks in %s" "$config"; exit 1; }

# builtins count as added: add_module "ext4" on a kernel with ext4 built in
# is no error
if [[ -r $_mkc_moduledir/modules.builtin ]]; then
    while IFS= read -r path; do
        m=${path##*/}
        m=${m%.ko}
        _mkc_added[${m//-/_}]=2
    done <"$_mkc_moduledir/modules.builtin"
fi

# --- install hooks ------------------------------------------------------------------
# Sourced in this shell, like mkinitcpio's run_build_hook: a hook's build()
# sees BUILDROOT, KERNELVERSION and the add_* functions, and what one hook
# defines (add_systemd_unit) stays defined for the hooks after it.  MODULES,
# BINARIES, FILES and SCRIPT are local and empty, as in mkinitcpio: what a
# hook sets there (the old hook API) is dropped; the config's lists are
# added after every hook ran.
run_build_hook() {
    local hook=$1 script='' dir
    local -a dirs
    # shellcheck disable=SC2034 # shadows, for the hooks
    local -a MODULES=() BINARIES=() FILES=()
    # shellcheck disable=SC2034
    local SCRIPT=''

    IFS=: read -r -a dirs <<<"$_mkc_installpath"
    for dir in "${dirs[@]}"; do
        if [[ -f $dir/$hook ]]; then
            script=$dir/$hook
            break
        fi
    done
    [[ -n $script ]] || { error "hook '%s' cannot be found" "$hook"; return; }
    unset -f build
    # shellcheck disable=SC1090 # the hook under test
    . "$script" || { error "cannot read %s" "$script"; return; }
    declare -F build >/dev/null || { error "hook '%s' has no build function" "$script"; return; }
    msg2 "Running build hook: [%s]" "$script"
    build
    return 0
}

msg "Starting build: %s" "$KERNELVERSION"
for h in "${hooks[@]}"; do
    run_build_hook "$h"
done

# --- the configuration's own lists, and /config for /init ---------------------
map add_module "${MODULES[@]}"
map add_binary "${BINARIES[@]}"
map add_file "${FILES[@]}"
cp "$config" "$BUILDROOT/buildconfig"
words() { # words "LIST": the list with single spaces, none around it
    local -a w
    read -r -a w <<<"$1"
    printf '%s' "${w[*]}"
}
{
    # Only what went into the image as a module file: builtins and missing
    # ones are left out, as mkinitcpio does, for /init's `modprobe -qab`.
    declare -a real=()
    for m in "${MODULES[@]%\?}"; do
        m=${m//-/_}
        [[ ${_mkc_added[$m]-} == 1 ]] && real+=("$m")
    done
    ((${#real[@]})) && printf 'MODULES="%s"\n' "${real[*]}"
    printf '%s="%s"\n' \
        EARLYHOOKS "$(words "${_mkc_runhooks[early]-}")" \
        HOOKS "$(words "${_mkc_runhooks[hooks]-}")" \
        LATEHOOKS "$(words "${_mkc_runhooks[late]-}")" \
        CLEANUPHOOKS "$(words "${_mkc_runhooks[cleanup]-}")" \
        EMERGENCYHOOKS "$(words "${_mkc_runhooks[emergency]-}")"
} >"$BUILDROOT/config"

# --- modules: the files, then depmod of the image, then only the indexes ------
if [[ $KERNELVERSION != none ]]; then
    moddest=/usr/lib/modules/$KERNELVERSION
    if ((${#_mkc_modpaths[@]} == 0)); then
        warning "no modules were added to the image"
    fi
    for p in "${!_mkc_modpaths[@]}"; do
        add_file "$p" "$moddest/${p#"$_mkc_moduledir"/}"
    done
    for f in modules.builtin modules.builtin.modinfo modules.order; do
        [[ -f $_mkc_moduledir/$f ]] && add_file "$_mkc_moduledir/$f" "$moddest/$f"
    done
    depmod -b "$BUILDROOT" "$KERNELVERSION" || error "depmod failed"
    # mkinitcpio keeps the binary indexes, modules.devname and
    # modules.softdep only: a loader in the image has to make do with those.
    rm -f "$BUILDROOT$moddest"/modules.!(*.bin|devname|softdep)
fi

# --- the image ----------------------------------------------------------------------
status=0
if [[ -n $image ]]; then
    mkdir -p "$(dirname "$image")"
    if (cd "$BUILDROOT" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
        cpio -o -H newc -R 0:0 --quiet | gzip -6 -n) >"$image.tmp"; then
        mv "$image.tmp" "$image"
        msg "Image: %s (%s KiB, %d modules)" "$image" "$(du -k "$image" | cut -f1)" \
            "${#_mkc_modpaths[@]}"
    else
        rm -f "$image.tmp"
        error "image generation failed"
    fi
fi
if ((_mkc_errors)); then
    warning "%d errors were encountered during the build: the image may not be complete" \
        "$_mkc_errors"
    status=1
fi
exit "$status"
