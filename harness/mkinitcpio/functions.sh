# shellcheck shell=bash
# The build-time API that mkinitcpio(8) documents for install hooks ("About
# install hooks"), written again for the tests because mkinitcpio is not
# packaged for Debian: add_module, add_binary, add_file, add_dir,
# add_full_dir, add_symlink, add_all_modules, add_checked_modules,
# add_runscript, add_udev_rule, and the helpers hooks call in practice (map,
# msg, msg2, plain, quiet, warning, error).  add_systemd_unit is defined by
# install/systemd, as in mkinitcpio: a hook sees it only after that hook ran.
#
# Sourced by mkinitcpio.sh, which sets BUILDROOT, KERNELVERSION and
#   _mkc_moduleroot  the root under which lib/modules/$KERNELVERSION is (-r)
#   _mkc_hookpath    colon-separated */hooks directories (runtime hooks)
# and reads back _mkc_modpaths (module files), _mkc_added (module names: 1
# in the image, 2 builtin), _mkc_runhooks (hook names per hook point) and
# _mkc_errors (failed add_* calls).

: "${_mkc_moduleroot=}" "${_mkc_hookpath=}"
declare -A _mkc_modpaths=() _mkc_added=() _mkc_runhooks=()
declare -i _mkc_errors=0
_mkc_verbose=${_mkc_verbose:-0}

msg() {
    local fmt=$1
    shift
    # shellcheck disable=SC2059 # the format is the caller's
    printf "==> $fmt\n" "$@"
}

msg2() {
    local fmt=$1
    shift
    # shellcheck disable=SC2059
    printf "  -> $fmt\n" "$@"
}

plain() {
    local fmt=$1
    shift
    # shellcheck disable=SC2059
    printf "    $fmt\n" "$@"
}

quiet() {
    ((_mkc_verbose)) || return 0
    plain "$@"
}

warning() {
    local fmt=$1
    shift
    # shellcheck disable=SC2059
    printf "==> WARNING: $fmt\n" "$@" >&2
}

# Every error counts: the image is reported incomplete at the end, as
# mkinitcpio does for a failed add_* call.
error() {
    local fmt=$1
    shift
    # shellcheck disable=SC2059
    printf "==> ERROR: $fmt\n" "$@" >&2
    ((++_mkc_errors))
    return 1
}

# map FUNC ARG...: FUNC on each ARG; fails if any call failed.
map() {
    local f=$1 arg r=0
    shift
    for arg; do
        "$f" "$arg" || r=1
    done
    return "$r"
}

