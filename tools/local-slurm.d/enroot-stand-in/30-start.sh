# shellcheck shell=bash
# The Enroot stand-in, part 3 of 4: `start`, its config, environment, hooks and the container.

# --- start -------------------------------------------------------------------------------

# common::envsubst: ${NAME} replaced by the value the caller's environment gives it (nothing
# when it has none: a variable of this shell's own, such as the TERM bash sets, does not count).
envsubst_file() {
  [[ -f $1 ]] || return 0
  envsubst < "$1"
}
envsubst() {
  awk '{
    line = $0
    while (match(line, /\$\{[A-Za-z_][A-Za-z0-9_]*\}/)) {
      name = substr(line, RSTART + 2, RLENGTH - 3)
      printf "%s%s", substr(line, 1, RSTART - 1), ENVIRON[name]
      line = substr(line, RSTART + RLENGTH)
    }
    print line
  }'
}

# common::envfmt
format_environ() {
  sed -i -e 's/^[[:space:]]\+//' -e '/^#\|^$/d' -e '/^[[:alpha:]_][[:alnum:]_]*=/!d' -e '/^ENROOT_/d' \
    -e 's/^\([[:alpha:]_][[:alnum:]_]*\)=[\"\x27]\(.*\)[\"\x27][[:space:]]*$/\1=\2/' "$1"
}

# The 10-shadow hook: the caller in the root's /etc/passwd and /etc/group (first), its home
# directory made in the root.
shadow_hook() {
  local pw gr user uid_ gid_ gecos home shell group
  pw=$(getent passwd "$uid") || err "$uid is in no passwd database"
  gr=$(getent group "$(id -g)") || err "$(id -g) is in no group database"
  IFS=: read -r user _ uid_ _ gecos home shell <<< "$pw"
  IFS=: read -r group _ gid_ _ <<< "$gr"
  [[ -x $rootfs$shell ]] || shell=/bin/sh
  mkdir -p "$rootfs/etc"
  touch "$rootfs/etc/passwd" "$rootfs/etc/group"
  {
    printf 'root:x:0:0:root:/root:%s\n' "$shell"
    printf 'nobody:x:%s:%s:nobody:/:/sbin/nologin\n' "$(</proc/sys/kernel/overflowuid)" "$(</proc/sys/kernel/overflowgid)"
    printf '%s:x:%s:%s:%s:%s:%s\n' "$user" "$uid_" "$gid_" "$gecos" "$home" "$shell"
    awk -F: -v u="$user" '$1 != "_apt" && $1 != "root" && $1 != "nobody" && $1 != u' "$rootfs/etc/passwd"
  } > "$rootfs/etc/.passwd.new"
  mv -f "$rootfs/etc/.passwd.new" "$rootfs/etc/passwd"
  {
    printf 'root:x:0:\nnogroup:x:%s:\n%s:x:%s:\n' "$(</proc/sys/kernel/overflowgid)" "$group" "$gid_"
    awk -F: -v g="$group" '$1 != "_apt" && $1 != "root" && $1 != "nogroup" && $1 != g' "$rootfs/etc/group"
  } > "$rootfs/etc/.group.new"
  mv -f "$rootfs/etc/.group.new" "$rootfs/etc/group"
  if [[ ! -e $rootfs$home ]]; then (umask 077 && mkdir -p "$rootfs$home"); fi
}

# The 10-cgroups hook: over each cgroup hierarchy's mount, read-only, the caller's own cgroup in it
# (with SLURM_STEP_ID, its parent: a task's step), then /sys/fs/cgroup remounted read-only.
cgroups_hook() {
  local -a mountinfo=()
  local ctrl path line re root mount
  readarray -t mountinfo < /proc/self/mountinfo
  while IFS=: read -r _ ctrl path; do
    root='' mount=''
    re="- cgroup2 cgroup"
    [[ -z $ctrl ]] || re="- cgroup cgroup [^ ]*$ctrl"
    for line in "${mountinfo[@]}"; do
      if [[ $line =~ $re ]]; then
        read -r _ _ _ root mount _ <<< "$line"
        break
      fi
    done
    if [[ -n $root && -n $mount ]]; then
      printf '%s %s none x-create=dir,rbind,nosuid,noexec,nodev,ro\n' "$mount/${path#"$root"}${SLURM_STEP_ID:+/..}" \
        "$mount" >> "$ENROOT_MOUNTS"
    fi
  done < /proc/self/cgroup
  printf 'none /sys/fs/cgroup none rbind,remount,nosuid,noexec,nodev,ro,rslave,nofail,silent\n' >> "$ENROOT_MOUNTS"
}

