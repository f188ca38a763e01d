#!/bin/bash
# tuneplane-slurm-enroot-stand-in
# A stand-in for Enroot on the local Slurm's nodes (tools/local-slurm up installs it as
# /usr/local/bin/enroot where no enroot is installed; Debian has no package): this file and the
# three after it in tools/local-slurm.d/enroot-stand-in/, concatenated in order. It does, for the
# commands Pyxis runs (`create`, `start --conf`, `remove`), what Enroot 4.1.2 does wherever our
# values pass through, read from Enroot's public source (enroot.in, src/runtime.sh,
# src/common.sh, bin/enroot-mount.c, bin/enroot-switchroot.c, bin/compat.h, conf/mounts/*.fstab,
# conf/environ/10-terminal.env, conf/hooks/*.sh); Enroot 3.4 differs from 4.1.2 in none of them
# but /etc/localtime (a mount in 3.4, a copy by a hook in 4.x; this follows 4.x):
#   - `create [-n NAME] [-f] IMAGE` extracts the squashfs IMAGE with unsquashfs into
#     $ENROOT_DATA_PATH/NAME, a root of this user's own, as Enroot does (no shared cache: the
#     hooks and Pyxis's own hook write into it before it is made read-only).
#   - `start [-c|--conf CONFIG] [-w|--rw] NAME|IMAGE [COMMAND [ARG...]]`: CONFIG is checked with
#     `bash -n`, its `#ENROOT_*` directive lines are evaluated (eval echo, as config::load does),
#     and it is sourced in bash, on the host, as the calling user, with errexit, nounset and
#     pipefail, in a subshell where ENROOT_ROOTFS, ENROOT_ENVIRON, ENROOT_MOUNTS and ENROOT_PID
#     are set; then, in Enroot's order: the environment file (the root's /etc/environment and
#     10-terminal.env, ${VAR} replaced from the caller's environment, then the config's
#     environ(), formatted as common::envfmt does), the mounts of pass -1 (the root's
#     /etc/fstab, 10-system.fstab and 20-config.fstab), the hooks (what 10-cgroups, 10-home,
#     10-localtime and 10-shadow do, then the config's hooks()), the mounts of pass 0 (the same
#     files, then the lines the config's mounts() prints). Every fstab line is read as Enroot's
#     utilities read
#     it: bin/compat.h's getmntent, the one of the release packages (statically linked with
#     musl), which splits on white space and decodes no escape (TP_ENROOT_STAND_IN_MNTENT=glibc:
#     glibc's getmntent_r, which decodes \040, \011, \012 and \134, as Enroot built with
#     FORCE_GLIBC does); the fields are completed as enroot-mount guesses them, and each entry in
#     turn is resolved inside the root (realpathat: links followed as if the root were /, ".."
#     beyond it refused) and created as x-create says in the namespace the entries before it
#     made, as enroot-mount mounts one after the other: below an earlier bind a target is in that
#     bind's source (and cannot be created where the bind is read-only), with the rights Enroot's
#     user namespace gives over the caller's own files; a missing source or target fails as
#     mount(2) does. The container is then made with bubblewrap (bwrap): a user, mount and cgroup
#     namespace (the caller's own uid and gid, or uid 0 mapped to them with ENROOT_REMAP_ROOT; no
#     PID, network, IPC or UTS namespace, as Enroot), the root bound at /, the mounts in that
#     order (ro makes a bind read-only, not what is mounted below its source, as Enroot's remount
#     does), the root remounted read-only unless ENROOT_ROOTFS_WRITABLE, its /.lock read-only; and
#     it starts as enroot-switchroot --login does: the environment file's variables only, then
#     TERM, HOME, SHELL, USER, LOGNAME (the caller's) and PATH (musl's defaults) where unset, for
#     the user the container runs as (root when remapped), in $HOME, that user's shell from the
#     root's /etc/passwd running /etc/rc if the root has one, else `-c 'exec "$@"'` and the
#     command.
#   - `remove [-f] NAME...` deletes $ENROOT_DATA_PATH/NAME; `version` prints 4.1.2.
# Settings: as enroot.conf's defaults (ENROOT_ROOTFS_WRITABLE, ENROOT_MOUNT_HOME,
# ENROOT_LOGIN_SHELL, ... from the environment, "n", "no", "false" meaning unset), but its paths
# are a site's: ENROOT_DATA_PATH and ENROOT_RUNTIME_PATH under $TP_ENROOT_STAND_IN_DIR (else
# /tmp/tp-enroot-stand-in-UID). A command, option or setting of Enroot that this stand-in does not
# implement fails with status 255 (an unknown one with Enroot's usage and status 1), so that a
# caller that needs more is caught, not faked. Not done: the login shell's profile files (the
# root must have no /etc/profile or ~/.profile: bwrap cannot set argv[0]), NVIDIA and Mellanox
# hooks, ENROOT_RESTRICT_DEV, squashfs images started without `create`, import, export, exec,
# list; Enroot's seccomp filter (chown and setuid faked for the user); a mount's noexec (bwrap
# sets nosuid on every mount, nodev on the read-only ones, never noexec). In a chroot, where the
# kernel refuses user namespaces to everyone, root's container has none (chrooted_root).
set -euo pipefail
shopt -s lastpipe

readonly version=4.1.2
me="enroot stand-in"

not_here() {
  printf '%s: %s\n' "$me" "$1" >&2
  exit 255
}

# common::err: Enroot's own failures.
err() {
  printf '[ERROR] %s\n' "$1" >&2
  exit 1
}

# enroot-mount's and enroot-switchroot's failures (err(3): the program, the message, errno's text).
mount_err() {
  printf 'enroot-mount: %s\n' "$1" >&2
  exit 1
}