# The directory DEST will be written in must resolve inside $BUILDROOT: the
# image holds absolute symlinks (to the image's own paths) that would point
# at the host if followed while building.  Directories checked once.
declare -A _mkc_inside_ok=()
_mkc_inside() {
    local dir=/${1%/*} parent

    [[ -n ${_mkc_inside_ok[$dir]-} ]] && return 0
    parent=$(realpath -m -- "$BUILDROOT$dir")
    if [[ $parent/ != "$(realpath -m -- "$BUILDROOT")"/* ]]; then
        error "refusing to write %s: it resolves to %s, outside the image" "$1" "$parent"
        return
    fi
    _mkc_inside_ok[$dir]=1
}

add_dir() {
    local path=$1 mode=${2:-755}

    [[ $path == /?* ]] || { error "add_dir: not an absolute path: '%s'" "$path"; return; }
    [[ -d $BUILDROOT$path ]] && return 0
    _mkc_inside "$path/x" || return
    quiet "adding dir: %s" "$path"
    install -d -m "$mode" -- "$BUILDROOT$path"
}

add_symlink() {
    local name=$1 target=${2-}

    (($# == 1 || $# == 2)) || { error "add_symlink: NAME [TARGET]"; return; }
    if [[ -z $target ]]; then
        target=$(readlink -- "$name") || { error "not a symlink: '%s'" "$name"; return; }
    fi
    add_dir "${name%/*}" || return
    _mkc_inside "$name" || return
    if [[ -d $BUILDROOT$name && ! -L $BUILDROOT$name ]]; then
        error "add_symlink: %s is a directory in the image" "$name"
        return
    fi
    quiet "adding symlink: %s -> %s" "$name" "$target"
    ln -sfn -- "$target" "$BUILDROOT$name"
}

add_file() {
    local src=$1 dest=${2:-$1} mode=${3-} real

    [[ $dest == */ ]] && dest=$dest${src##*/}
    if [[ ! -f $src ]]; then
        error "file not found: '%s'" "$src"
        return
    fi
    # A symlink goes in as the link plus its target, at the target's path.
    if [[ -L $src ]]; then
        real=$(realpath -- "$src")
        if [[ $real != "$dest" ]]; then
            add_file "$real" "$real" "$mode" || return
            add_symlink "$dest" "$real"
            return
        fi
    fi
    [[ -n ${dest%/*} ]] && { add_dir "${dest%/*}" || return; }
    _mkc_inside "$dest" || return
    quiet "adding file: %s" "$dest"
    rm -f -- "$BUILDROOT$dest"
    if [[ -n $mode ]]; then
        install -m "$mode" -- "$src" "$BUILDROOT$dest"
    else
        cp --preserve=mode -- "$src" "$BUILDROOT$dest"
    fi
}

# The file, and for a dynamic ELF binary every library ldd lists.  A script
# keeps its interpreter's name: that the image has it is the hook's business.
add_binary() {
    local bin=$1 dest=${2-} mode=${3-} line lib

    if [[ $bin != /* ]]; then
        bin=$(type -P -- "$bin") || { error "binary not found: '%s'" "$1"; return; }
    fi
    add_file "$bin" "${dest:-$bin}" "$mode" || return
    # ldd fails on static binaries and scripts: nothing more to add
    while read -r line; do
        case $line in
        *'not found'*) error "library %s of %s not found" "${line%% *}" "$bin" ;;
        *' => /'*) lib=${line#* => }; lib=${lib%% (*} ;;
        /*) lib=${line%% (*} ;;
        *) continue ;;
        esac
        [[ -n ${lib-} && ! -e $BUILDROOT$lib ]] && add_file "$lib"
        lib=
    done < <(ldd -- "$bin" 2>/dev/null)
    return 0
}

add_full_dir() {
    local dir=$1 glob=${2:-*} strip=${3-} f

    [[ -d $dir ]] || return 0
    add_dir "${dir#"$strip"}" || return
    for f in "$dir"/*; do
        if [[ -L $f ]]; then
            # shellcheck disable=SC2053 # the glob is a pattern on purpose
            [[ $f == $glob ]] && add_symlink "${f#"$strip"}" "$(readlink -- "$f")"
        elif [[ -d $f ]]; then
            add_full_dir "$f" "$glob" "$strip"
        elif [[ -f $f ]]; then
            # shellcheck disable=SC2053
            [[ $f == $glob ]] && add_file "$f" "${f#"$strip"}"
        fi
    done
    return 0
}

# add_module NAME[?]: the module (a name or an alias: modinfo resolves it)
# with its dependencies and soft dependencies; a trailing '?' makes a
# missing module no error.  Builtins count as present.
add_module() {
    local name=$1 optional=0 field value found=0 dep m
    local -a deps softs

    [[ $KERNELVERSION == none ]] && return 0
    if [[ $name == *\? ]]; then
        optional=1
        name=${name%\?}
    fi
    name=${name%.ko*}
    name=${name//-/_}
    [[ -n ${_mkc_added[$name]-} ]] && return 0

    while IFS=':= ' read -r -d '' field value; do
        case $field in
        filename)
            # "(builtin)" for a builtin reached through an alias
            [[ $value == /* ]] || continue
            found=1
            m=${value##*/}
            m=${m%.ko*}
            quiet "adding module: %s (%s)" "$m" "$value"
            _mkc_modpaths[$value]=1
            _mkc_added[${m//-/_}]=1
            ;;
        depends)
            IFS=',' read -r -a deps <<<"$value"
            for dep in "${deps[@]}"; do add_module "$dep"; done
            ;;
        softdep)
            read -r -a softs <<<"$value"
            for dep in "${softs[@]}"; do
                [[ $dep == *: ]] || add_module "$dep?"
            done
            ;;
        esac
    done < <(modinfo -b "$_mkc_moduleroot" -k "$KERNELVERSION" -0 "$name" 2>/dev/null)

    ((found)) && return 0
    ((optional)) || [[ -n ${_mkc_added[$name]-} ]] && return 0
    error "module not found: '%s'" "$name"
}

# _mkc_all_modules [-f FILTER]... PATTERN...: names of the modules whose path
# matches one of the extended regular expressions, minus the filtered ones.
_mkc_all_modules() {
    local OPTIND=1 flag path m
    local -a filters=()
    local -i n=0

    while getopts ':f:' flag; do
        [[ $flag == f ]] && filters+=("$OPTARG")
    done
    shift $((OPTIND - 1))
    while read -r -d '' path; do
        for m in "${filters[@]}"; do
            [[ $path =~ $m ]] && continue 2
        done
        m=${path##*/}
        m=${m%.ko*}
        printf '%s\n' "${m//-/_}"
        n+=1
    done < <(find "$_mkc_moduleroot/lib/modules/$KERNELVERSION" -name '*.ko*' -print0 |
        grep -zE "$@")
    ((n))
}

add_all_modules() {
    local -a mods
    mapfile -t mods < <(_mkc_all_modules "$@")
    ((${#mods[@]})) || return 1
    map add_module "${mods[@]}"
}

# No autodetect hook in these tests: the same as add_all_modules, as
# mkinitcpio(8) says for an image without it.
add_checked_modules() {
    add_all_modules "$@"
}

# add_runscript: the runtime hook named like the install hook that calls it,
# and the hook points it defines.
add_runscript() {
    local name=${BASH_SOURCE[1]##*/} script fn dir
    local -a dirs

    IFS=: read -r -a dirs <<<"$_mkc_hookpath"
    script=
    for dir in "${dirs[@]}"; do
        if [[ -f $dir/$name ]]; then
            script=$dir/$name
            break
        fi
    done
    [[ -n $script ]] || { error "runtime script for '%s' not found" "$name"; return; }
    add_file "$script" "/hooks/$name" 755 || return
    while read -r fn; do
        case $fn in
        run_earlyhook) _mkc_runhooks[early]+=" $name" ;;
        run_hook) _mkc_runhooks[hooks]+=" $name" ;;
        run_latehook) _mkc_runhooks[late]+=" $name" ;;
        # run in reverse HOOKS order
        run_cleanuphook) _mkc_runhooks[cleanup]="$name ${_mkc_runhooks[cleanup]-}" ;;
        run_emergencyhook) _mkc_runhooks[emergency]="$name ${_mkc_runhooks[emergency]-}" ;;
        esac
    done < <(sed -n 's/^[[:space:]]*\(run_[[:alnum:]_]*\)[[:space:]]*()[[:space:]]*{*.*$/\1/p' "$script")
    return 0
}

# add_udev_rule RULES: the file (a name is looked up in udev's rule
# directories) and the programs its RUN/IMPORT{program} keys call.
add_udev_rule() {
    local rules=$1 line key value prog
    local -a pairs

    if [[ $rules != /* ]]; then
        rules=$(PATH=/usr/lib/udev/rules.d:/lib/udev/rules.d type -P -- "$rules") ||
            { error "udev rule not found: '%s'" "$1"; return; }
    fi
    add_file "$rules" "/usr/lib/udev/rules.d/${rules##*/}" || return
    while IFS= read -r line; do
        [[ -z $line || $line == \#* ]] && continue
        IFS=, read -r -a pairs <<<"$line"
        for value in "${pairs[@]}"; do
            IFS=' =' read -r key prog <<<"$value"
            case $key in
            'RUN{program}' | 'RUN+' | 'IMPORT{program}' | 'ENV{REMOVE_CMD}')
                prog=${prog//[\"\']/}
                prog=${prog%% *}
                [[ -z $prog || $prog == \$* ]] && continue
                [[ $prog == /* ]] || prog=$(PATH=/usr/lib/udev:/lib/udev type -P -- "$prog") || continue
                add_binary "$prog"
                ;;
            esac
        done
    done <"$rules"
    return 0
}
