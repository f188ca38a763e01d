# shellcheck shell=bash disable=SC2034,SC2154
# Shared helpers of tools/local-slurm: messages, settings, paths, processes, ports, waits.
# Sourced by tools/local-slurm only; every function reads the globals that script sets
# (state_dir and the settings below). Nothing here prints a secret.

say() { printf 'local-slurm: %s\n' "$*"; }
warn() { printf 'local-slurm: %s\n' "$*" >&2; }
die() {
  printf 'local-slurm: %s\n' "$*" >&2
  exit 1
}

# die_with_log MESSAGE LOGFILE: a failure that a log explains; shows its last lines.
die_with_log() {
  local message=$1 log=$2
  printf 'local-slurm: %s; read %s\n' "$message" "$log" >&2
  if [[ -r $log ]]; then
    printf '  last lines of %s:\n' "$log" >&2
    tail -n 8 "$log" | sed 's/^/    /' >&2
  fi
  exit 1
}

# --- paths inside the state directory -------------------------------------------------

set_paths() {
  etc_dir=$state_dir/etc
  slurm_conf=$etc_dir/slurm.conf
  gres_conf=$etc_dir/gres.conf
  dbd_conf=$etc_dir/slurmdbd.conf
  plugstack_conf=$etc_dir/plugstack.conf
  jwt_key=$etc_dir/jwt_hs256.key
  munge_dir=$state_dir/munge
  munge_key=$munge_dir/munge.key
  munge_socket=$munge_dir/munge.socket.2
  munge_pid=$munge_dir/munged.pid
  munge_log=$munge_dir/munged.log
  save_dir=$state_dir/state
  spool_dir=$state_dir/spool
  run_dir=$state_dir/run
  log_dir=$state_dir/log
  dev_dir=$state_dir/dev
  gpu_device=$dev_dir/nvidia0
  gpu_device_emu=$dev_dir/nvidia1
  client_dir=$state_dir/client
  client_token=$client_dir/jwt.token
  client_key=$client_dir/jwt_hs256.key
  secrets_dir=$state_dir/secrets
  db_password_file=$secrets_dir/db_password
  rest_headers=$secrets_dir/rest.headers
  mysql_dir=$state_dir/mysql
  mysql_data=$mysql_dir/data
  mysql_socket=$mysql_dir/mysqld.sock
  mysql_pid=$mysql_dir/mariadbd.pid
  mysql_log=$mysql_dir/mariadbd.err
  plugin_dir=$state_dir/plugins
  pyxis_stand_in=$plugin_dir/spank_pyxis_stand_in.so
  settings_file=$state_dir/settings
  lock_file=$state_dir/.lock
}

# set_account_paths: the paths that depend on the settings (called once they are known).
set_account_paths() {
  # The job user's token: root's copy, and the service account's (the daemon reads that one).
  job_client_token=$client_dir/jwt.$job_user.token
  service_dir=$state_dir/service
  job_service_token=$service_dir/jwt.$job_user.token
}

# --- settings: defaults < what the last `up` recorded < options on this command line -----

readonly setting_names=(rest_port ctld_port slurmd_ports dbd_port mysql_port min_job_age accounting user
  service_user job_user job_group)

load_recorded_settings() {
  [[ -r $settings_file ]] || return 0
  local key value
  while IFS='=' read -r key value; do
    case $key in
      rest_port | ctld_port | slurmd_ports | dbd_port | mysql_port | min_job_age | accounting | user | \
        service_user | job_user | job_group | slurm_prefix | pyxis_plugin | pyxis_args | enroot_dir)
        # Only options absent from the command line take the recorded value.
        [[ -n ${explicit[$key]:-} ]] || printf -v "$key" '%s' "$value"
        ;;
    esac
  done <"$settings_file"
}

render_settings() {
  local name
  for name in "${setting_names[@]}"; do
    printf '%s=%s\n' "$name" "${!name}"
  done
  # Recorded only when given, so a 22.05 cluster's settings file stays as it was.
  local name
  for name in slurm_prefix pyxis_plugin pyxis_args enroot_dir; do
    if [[ -n ${!name} ]]; then printf '%s=%s\n' "$name" "${!name}"; fi
  done
}

# settings_differ: whether this run's settings differ from what the last `up` recorded
# (the REST port, for one, appears in no config file but needs a restart all the same).
settings_differ() {
  [[ -r $settings_file ]] || return 0
  [[ $(render_settings) != "$(<"$settings_file")" ]]
}

save_settings() {
  render_settings >"$settings_file.tmp"
  chmod 0644 "$settings_file.tmp"
  mv -f "$settings_file.tmp" "$settings_file"
}