# The hooks Enroot ships, in their order (10-aptfix and 10-devices change nothing here), then the
# config's hooks().
run_hooks() {
  cgroups_hook
  if [[ -n ${ENROOT_MOUNT_HOME:-} ]]; then
    local home=${HOME:-$(getent passwd "$uid" | cut -d: -f6)} inside=/root
    [[ -n ${ENROOT_REMAP_ROOT:-} ]] || inside=$home
    printf '%s %s none x-create=dir,bind,rw,nosuid\n' "$home" "$inside" >> "$ENROOT_MOUNTS"
    printf 'HOME=%s\n' "$inside" >> "$ENROOT_ENVIRON"
  fi
  if [[ -L /etc/localtime ]]; then
    mkdir -p "$rootfs/etc"
    cp --no-dereference --preserve=links /etc/localtime "$rootfs/etc/localtime"
    local target
    target=$(readlink -f /etc/localtime)
    if [[ ! -e $rootfs$target ]]; then
      mkdir -p "$rootfs$(dirname "$target")"
      cp "$target" "$rootfs$target"
    fi
  fi
  shadow_hook
  if declare -F hooks >/dev/null; then hooks; fi
}

# The mounts files Enroot ships (conf/mounts).
system_fstab() {
  printf '%s\n' "\
/proc       /proc       none    x-create=dir,rbind,rw,nosuid,nodev,noexec,rslave   0   -1
/sys        /sys        none    x-create=dir,rbind,ro,nosuid,nodev,noexec,rslave   0   -1
/dev        /dev        none    x-create=dir,rbind,rw,nosuid,noexec,rslave         0   -1
tmpfs       /tmp        tmpfs   x-create=dir,rw,nosuid,nodev,mode=755,slave        0   -1
tmpfs       /var/run    tmpfs   x-create=dir,rw,nosuid,nodev,mode=755,slave        0   -1
tmpfs       /var/lock   tmpfs   x-create=dir,rw,nosuid,nodev,mode=755,slave        0   -1
/dev/shm    /dev/shm    none    x-create=dir,bind,rw,nosuid,nodev,noexec,rslave    0   -1
/etc/hosts          /etc/hosts          none    x-create=file,bind,ro,nosuid,nodev,noexec,private                0   -1
/etc/hostname       /etc/hostname       none    x-create=file,bind,ro,nosuid,nodev,noexec,private                0   -1
/etc/resolv.conf    /etc/resolv.conf    none    x-create=file,bind,ro,nosuid,nodev,noexec,private                0   -1
/etc/machine-id     /etc/machine-id     none    x-create=file,bind,ro,nosuid,nodev,noexec,private,nofail,silent  0   -1"
}

# configure CONFIG: runtime::_start's subshell. Sourcing CONFIG runs whatever it holds, on the
# host, as this user. Writes $ENROOT_ENVIRON, and the mounts (bwrap's arguments) and the view
# they leave, NUL-separated, to $work/mounts and $work/view.
configure() {
  local config=$1
  export ENROOT_PID=$$ ENROOT_ROOTFS=$rootfs ENROOT_ENVIRON=$work/environment ENROOT_MOUNTS=$work/fstab
  local point
  host_mounts=()
  while read -r _ _ _ _ point _; do host_mounts+=("$point"); done < /proc/self/mountinfo
  view_add / "$rootfs" false
  exec {lock}>"$rootfs/.lock"
  flock -w 30 "$lock" >/dev/null 2>&1 || err "Could not acquire rootfs lock"
  if [[ -n $config ]]; then
    # shellcheck disable=SC1090 # the caller's configuration, as Enroot sources it
    source "$config"
  fi
  # runtime::_do_environ
  : > "$ENROOT_ENVIRON"
  envsubst_file "$rootfs/etc/environment" >> "$ENROOT_ENVIRON"
  # conf/environ/10-terminal.env
  # shellcheck disable=SC2016 # envsubst replaces it, from the environment
  envsubst <<< 'TERM=${TERM}' >> "$ENROOT_ENVIRON"
  if declare -F environ >/dev/null; then environ >> "$ENROOT_ENVIRON"; fi
  format_environ "$ENROOT_ENVIRON"
  # runtime::_do_mounts_init: the root's fstab and the shipped files, pass -1.
  envsubst_file "$rootfs/etc/fstab" > "$ENROOT_MOUNTS"
  system_fstab >> "$ENROOT_MOUNTS"
  read_fstab "$ENROOT_MOUNTS" -1
  # runtime::_do_hooks: the hooks' own mounts, pass 0.
  mv "$ENROOT_MOUNTS" "$ENROOT_MOUNTS~"
  : > "$ENROOT_MOUNTS"
  run_hooks
  read_fstab "$ENROOT_MOUNTS" 0
  mv "$ENROOT_MOUNTS~" "$ENROOT_MOUNTS"
  format_environ "$ENROOT_ENVIRON"
  # runtime::_do_mounts_fini: the same files at pass 0, then the config's mounts().
  if declare -F mounts >/dev/null; then mounts >> "$ENROOT_MOUNTS"; fi
  read_fstab "$ENROOT_MOUNTS" 0
  printf '%s\0' ${mount_args[@]+"${mount_args[@]}"} > "$work/mounts"
  local i
  for i in "${!view_points[@]}"; do
    printf '%s\0%s\0%s\0' "${view_points[i]}" "${view_dirs[i]}" "${view_ro[i]}"
  done > "$work/view"
}

