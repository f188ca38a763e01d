# shellcheck shell=sh
# The hostile cases' probe: runs inside the container (busybox sh), as the task of each case's
# srun, and says what the task sees, one "tp-probe:" line per fact. Values that may hold any
# byte (the working directory, environment values) are printed in hex; mountinfo's fields come
# as the kernel escapes them (space, tab, newline and backslash as \ooo).
#   sh -c "$probe" tp-probe MODE [ARGS]
# MODE: basic (cwd, the mounts whose source is one of the cases' tp-src directories), env NAME...
# (each name's value, or unset), mountinfo (every mount), host WORK_DIR (what of the host the
# task can reach beyond its mounts).
hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }
mode=$1
shift
printf 'tp-probe: cwd=%s\n' "$(hex "$(pwd -P)")"
case $mode in
  basic)
    while read -r _ _ _ root point options _; do
      case $root in
        */tp-src*) printf 'tp-probe: mount %s %s %s\n' "$point" "/tp-src${root#*/tp-src}" "${options%%,*}" ;;
      esac
    done </proc/self/mountinfo
    ;;
  env)
    value=
    for name in "$@"; do
      if eval "[ -n \"\${$name+set}\" ]"; then
        eval "value=\${$name}"
        printf 'tp-probe: env %s %s\n' "$name" "$(hex "$value")"
      else
        printf 'tp-probe: env %s -\n' "$name"
      fi
    done
    ;;
  mountinfo)
    while read -r _ _ _ _ point options rest; do
      fstype=${rest#*- }
      printf 'tp-probe: mount %s %s %s\n' "$point" "${fstype%% *}" "${options%%,*}"
    done </proc/self/mountinfo
    ;;
  host)
    work=$1
    if [ -e "$work/tp-host-only/marker" ]; then direct=visible; else direct=hidden; fi
    through=none
    for dir in /proc/[0-9]*; do
      if [ -r "$dir/root$work/tp-host-only/marker" ]; then
        through=$(cat "$dir/comm" 2>/dev/null)
        break
      fi
    done
    if touch /tp-rootfs-write 2>/dev/null; then rootfs=rw; else rootfs=ro; fi
    set -- /dev/*
    printf 'tp-probe: host direct=%s proc_root=%s pid1=%s uid=%s uid_map=%s rootfs=%s dev_entries=%s\n' \
      "$direct" "$(hex "$through")" "$(hex "$(cat /proc/1/comm 2>/dev/null)")" "$(id -u)" \
      "$(hex "$(tr -s ' ' <"/proc/self/uid_map")")" "$rootfs" "$#"
    ;;
esac
printf 'tp-probe: end\n'