validate_settings() {
  local name value
  for name in rest_port ctld_port dbd_port mysql_port; do
    value=${!name}
    if ! [[ $value =~ ^[0-9]+$ ]] || ((value < 1 || value > 65535)); then
      die "--${name//_/-} $value: not a TCP port (1-65535)"
    fi
  done
  [[ $slurmd_ports =~ ^([0-9]+),([0-9]+)$ ]] ||
    die "--slurmd-ports $slurmd_ports: expected two ports, N,M (node vm, node vm-emu)"
  slurmd_port_vm=${BASH_REMATCH[1]}
  slurmd_port_emu=${BASH_REMATCH[2]}
  for value in "$slurmd_port_vm" "$slurmd_port_emu"; do
    ((value >= 1 && value <= 65535)) || die "--slurmd-ports $slurmd_ports: $value is not a TCP port (1-65535)"
  done
  [[ $min_job_age =~ ^[0-9]+$ ]] || die "--min-job-age $min_job_age: expected a whole number of seconds"
  for name in service_user job_user job_group; do
    value=${!name}
    [[ $value =~ ^[a-z_][a-z0-9_-]{0,31}$ ]] ||
      die "--${name//_/-} $value: expected a user or group name ([a-z_][a-z0-9_-]*, at most 32 characters)"
  done
  [[ $service_user != "$job_user" ]] || die "--service-user and --job-user are both $job_user; the deployment test needs two users"
  for value in "$service_user" "$job_user" "$job_group"; do
    case $value in
      root | slurm | munge | mysql | nobody | nogroup)
        die "'$value' belongs to the system or to the cluster's daemons; choose another name for --service-user, --job-user or --job-group"
        ;;
    esac
  done
  # Checked where they are used, so that `down` still works once they are gone.
  if [[ $command == up && -n $pyxis_plugin && ! -r $pyxis_plugin ]]; then
    die "--pyxis-plugin $pyxis_plugin: no such readable file"
  fi
  if [[ $command == up && -n $enroot_dir && ! -x $enroot_dir/enroot ]]; then
    die "--enroot-dir $enroot_dir: $enroot_dir/enroot is not an executable"
  fi
  [[ $pyxis_args != *$'\n'* ]] || die "--pyxis-args: one line of arguments"
  local -A seen=()
  local option
  for option in "rest-port=$rest_port" "ctld-port=$ctld_port" "slurmd-ports=$slurmd_port_vm" \
    "slurmd-ports=$slurmd_port_emu" "dbd-port=$dbd_port" "mysql-port=$mysql_port"; do
    value=${option#*=}
    [[ -z ${seen[$value]:-} ]] ||
      die "port $value is given twice (--${seen[$value]} and --${option%%=*}); every daemon needs its own port"
    seen[$value]=${option%%=*}
  done
}

# --- another Slurm release (--slurm-prefix) --------------------------------------------

# The PATH every daemon starts with; use_slurm_prefix puts the release's directories first.
daemon_path=/usr/sbin:/usr/bin:/sbin:/bin

# slurmd's: its steps inherit it, and Pyxis runs `enroot` from it (--enroot-dir, else
# /usr/local/bin, where the stand-in is).
slurmd_path() {
  printf '%s:/usr/local/sbin:/usr/local/bin:%s\n' "${enroot_dir:-/usr/local/bin}" "$daemon_path"
}

