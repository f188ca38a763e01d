# shellcheck shell=bash disable=SC2034,SC2154
# The container runtimes' stand-ins that `up` installs where the real ones are missing:
# apptainer, Enroot and the Pyxis SPANK plugin. Sourced by tools/local-slurm.

# The `apptainer` profile's scripts call apptainer on the nodes; where none is installed a
# stand-in runs the command from the SIF image in a bubblewrap container (bwrap, siftool and
# squashfs-tools from tools/packages; local-slurm.d/apptainer-stand-in says what it does).
# A real apptainer is never replaced; an older stand-in is.
install_apptainer_stand_in() {
  local target=/usr/local/bin/apptainer
  if [[ -e $target ]] && ! grep -q '^# tuneplane-slurm-apptainer-stand-in$' "$target"; then return 0; fi
  if [[ ! -e $target ]] && command -v apptainer >/dev/null; then return 0; fi
  install -m 0755 "$program_dir/local-slurm.d/apptainer-stand-in" "$target"
}

# The `enroot-pyxis` profile's scripts run srun --container-image=...: where no enroot is
# installed, a stand-in runs the container (local-slurm.d/enroot-stand-in/10-main.sh says what it
# does); its parts, concatenated in order, are the one program installed. A real enroot is never
# replaced; an older stand-in is.
install_enroot_stand_in() {
  local target=/usr/local/bin/enroot program
  if [[ -e $target ]] && ! grep -q '^# tuneplane-slurm-enroot-stand-in$' "$target"; then return 0; fi
  if [[ ! -e $target ]] && command -v enroot >/dev/null; then return 0; fi
  program=$(mktemp)
  cat "$program_dir"/local-slurm.d/enroot-stand-in/*.sh > "$program"
  install -m 0755 "$program" "$target"
  rm -f "$program"
}

# ensure_node_files: Enroot binds /etc/hosts, /etc/hostname and /etc/resolv.conf into every
# container and fails the task where one is missing, as the real one does (its fstab has no
# nofail for them). Every installed machine has them; a debootstrap root has no /etc/hosts:
# a missing one is written as Debian's installer writes it, and said.
ensure_node_files() {
  if [[ ! -e /etc/hosts ]]; then
    printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' > /etc/hosts
    say "wrote /etc/hosts (localhost only): there was none, and Enroot binds it into every container"
  fi
  if [[ ! -e /etc/hostname ]]; then
    hostname > /etc/hostname
    say "wrote /etc/hostname: there was none, and Enroot binds it into every container"
  fi
  if [[ ! -e /etc/resolv.conf ]]; then
    : > /etc/resolv.conf
    say "wrote an empty /etc/resolv.conf: there was none, and Enroot binds it into every container"
  fi
}

# build_pyxis_stand_in: the SPANK plugin, compiled against this Slurm's spank.h (Debian's
# libslurm-dev, or the release's own under --slurm-prefix) whenever one of its source files (the
# main one and the parts it includes) is newer. A new file replaces the old one, so that a step
# that has it loaded keeps its copy.
build_pyxis_stand_in() {
  local source_dir=$program_dir/local-slurm.d/pyxis-stand-in
  local source=$source_dir/spank_pyxis_stand_in.c
  local include=/usr/include part stale=0
  [[ -z $slurm_prefix ]] || include=$slurm_prefix/include
  [[ -r $include/slurm/spank.h ]] || die "$include/slurm/spank.h is missing: the Pyxis stand-in is built against it"
  install -d -m 0755 "$plugin_dir"
  for part in "$source_dir"/*.c; do
    [[ $pyxis_stand_in -nt $part ]] || stale=1
  done
  ((stale)) || return 0
  gcc -std=gnu11 -O2 -Wall -Wextra -Wno-unused-parameter -Werror -fPIC -shared -I"$include" \
    -o "$pyxis_stand_in.new" "$source" >"$log_dir/pyxis-stand-in-build.log" 2>&1 ||
    die_with_log "the Pyxis stand-in did not compile" "$log_dir/pyxis-stand-in-build.log"
  chmod 0755 "$pyxis_stand_in.new"
  mv -f "$pyxis_stand_in.new" "$pyxis_stand_in"
}