usage() { # usage COMMAND STATUS: the command's usage line, as enroot::usage prints it
  case $1 in
    create) printf 'Usage: enroot create [options] [--] IMAGE\n' ;;
    remove) printf 'Usage: enroot remove [options] [--] NAME...\n' ;;
    start) printf 'Usage: enroot start [options] [--] NAME|IMAGE [COMMAND] [ARG...]\n' ;;
    *) printf 'Usage: enroot COMMAND [ARG...]\n' ;;
  esac
  exit "$2"
}

for tool in bwrap unsquashfs awk sed flock; do
  command -v "$tool" >/dev/null || not_here "$tool is not installed (tools/packages lists it)"
done

# --- settings (enroot.in's config::export and config::fini) ------------------------------

setting() { # setting NAME DEFAULT: the caller's value, else the default
  export "$1=${!1:-$2}"
}
uid=$(id -u)
base=${TP_ENROOT_STAND_IN_DIR:-/tmp/tp-enroot-stand-in-$uid}
setting ENROOT_DATA_PATH "$base/data"
setting ENROOT_RUNTIME_PATH "$base/run"
setting ENROOT_LOGIN_SHELL true
setting ENROOT_ALLOW_SUPERUSER false
setting ENROOT_ROOTFS_WRITABLE false
setting ENROOT_REMAP_ROOT false
setting ENROOT_MOUNT_HOME false
setting ENROOT_RESTRICT_DEV false
setting ENROOT_FORCE_OVERRIDE false
unset_false_settings() {
  local name
  for name in $(compgen -e ENROOT_); do
    if [[ ${!name} =~ ^(no?|N[oO]?|[fF](alse)?|FALSE)$ ]]; then unset "$name"; fi
  done
}
unset_false_settings
(umask 077 && mkdir -p "$base" "$ENROOT_DATA_PATH" "$ENROOT_RUNTIME_PATH")
[[ -O $base && ! -L $base ]] || not_here "$base is not a directory of this user"

check_settings() {
  local name
  for name in ENROOT_RESTRICT_DEV ENROOT_ALLOW_SUPERUSER; do
    [[ -z ${!name:-} ]] || not_here "$name is a setting of Enroot that this stand-in does not implement"
  done
  case ${NVIDIA_VISIBLE_DEVICES:-void} in void) ;; *) not_here "NVIDIA_VISIBLE_DEVICES: the NVIDIA hook is not implemented" ;; esac
  case ${MELLANOX_VISIBLE_DEVICES:-void} in void | none) ;; *) not_here "MELLANOX_VISIBLE_DEVICES: the Mellanox hook is not implemented" ;; esac
}

realpath_or_err() { # common::realpath
  readlink -f -- "$1" 2>/dev/null || err "No such file or directory: $1"
}

# --- create and remove -----------------------------------------------------------------

cmd_create() {
  local name='' image rootfs
  while [[ $# -gt 0 ]]; do
    case $1 in
      -f | --force) export ENROOT_FORCE_OVERRIDE=y; shift ;;
      -n | --name) [[ -n ${2-} ]] || usage create 1; name=$2; shift 2 ;;
      --name=*) [[ -n ${1#*=} ]] || usage create 1; name=${1#*=}; shift ;;
      -h | --help) usage create 0 ;;
      --) shift; break ;;
      -?*) usage create 1 ;;
      *) break ;;
    esac
  done
  [[ $# -eq 1 ]] || usage create 1
  [[ -n $1 ]] || err "Invalid argument"
  image=$(realpath_or_err "$1")
  [[ -f $image ]] || err "No such file or directory: $image"
  unsquashfs -s "$image" >/dev/null 2>&1 || err "Invalid image format: $image"
  if [[ -z $name ]]; then name=$(basename "${image%.sqsh}"); fi
  [[ $name != */* ]] || err "Invalid argument: $name"
  rootfs=$ENROOT_DATA_PATH/$name
  if [[ -e $rootfs ]]; then
    [[ -n ${ENROOT_FORCE_OVERRIDE:-} ]] || err "File already exists: $rootfs"
    remove_tree "$rootfs"
  fi
  # -no-xattrs: a user other than root cannot set the image's extended attributes anyway.
  unsquashfs -no-progress -no-xattrs -d "$rootfs" "$image" >/dev/null
  # common::fixperms: every file readable, every directory writable by its owner.
  chmod -f -R u+rX "$rootfs" || :
  find "$rootfs" -maxdepth 15 -type d ! -perm -u=w -exec chmod -f u+w {} + || :
}

remove_tree() { # common::rmall
  rm --one-file-system --preserve-root -rf "$1" 2>/dev/null ||
    { chmod -f -R +rwX "$1" || :; rm --one-file-system --preserve-root -rf "$1"; }
}

cmd_remove() {
  local name rootfs
  while [[ $# -gt 0 ]]; do
    case $1 in
      -f | --force) export ENROOT_FORCE_OVERRIDE=y; shift ;;
      -h | --help) usage remove 0 ;;
      --) shift; break ;;
      -?*) usage remove 1 ;;
      *) break ;;
    esac
  done
  [[ $# -ge 1 ]] || usage remove 1
  [[ -n ${ENROOT_FORCE_OVERRIDE:-} ]] || not_here "remove without --force asks for a confirmation, which is not implemented"
  for name in "$@"; do
    [[ -n $name ]] || err "Invalid argument"
    [[ $name != */* ]] || err "Invalid argument: $name"
    rootfs=$(realpath_or_err "$ENROOT_DATA_PATH/$name")
    [[ -d $rootfs ]] || err "No such file or directory: $rootfs"
    remove_tree "$rootfs"
  done
}