# use_slurm_prefix: with --slurm-prefix, the release's binaries come first on PATH (ours and
# the daemons'), and the REST dialect and slurmrestd's plugins follow its version. Its
# plugins are found through the PluginDir compiled into it (DIR/lib/slurm).
use_slurm_prefix() {
  slurm_release=
  [[ -n $slurm_prefix ]] || return 0
  [[ $slurm_prefix == /* ]] || slurm_prefix=$PWD/$slurm_prefix
  slurm_prefix=${slurm_prefix%/}
  local binary
  for binary in sbin/slurmctld sbin/slurmd sbin/slurmrestd sbin/slurmdbd bin/scontrol bin/sinfo bin/squeue bin/scancel bin/sacctmgr; do
    [[ -x $slurm_prefix/$binary ]] ||
      die "--slurm-prefix $slurm_prefix: $slurm_prefix/$binary is missing; is a Slurm release installed there (tools/slurm-release build)?"
  done
  local version
  version=$("$slurm_prefix/sbin/slurmctld" -V 2>/dev/null) || die "$slurm_prefix/sbin/slurmctld -V failed"
  [[ $version =~ ^slurm\ ([0-9]+)\.([0-9]+)\.([0-9]+) ]] ||
    die "$slurm_prefix/sbin/slurmctld -V printed '$version', not 'slurm X.Y.Z'"
  slurm_release=${BASH_REMATCH[1]}.${BASH_REMATCH[2]}.${BASH_REMATCH[3]}
  case ${BASH_REMATCH[1]}.${BASH_REMATCH[2]} in
    22.05) rest_api_version=v0.0.38 ;;
    23.11) rest_api_version=v0.0.40 ;;
    24.05) rest_api_version=v0.0.41 ;;
    24.11) rest_api_version=v0.0.42 ;;
    *) die "--slurm-prefix $slurm_prefix: Slurm $slurm_release is not a release this script knows (22.05, 23.11, 24.05, 24.11)" ;;
  esac
  PATH=$slurm_prefix/bin:$slurm_prefix/sbin:$PATH
  export PATH
  daemon_path=$slurm_prefix/sbin:$slurm_prefix/bin:$daemon_path
}

# --- processes ------------------------------------------------------------------------

# pid_of PIDFILE COMM: prints the pid when the file names a live process called COMM.
# Checking the command name keeps a stale pid file from pointing us at an unrelated process.
pid_of() {
  local pidfile=$1 comm=$2 pid
  [[ -r $pidfile ]] || return 1
  read -r pid <"$pidfile" 2>/dev/null || return 1
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  [[ -r /proc/$pid/comm ]] || return 1
  [[ $(</proc/"$pid"/comm) == "$comm" ]] || return 1
  # A zombie has exited; only its parent's reaping is missing.
  [[ $(awk '{print $3}' /proc/"$pid"/stat 2>/dev/null) != Z ]] || return 1
  printf '%s\n' "$pid"
}

# stop_daemon LABEL PIDFILE COMM: SIGTERM, a bounded wait, then SIGKILL.
stop_daemon() {
  local label=$1 pidfile=$2 comm=$3 pid i
  if ! pid=$(pid_of "$pidfile" "$comm"); then
    rm -f "$pidfile"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 150; i++)); do
    [[ -d /proc/$pid ]] || break
    # A zombie has finished; its parent (not us) reaps it.
    [[ $(awk '{print $3}' /proc/"$pid"/stat 2>/dev/null) == Z ]] && break
    sleep 0.1
  done
  if [[ -d /proc/$pid && $(awk '{print $3}' /proc/"$pid"/stat 2>/dev/null) != Z ]]; then
    warn "$label (pid $pid) did not stop within 15 s of SIGTERM; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      [[ -d /proc/$pid ]] || break
      sleep 0.1
    done
  fi
  rm -f "$pidfile"
}

# --- ports ----------------------------------------------------------------------------

# port_owner PORT: prints "PID NAME" (PID 0 when ss cannot tell) when something listens on PORT.
port_owner() {
  local port=$1 line
  line=$(ss -Hltnp 2>/dev/null | awk -v p=":$port" '{ if (substr($4, length($4) - length(p) + 1) == p) { print; exit } }')
  [[ -n $line ]] || return 1
  if [[ $line =~ \(\(\"([^\"]+)\",pid=([0-9]+) ]]; then
    printf '%s %s\n' "${BASH_REMATCH[2]}" "${BASH_REMATCH[1]}"
  else
    printf '0 unknown\n'
  fi
}

# require_free_port PORT WHAT OPTION [OUR_PIDS]: a port we are about to bind must be free,
# or held by one of OUR_PIDS (" pid pid "), our own daemons that are about to stop.
require_free_port() {
  local port=$1 what=$2 option=$3 ours=${4:- } owner pid name
  owner=$(port_owner "$port") || return 0
  read -r pid name <<<"$owner"
  [[ $pid == 0 || $ours != *" $pid "* ]] || return 0
  if [[ $pid == 0 ]]; then owner="another program"; else owner="pid $pid ($name)"; fi
  die "port $port, wanted for $what, is already in use by $owner; stop it or choose another port with $option"
}

port_listening() {
  port_owner "$1" >/dev/null
}

# --- waits ----------------------------------------------------------------------------

# wait_until SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds or time runs out.
wait_until() {
  local limit=$1
  shift
  local deadline=$((SECONDS + limit))
  while ! "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

# --- the client token ---------------------------------------------------------------

# token_seconds_left FILE: remaining lifetime of the token in FILE, from its `exp` claim.
token_seconds_left() {
  local file=$1 token payload exp
  [[ -r $file ]] || return 1
  token=$(sed -n 's/^SLURM_JWT=//p' "$file")
  [[ $token == *.*.* ]] || return 1
  payload=${token#*.}
  payload=${payload%%.*}
  payload=$(printf '%s' "$payload" | tr '_-' '/+')
  while ((${#payload} % 4)); do payload+='='; done
  exp=$(printf '%s' "$payload" | base64 -d 2>/dev/null | sed -n 's/.*"exp":\([0-9]*\).*/\1/p')
  [[ $exp =~ ^[0-9]+$ ]] || return 1
  printf '%s\n' $((exp - $(date +%s)))
}

# write_rest_headers: the token goes to curl through a 0600 file, never through argv.
write_rest_headers() {
  local token
  token=$(sed -n 's/^SLURM_JWT=//p' "$client_token")
  (
    umask 077
    printf 'X-SLURM-USER-NAME: %s\nX-SLURM-USER-TOKEN: %s\n' "$user" "$token" >"$rest_headers"
  )
}

# rest_status PATH: the HTTP status of an authenticated GET, or 000 when nothing answered.
rest_status() {
  curl -s -o /dev/null -w '%{http_code}' --max-time 5 --noproxy '*' \
    -H @"$rest_headers" "http://127.0.0.1:$rest_port$1" 2>/dev/null || true
}
