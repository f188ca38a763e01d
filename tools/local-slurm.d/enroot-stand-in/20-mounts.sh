# shellcheck shell=bash
# The Enroot stand-in, part 2 of 4 (tools/local-slurm.d/enroot-stand-in/10-main says what it
# does): the fstab entries and the mounts, as enroot-mount makes them.

# --- fstab lines, as Enroot's utilities read them ---------------------------------------

# int_value=the leading integer of $1, as sscanf's %d reads it; fails when there is none.
leading_int() {
  [[ $1 =~ ^([+-]?)([0-9]+) ]] || return 1
  int_value=$((10#${BASH_REMATCH[2]}))
  [[ ${BASH_REMATCH[1]} != - ]] || int_value=$((-int_value))
}

# decoded=$1 as the fstab reader gives it: glibc's getmntent_r decodes \040, \011, \012, \134 and
# \\ in one pass; musl's (bin/compat.h), the release packages', decodes nothing.
decode_field() {
  decoded=$1
  [[ ${TP_ENROOT_STAND_IN_MNTENT:-musl} == glibc && $decoded == *\\* ]] || return 0
  local rest=$1 out=
  while [[ $rest == *\\* ]]; do
    out+=${rest%%\\*}
    rest=\\${rest#*\\}
    case $rest in
      \\040*) out+=' ' rest=${rest:4} ;;
      \\011*) out+=$'\t' rest=${rest:4} ;;
      \\012*) out+=$'\n' rest=${rest:4} ;;
      \\134*) out+=\\ rest=${rest:4} ;;
      \\\\*) out+=\\ rest=${rest:2} ;;
      *) out+=\\ rest=${rest:1} ;;
    esac
  done
  decoded=$out$rest
}

# The text of EXDEV, the errno of a path that climbs out of the root, in the libc the helpers are
# built against (strerror's words differ).
if [[ ${TP_ENROOT_STAND_IN_MNTENT:-musl} == glibc ]]; then
  readonly exdev_text='Invalid cross-device link'
else
  readonly exdev_text='Cross-device link'
fi

# The mount options enroot-mount knows (its table); any other goes to the file system as data.
readonly known_opts=" async atime bind dev diratime dirsync exec iversion loud mand noatime nodev nodiratime noexec noiversion nomand norelatime nostrictatime nosuid private rbind relatime remount ro rprivate rshared rslave runbindable rw shared silent slave strictatime suid sync unbindable lazytime nolazytime auto defaults group noauto nofail nogroup noowner nouser nousers owner user users x-create=dir x-create=file x-create=auto x-move x-detach "
is_mount_opt() {
  [[ $1 == *,* || $known_opts == *" $1 "* ]]
}
has_opt() { # has_opt OPTS NAME: hasmntopt
  [[ ,$1, == *",$2,"* || ,$1, == *",$2="* ]]
}