# read_configured: mount_args and the view, as configure left them.
read_configured() {
  local -a flat=()
  local i
  readarray -d '' -t mount_args < "$work/mounts"
  readarray -d '' -t flat < "$work/view"
  view_points=() view_dirs=() view_ro=()
  for ((i = 0; i + 2 < ${#flat[@]}; i += 3)); do view_add "${flat[i]}" "${flat[i + 1]}" "${flat[i + 2]}"; done
}

# in_container PATH: in_host=where PATH, as the container's processes would open it, is on the
# host (symbolic links followed inside the root, through the view); fails when it climbs out.
in_container() {
  local resolved on_host on_ro at_point
  resolve_in_root "$1" || return 1
  view_path "$resolved"
  in_host=$on_host
}

# login_environment: enroot-switchroot: the environment file's variables, then sys_login's for
# the user the container runs as (uid 0 with ENROOT_REMAP_ROOT; LOGNAME stays the caller's).
# Sets bw_env (bwrap's --setenv arguments) and login_home.
login_environment() {
  local line name in_host
  declare -gA env_now=()
  bw_env=()
  while IFS= read -r line || [[ -n $line ]]; do
    [[ $line =~ ^[[:alpha:]_][[:alnum:]_]*= ]] || continue
    env_now[${line%%=*}]=${line#*=}
  done < "$work/environment"
  login_home=
  if [[ -n ${ENROOT_LOGIN_SHELL:-} ]]; then
    if in_container /etc/login.defs && [[ -e $in_host ]]; then not_here "the root's /etc/login.defs is not implemented"; fi
    local euid=$uid pw home shell user logname
    [[ -z ${ENROOT_REMAP_ROOT:-} ]] || euid=0
    in_container /etc/passwd || in_host=/dev/null
    logname=$(awk -F: -v u="$uid" '$3 == u { print $1; exit }' "$in_host")
    pw=$(awk -F: -v u="$euid" '$3 == u { print; exit }' "$in_host")
    IFS=: read -r user _ _ _ _ home shell <<< "$pw"
    : "${env_now[TERM]=dumb}"
    [[ -z $home ]] || : "${env_now[HOME]=$home}"
    [[ -z $shell ]] || : "${env_now[SHELL]=$shell}"
    [[ -z $user ]] || : "${env_now[USER]=$user}"
    [[ -z $logname ]] || : "${env_now[LOGNAME]=$logname}"
    if ((euid == 0)); then
      : "${env_now[PATH]=/bin:/usr/bin:/sbin:/usr/sbin}"
    else
      : "${env_now[PATH]=/usr/local/bin:/bin:/usr/bin}"
    fi
    login_home=${env_now[HOME]:-}
    if [[ -n $login_home ]] && { { in_container /etc/profile && [[ -e $in_host ]]; } ||
      { in_container "$login_home/.profile" && [[ -e $in_host ]]; }; }; then
      not_here "a login shell's profile files (/etc/profile, ~/.profile) are not implemented"
    fi
    if [[ -n $login_home ]] && { ! in_container "$login_home" || [[ ! -d $in_host ]]; }; then
      printf 'enroot-switchroot: failed to change directory: %s: No such file or directory\n' "$login_home" >&2
      exit 1
    fi
  fi
  for name in "${!env_now[@]}"; do bw_env+=(--setenv "$name" "${env_now[$name]}"); done
}

# container_command COMMAND...: bwrap's arguments, NUL-separated, into $work/bwrap: the
# namespaces, the root and the mounts (the root read-only unless ENROOT_ROOTFS_WRITABLE, then
# its /.lock read-only), the environment, and the shell sys_init runs.
container_command() {
  local in_host
  # enroot-nsenter's user (uid 0 inside with ENROOT_REMAP_ROOT) and mount namespaces;
  # enroot-switchroot's cgroup namespace.
  local -a bw=(--unshare-cgroup)
  # In a chroot (a build root, a test harness's pristine system) the kernel refuses a user
  # namespace to everyone, root included, as it would refuse real Enroot; root needs none for
  # its mounts, so its container there goes without one (run_bwrap enters a root it can use).
  chrooted_root || bw=(--unshare-user "${bw[@]}")
  [[ -z ${ENROOT_REMAP_ROOT:-} ]] || bw+=(--uid 0 --gid 0)
  bw+=(--bind "$rootfs" / ${mount_args[@]+"${mount_args[@]}"})
  [[ -n ${ENROOT_ROOTFS_WRITABLE:-} ]] || bw+=(--remount-ro /)
  bw+=(--ro-bind "$rootfs/.lock" /.lock)
  bw+=(--clearenv ${bw_env[@]+"${bw_env[@]}"})
  if [[ -n $login_home ]]; then bw+=(--chdir "$login_home"); else bw+=(--chdir /); fi
  # sys_init: the shell runs /etc/rc when the root has one, else the command through `exec "$@"`.
  local shell=${env_now[SHELL]:-/bin/sh} arg0
  if ! in_container "$shell" || [[ ! -x $in_host ]]; then shell=/bin/sh; fi
  arg0=${shell##*/}
  local -a run=("$shell")
  if in_container /etc/rc && [[ -e $in_host ]]; then
    run+=(/etc/rc)
  elif [[ $# -gt 0 ]]; then
    if [[ $1 == *' '* ]]; then
      run+=(-c "$1" "$arg0")
      shift
    else
      run+=(-c 'exec "$@"' "$arg0")
    fi
  fi
  printf '%s\0' "${bw[@]}" -- "${run[@]}" "$@" > "$work/bwrap"
}

cmd_start() {
  local conf='' rw=''
  while [[ $# -gt 0 ]]; do
    case $1 in
      -c | --conf) [[ -n ${2-} ]] || usage start 1; conf=$2; shift 2 ;;
      --conf=*) [[ -n ${1#*=} ]] || usage start 1; conf=${1#*=}; shift ;;
      -w | --rw) rw=y; shift ;;
      -m | --mount | --mount=* | -e | --env | --env=* | -r | --root | --rc | --rc=*)
        not_here "start $1 is an option of Enroot that this stand-in does not implement" ;;
      -h | --help) usage start 0 ;;
      --) shift; break ;;
      -?*) usage start 1 ;;
      *) break ;;
    esac
  done
  [[ $# -ge 1 ]] || usage start 1
  local name=$1
  shift
  # #ENROOT directives: config::load evaluates each value (eval echo) before anything else.
  if [[ -n $conf && -f $conf ]]; then
    local key value
    while IFS=$' \t=' read -r key value; do
      if [[ $key =~ ^ENROOT_[[:upper:]_]+$ ]]; then export "$key=$(eval echo "$value")"; fi
    done < <(sed -n '/^#[[:space:]]*ENROOT_/s/#//p' "$conf")
    unset_false_settings
  fi
  if [[ -n $rw ]]; then export ENROOT_ROOTFS_WRITABLE=y; fi
  check_settings
  # runtime::start
  [[ -n $name ]] || err "Invalid argument"
  if [[ -f $name ]]; then
    not_here "starting a squashfs image without 'create' (fuse-overlayfs) is not implemented: $name"
  fi
  [[ $name != */* ]] || err "Invalid argument: $name"
  rootfs=$(realpath_or_err "$ENROOT_DATA_PATH/$name")
  [[ -d $rootfs ]] || err "No such file or directory: $rootfs"
  if [[ -n $conf ]]; then
    conf=$(realpath_or_err "$conf")
    [[ -f $conf ]] || err "No such file or directory: $conf"
    local syntax
    if ! syntax=$(bash -n "$conf" 2>&1); then
      printf '[WARN] %s\n' "$syntax" >&2
      err "Invalid argument: $conf"
    fi
  fi
  work=$(mktemp -d "$ENROOT_RUNTIME_PATH/start.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  unset BASH_ENV
  (configure "$conf")
  read_configured
  login_environment
  container_command "$@"
  local -a args=()
  readarray -d '' -t args < "$work/bwrap"
  rm -rf "$work"
  trap - EXIT
  run_bwrap "${args[@]}"
}

# chrooted_root: root in a chroot, where / is no mount point (the apptainer stand-in's case).
chrooted_root() {
  ((uid == 0)) && ! mountpoint -q /
}

# run_bwrap ARGS...: execs bwrap, in place. In a chroot, bwrap cannot make / a slave mount
# ("Failed to make / slave"): root's bwrap then runs in a mount namespace of its own, chrooted
# into a bind mount of /, whose root is a mount point as on any machine. The process stays the
# one Pyxis started (each step execs), so Pyxis's wait for it and its namespaces hold.
run_bwrap() {
  if ! chrooted_root; then exec bwrap "$@"; fi
  local newroot
  newroot=$(mktemp -d "${TMPDIR:-/tmp}/tp-enroot-stand-in-root.XXXXXX")
  # shellcheck disable=SC2016 # expanded by the inner shells
  local enter='mount --rbind / "$0" && exec chroot "$0" /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$@"'
  exec unshare --mount --propagation unchanged /bin/sh -c "$enter" "$newroot" "$PWD" bwrap "$@"
}