# read_fstab FILE PASS: for each entry of FILE whose pass is PASS, calls mount_entry with its
# four fields completed as enroot-mount completes them.
read_fstab() {
  local file=$1 pass=$2 line fsname dir type opts field5 field6 rest freq passno int_value decoded
  [[ -f $file ]] || return 0
  while IFS= read -r line || [[ -n $line ]]; do
    IFS=$' \t\v\f\r' read -r fsname dir type opts field5 field6 rest <<< "$line" || true
    [[ -n $fsname && $fsname != \#* ]] || continue
    # sscanf("%d %d"): the pass is read only after a frequency that is a number.
    freq=0 passno=0
    if leading_int "${field5:-}"; then
      freq=$int_value
      if leading_int "${field6:-}"; then passno=$int_value; fi
    fi
    if ((freq != 0 && passno == 0)); then passno=$freq; fi
    ((passno == pass)) || continue
    decode_field "$fsname"; fsname=$decoded
    decode_field "${dir:-}"; dir=$decoded
    decode_field "${type:-}"; type=$decoded
    decode_field "${opts:-}"; opts=$decoded
    if [[ -n $dir && -z $type && -z $opts ]] && is_mount_opt "$dir"; then
      opts=$dir type=none dir=
    fi
    if [[ -n $type && -z $opts ]] && is_mount_opt "$type"; then
      opts=$type type=none
      [[ $dir != none ]] || dir=
    fi
    if [[ $fsname == tmpfs ]]; then
      if [[ -z $type || $type == none ]]; then type=tmpfs; fi
    else
      [[ -n $dir ]] || dir=$fsname
      if [[ -z $type || $type == none ]]; then
        type=none
        [[ -n $opts ]] || opts=rbind,x-create=auto
      fi
    fi
    [[ -n $fsname && -n $dir && -n $type ]] || mount_err "invalid fstab entry: \"$line\" at $file"
    mount_entry "$fsname" "$dir" "$type" "$opts"
  done < "$file"
}

# --- the mount namespace as the entries so far have made it ---------------------------------

# enroot-mount mounts each entry in turn, and resolves and creates the next entry's target in
# the namespace the earlier ones made: below an earlier bind, a path is in that bind's source
# (read-only where the bind is), not in the root's own directory. The stand-in mounts nothing
# until bwrap runs, so it keeps that view: each mount's point inside the root, the host directory
# it shows (for a tmpfs, an empty one of its own), and whether it is read-only; the root's own
# directory first, writable while the container is set up, as Enroot's bind of it is.
view_points=() view_dirs=() view_ro=()
view_add() { # view_add POINT DIR RO
  view_points+=("$1") view_dirs+=("$2") view_ro+=("$3")
}

# view_path INSIDE: where the resolved absolute path INSIDE is: on_host (a host path), on_ro
# (true when its mount is read-only) and at_point (true when INSIDE is that mount's own point,
# which shows the mounted directory, never a symbolic link). The latest mount at INSIDE or above
# it wins: it covers whatever was mounted below its point before it.
view_path() {
  local inside=$1 i point
  for ((i = ${#view_points[@]} - 1; i >= 0; i--)); do
    point=${view_points[i]}
    [[ $point == / || $inside == "$point" || $inside == "$point"/* ]] || continue
    on_ro=${view_ro[i]} at_point=false
    if [[ $inside == "$point" ]]; then
      on_host=${view_dirs[i]} at_point=true
    elif [[ $point == / ]]; then
      on_host=${view_dirs[i]}$inside
    else
      on_host=${view_dirs[i]}${inside#"$point"}
    fi
    return 0
  done
}

# resolve_in_root PATH: resolved=enroot-mount's realpathat of PATH inside the root, in the view:
# symbolic links followed as if the root were /, components under a missing one kept; fails on
# ".." beyond the root.
resolve_in_root() {
  local next=$1 res='' comp link missing=0 links=0 on_host on_ro at_point
  while [[ -n $next ]]; do
    comp=${next%%/*}
    if [[ $next == */* ]]; then next=${next#*/}; else next=; fi
    [[ -n $comp && $comp != . ]] || continue
    if [[ $comp == .. ]]; then
      [[ $res == */* ]] || return 1
      res=${res%/*}
      if ((missing > 0)); then missing=$((missing - 1)); fi
      continue
    fi
    if ((missing == 0)); then
      view_path "$res/$comp"
      if [[ $at_point != true && -L $on_host ]]; then
        ((links++ < 40)) || return 1
        link=$(readlink -- "$on_host")
        if [[ $link == /* ]]; then res=; fi
        next=$link${next:+/$next}
        continue
      fi
      [[ $at_point == true || -e $on_host ]] || missing=1
    else
      missing=$((missing + 1))
    fi
    res+=/$comp
  done
  resolved=${res:-/}
}

# create_in_root PATH KIND: enroot-mount's create_file (x-create) of the resolved PATH, in the
# view: each missing parent a directory (mode 0755 less the umask), then PATH itself, a
# directory or a file of mode 0. Sets create_error (errno's text) when it fails.
create_in_root() {
  local inside=$1 kind=$2 parent='' rest=${1#/}
  [[ -n ${parent_mode-} ]] || parent_mode=$(printf '%o' $((8#755 & ~8#$(umask))))
  while [[ $rest == */* ]]; do
    parent+=/${rest%%/*}
    rest=${rest#*/}
    make_in_view "$parent" dir "$parent_mode" || return 1
  done
  make_in_view "$inside" "$kind" 0
}

# make_in_view PATH KIND MODE: one mkdir(2) or mknod(2); an existing path is no error. Enroot
# makes it in its user namespace, with CAP_DAC_OVERRIDE over what belongs to the caller's uid and
# gid (the ones it maps): where the caller's rights alone do not do, so does a namespace of its own.
make_in_view() {
  local on_host on_ro at_point out
  view_path "$1"
  [[ $at_point != true && ! -e $on_host && ! -L $on_host ]] || return 0
  if [[ $on_ro == true ]]; then
    create_error='Read-only file system'
    return 1
  fi
  local -a make=(mkdir -m "$3" -- "$on_host")
  # shellcheck disable=SC2016 # the script of sh -c
  [[ $2 == dir ]] || make=(sh -c 'umask 0777 && : >"$1"' sh "$on_host")
  out=$("${make[@]}" 2>&1) && return 0
  if [[ $out == *': Permission denied' ]]; then
    out=$(unshare --user --map-current-user --keep-caps -- "${make[@]}" 2>&1) && return 0
  fi
  [[ ! -e $on_host ]] || return 0
  create_error=${out##*: }
  return 1
}

# The mounts, in order, as bwrap arguments; mount_entry adds to them.
mount_args=()

# mount_entry FSNAME DIR TYPE OPTS: what enroot-mount's mount_entry does with one entry.
mount_entry() {
  local src=$1 dir=$2 type=$3 opts=$4 path inside kind='' fail=true resolved create_error
  local on_host on_ro at_point
  has_opt "$opts" nofail && fail=false
  if resolve_in_root "$dir"; then
    inside=$resolved
  else
    local sep=/
    [[ $dir != /* ]] || sep=
    entry_failed "$fail" "failed to resolve path: $rootfs$sep$dir: $exdev_text"
    return
  fi
  path=$rootfs${inside%/}
  [[ $inside != / ]] || path=$rootfs
  local bind=false rec=false ro=false nodev=false remount=false detach=false opt
  local -a items
  IFS=, read -r -a items <<< "$opts"
  for opt in ${items[@]+"${items[@]}"}; do
    case $opt in
      bind) bind=true ;;
      rbind) bind=true rec=true ;;
      ro) ro=true ;;
      rw) ro=false ;;
      nodev) nodev=true ;;
      dev) nodev=false ;;
      remount) remount=true ;;
      x-detach) detach=true ;;
      x-move) not_here "the mount option x-move is not implemented" ;;
    esac
  done
  if has_opt "$opts" x-create=file; then
    kind='file'
  elif has_opt "$opts" x-create=dir; then
    kind=dir
  elif has_opt "$opts" x-create=auto; then
    if [[ $bind != true ]]; then
      kind=dir
    elif [[ -e $src ]]; then
      if [[ -d $src ]]; then kind='dir'; else kind='file'; fi
    fi
  fi
  if [[ -n $kind ]] && ! create_in_root "$inside" "$kind"; then
    entry_failed "$fail" "failed to create $([[ $kind == file ]] && echo file || echo directory): $path: $create_error"
    return
  fi
  if [[ $detach == true ]]; then
    not_here "the mount option x-detach (Pyxis's \"umount\" source) is not implemented"
  fi
  # What the target is now, in the view: the mount(2) below finds it there.
  view_path "$inside"
  if [[ $remount == true ]]; then
    remount_entry
  elif [[ $bind == true ]]; then
    # mount(2) takes a relative source from the working directory, as bwrap does from its own.
    local from=$src mounted
    [[ $from == /* ]] || from=$PWD/$from
    if [[ ! -e $from ]]; then
      entry_failed "$fail" "failed to mount: $src at $path: No such file or directory"
      return
    fi
    # bwrap binds recursively: a plain bind is the same only where nothing is mounted below.
    if [[ $rec != true && -d $from ]]; then
      for mounted in "${host_mounts[@]}"; do
        [[ $mounted != "${from%/}"/* ]] ||
          not_here "a non-recursive bind of $src, which has mounts below it, is not implemented (bwrap binds recursively)"
      done
    fi
    if [[ ! -e $on_host ]]; then
      entry_failed "$fail" "failed to mount: $src at $path: No such file or directory"
      return
    fi
    if [[ -d $from && ! -d $on_host ]] || [[ ! -d $from && -d $on_host ]]; then
      entry_failed "$fail" "failed to mount: $src at $path: Not a directory"
      return
    fi
    if [[ $nodev == true ]]; then
      mount_args+=(--bind "$from" "$inside")
    else
      mount_args+=(--dev-bind "$from" "$inside")
    fi
    # ro remounts the bind itself, not what is mounted below its source (a remount is never
    # recursive): bwrap's --remount-ro does the same, its --ro-bind would not.
    [[ $ro != true ]] || mount_args+=(--remount-ro "$inside")
    view_add "$inside" "$from" "$ro"
  elif [[ $type == tmpfs ]]; then
    [[ -d $on_host ]] || { entry_failed "$fail" "failed to mount: $src at $path: No such file or directory"; return; }
    local mode=1777
    for opt in ${items[@]+"${items[@]}"}; do
      case $opt in mode=*) mode=${opt#mode=} ;; size=* | nr_inodes=* | uid=* | gid=*) not_here "tmpfs option $opt is not implemented" ;; esac
    done
    mount_args+=(--perms "$mode" --tmpfs "$inside")
    [[ $ro != true ]] || mount_args+=(--remount-ro "$inside")
    # An empty directory of its own stands for the new file system.
    local empty
    empty=$(mktemp -d "$work/tmpfs.XXXXXX")
    view_add "$inside" "$empty" "$ro"
  elif [[ $type != none ]]; then
    not_here "a mount of type $type is not implemented (only binds and tmpfs): $src $dir"
  fi
}

# remount_entry: a remount (mount_entry's locals): the mount at the target made read-only; there
# must be one (mount(2) fails with EINVAL otherwise). bwrap cannot make a read-only mount writable.
remount_entry() {
  [[ $ro == true ]] || not_here "a remount that is not read-only is not implemented: $src $dir"
  local mounted=$at_point point
  for point in "${host_mounts[@]}"; do
    if [[ $point == "$on_host" ]]; then mounted=true; fi
  done
  if [[ $mounted != true ]]; then
    entry_failed "$fail" "failed to mount: $src at $path: Invalid argument"
    return
  fi
  mount_args+=(--remount-ro "$inside")
  view_add "$inside" "$on_host" true
}

entry_failed() { # entry_failed FATAL MESSAGE: nofail turns the failure into a warning
  if [[ $1 == true ]]; then mount_err "$2"; fi
}

