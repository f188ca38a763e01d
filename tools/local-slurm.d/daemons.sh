# shellcheck shell=bash disable=SC2034,SC2154
# Starting and stopping the daemons of the local cluster, each by hand (no systemd here).
# Sourced by tools/local-slurm. Every daemon is detached with setsid, stdin from /dev/null
# and stdout/stderr into its log, so a caller that holds a pipe to us never hangs; each
# gets a clean environment (a caller's SLURM_JWT or SLURM_* would change its behaviour).

# close_inherited_fds: closes every descriptor above stderr in the current (sub)shell. A
# daemon that kept a caller's pipe (or our lock on fd 9) would make that caller wait forever.
close_inherited_fds() {
  local fd
  for fd in /proc/"$BASHPID"/fd/*; do
    fd=${fd##*/}
    if ((fd > 2)); then eval "exec $fd>&-" 2>/dev/null || true; fi
  done
}

# daemon_env VAR=VALUE... COMMAND...: runs COMMAND (one that daemonizes itself) in a minimal
# environment, with only stdin, stdout and stderr open. A PATH=... among the variables wins.
daemon_env() {
  (
    close_inherited_fds
    exec env -i PATH="$daemon_path" LANG=C.UTF-8 SLURM_CONF="$slurm_conf" "$@"
  )
}

# daemon_spawn PIDFILE|- LOG COMMAND...: for daemons that stay in the foreground. The
# subshell execs the command, so $! is the daemon's own pid and no shell of ours waits on it.
daemon_spawn() {
  local pidfile=$1 log=$2
  shift 2
  (
    exec </dev/null >>"$log" 2>&1
    close_inherited_fds
    exec env -i PATH="$daemon_path" LANG=C.UTF-8 SLURM_CONF="$slurm_conf" "$@"
  ) &
  if [[ $pidfile != - ]]; then printf '%s\n' "$!" >"$pidfile"; fi
}

# --- the table of daemons: label, pid file, process name, log, port ------------------

daemon_labels() {
  printf '%s\n' munged
  if ((accounting)); then printf '%s\n' mariadb slurmdbd; fi
  printf '%s\n' slurmctld slurmd-vm slurmd-vm-emu slurmrestd
}

daemon_info() { # daemon_info LABEL: sets d_pidfile d_comm d_log d_port d_option
  d_port='' d_option=''
  case $1 in
    munged) d_pidfile=$munge_pid d_comm=munged d_log=$munge_log ;;
    mariadb) d_pidfile=$mysql_pid d_comm=mariadbd d_log=$mysql_log d_port=$mysql_port d_option=--mysql-port ;;
    slurmdbd) d_pidfile=$run_dir/slurmdbd.pid d_comm=slurmdbd d_log=$log_dir/slurmdbd.log d_port=$dbd_port d_option=--dbd-port ;;
    slurmctld) d_pidfile=$run_dir/slurmctld.pid d_comm=slurmctld d_log=$log_dir/slurmctld.log d_port=$ctld_port d_option=--ctld-port ;;
    slurmd-vm) d_pidfile=$run_dir/slurmd-vm.pid d_comm=slurmd d_log=$log_dir/slurmd-vm.log d_port=$slurmd_port_vm d_option=--slurmd-ports ;;
    slurmd-vm-emu) d_pidfile=$run_dir/slurmd-vm-emu.pid d_comm=slurmd d_log=$log_dir/slurmd-vm-emu.log d_port=$slurmd_port_emu d_option=--slurmd-ports ;;
    slurmrestd) d_pidfile=$run_dir/slurmrestd.pid d_comm=slurmrestd d_log=$log_dir/slurmrestd.log d_port=$rest_port d_option=--rest-port ;;
    *) die "internal error: unknown daemon $1" ;;
  esac
}

daemon_running() {
  daemon_info "$1"
  pid_of "$d_pidfile" "$d_comm" >/dev/null
}

# wait_started LABEL SECONDS WHAT CHECK...: polls CHECK until it succeeds; fails as soon as
# the daemon has died (its pid file names a dead process) instead of waiting out the time.
wait_started() {
  local label=$1 limit=$2 what=$3
  shift 3
  daemon_info "$label"
  local deadline=$((SECONDS + limit)) pidfile_deadline=$((SECONDS + 10))
  while ! "$@"; do
    if [[ -e $d_pidfile ]]; then
      # A pid file being written, or a process between exec()s, can look dead for a moment.
      if ! pid_of "$d_pidfile" "$d_comm" >/dev/null; then
        sleep 0.5
        pid_of "$d_pidfile" "$d_comm" >/dev/null || die_with_log "$label exited while starting" "$d_log"
      fi
    elif ((SECONDS >= pidfile_deadline)); then
      die_with_log "$label wrote no pid file ($d_pidfile) within 10 s; it probably failed to start" "$d_log"
    fi
    ((SECONDS < deadline)) || die_with_log "$label did not $what within $limit s" "$d_log"
    sleep 0.2
  done
}

# --- munge ----------------------------------------------------------------------------

munge_works() {
  munge -n -S "$munge_socket" 2>/dev/null | unmunge -S "$munge_socket" >/dev/null 2>&1
}

start_munged() {
  # munged insists on owning its log; our redirection appends to the same file.
  [[ -f $munge_log ]] || install -m 0640 /dev/null "$munge_log"
  chown munge:munge "$munge_log"
  rm -f "$munge_pid"
  # --origin: munged otherwise looks up the machine's name for the address it stamps into
  # credentials (nothing here checks it) and warns when that name does not resolve.
  daemon_env setsid setpriv --reuid=munge --regid=munge --init-groups \
    munged --key-file="$munge_key" --socket="$munge_socket" --pid-file="$munge_pid" \
    --log-file="$munge_log" --seed-file="$munge_dir/munged.seed" --num-threads=2 \
    --origin=127.0.0.1 \
    </dev/null >>"$munge_log" 2>&1 || die_with_log "munged failed to start" "$munge_log"
  wait_started munged 15 "answer on $munge_socket" munge_works
}

# --- slurmctld, slurmd, slurmrestd -----------------------------------------------------

ctld_answers() {
  scontrol ping 2>/dev/null | grep -q 'is UP'
}

start_slurmctld() {
  local log=$log_dir/slurmctld.log
  rm -f "$run_dir/slurmctld.pid"
  daemon_env setsid slurmctld -f "$slurm_conf" </dev/null >>"$log" 2>&1 ||
    die_with_log "slurmctld failed to start" "$log"
  wait_started slurmctld 30 "answer 'scontrol ping'" ctld_answers
}

start_slurmd() { # start_slurmd NODE
  local node=$1 log=$log_dir/slurmd-$1.log
  rm -f "$run_dir/slurmd-$node.pid"
  daemon_env PATH="$(slurmd_path)" setsid slurmd -f "$slurm_conf" -N "$node" </dev/null >>"$log" 2>&1 ||
    die_with_log "slurmd for node $node failed to start" "$log"
  # A slurmd that cannot bind its port exits after its pid file is gone or before it is
  # written; waiting for the port reports that at once instead of after the node wait.
  daemon_info "slurmd-$node"
  wait_started "slurmd-$node" 30 "listen on port $d_port" port_listening "$d_port"
}

slurmds_alive() { # ends the script when a slurmd has died
  local node
  for node in vm vm-emu; do
    daemon_info "slurmd-$node"
    [[ -e $d_pidfile ]] || continue
    pid_of "$d_pidfile" "$d_comm" >/dev/null && continue
    sleep 0.5
    pid_of "$d_pidfile" "$d_comm" >/dev/null || die_with_log "slurmd for node $node exited" "$d_log"
  done
}

# slurmrestd_plugins: the -s list. 22.05 has one plugin per dialect; from 23.11 on
# openapi/slurmctld and openapi/slurmdbd serve every data_parser plugin loaded (all of them
# when -d is not given); 23.11 still has its deprecated openapi/v0.0.39 and v0.0.38 too.
slurmrestd_plugins() {
  local plugins
  case $rest_api_version in
    v0.0.38)
      plugins=openapi/v0.0.38
      if ((accounting)); then plugins+=,openapi/dbv0.0.38; fi
      ;;
    v0.0.40)
      plugins=openapi/slurmctld,openapi/v0.0.39,openapi/v0.0.38
      if ((accounting)); then plugins+=,openapi/slurmdbd,openapi/dbv0.0.39,openapi/dbv0.0.38; fi
      ;;
    *)
      plugins=openapi/slurmctld
      if ((accounting)); then plugins+=,openapi/slurmdbd; fi
      ;;
  esac
  printf '%s\n' "$plugins"
}

start_slurmrestd() {
  local log=$log_dir/slurmrestd.log plugins
  plugins=$(slurmrestd_plugins)
  # slurmrestd refuses to run as root or as SlurmUser and does not daemonize; SLURM_JWT=daemon
  # tells it to take each request's token instead of authenticating itself.
  daemon_spawn "$run_dir/slurmrestd.pid" "$log" SLURM_JWT=daemon setsid slurmrestd -f "$slurm_conf" \
    -u nobody -g nogroup -a rest_auth/jwt -s "$plugins" "127.0.0.1:$rest_port"
  wait_started slurmrestd 15 "listen on 127.0.0.1:$rest_port" port_listening "$rest_port"
}

# --- accounting: MariaDB on a private socket and port, slurmdbd -------------------------

mysql_admin() { # SQL on stdin, as MariaDB's root over the private socket (unix_socket auth)
  mariadb --no-defaults --socket="$mysql_socket" --user=root --batch --skip-column-names
}

mariadb_answers() {
  mariadb-admin --no-defaults --socket="$mysql_socket" --user=root ping >/dev/null 2>&1
}

start_mariadb() {
  if [[ ! -d $mysql_data/mysql ]]; then
    rm -rf "$mysql_data"
    # --force: without it mariadb-install-db stops when neither the machine's name nor
    # "localhost" resolves; the server runs with --skip-name-resolve and every grant here
    # names 127.0.0.1 or the socket, so no name is needed.
    mariadb-install-db --no-defaults --user=mysql --datadir="$mysql_data" \
      --auth-root-authentication-method=socket --skip-test-db --force \
      >"$mysql_dir/install-db.log" 2>&1 ||
      die_with_log "mariadb-install-db failed" "$mysql_dir/install-db.log"
  fi
  rm -f "$mysql_pid"
  # mariadbd opens its --log-error file as mysql; our redirection appends to the same file.
  [[ -f $mysql_log ]] || install -m 0640 /dev/null "$mysql_log"
  chown mysql:mysql "$mysql_log"
  # slurmdbd logs an error below a 1 GiB buffer pool and a 64 MiB redo log (the pool is
  # reserved, not touched: ~130 MB resident); native AIO is off because this sandbox's
  # kernel interface may not offer it.
  daemon_spawn - "$mysql_log" setsid mariadbd --no-defaults --user=mysql --datadir="$mysql_data" \
    --socket="$mysql_socket" --port="$mysql_port" --bind-address=127.0.0.1 \
    --pid-file="$mysql_pid" --log-error="$mysql_log" --skip-name-resolve \
    --innodb-buffer-pool-size=1024M --innodb-log-file-size=64M --innodb-use-native-aio=0 \
    --innodb-lock-wait-timeout=900
  wait_started mariadb 60 "answer on $mysql_socket" mariadb_answers
  local password
  password=$(<"$db_password_file")
  # The password travels on stdin, never in an argument list.
  mysql_admin <<EOF || die "could not create the slurmdbd database user in MariaDB; read $mysql_log"
CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$password';
ALTER USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$password';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
EOF
}

dbd_answers() {
  sacctmgr -n -P list cluster format=cluster >/dev/null 2>&1
}

start_slurmdbd() {
  local log=$log_dir/slurmdbd.log
  rm -f "$run_dir/slurmdbd.pid"
  daemon_env setsid slurmdbd </dev/null >>"$log" 2>&1 || die_with_log "slurmdbd failed to start" "$log"
  wait_started slurmdbd 60 "answer sacctmgr" dbd_answers
  if ! sacctmgr -n -P list cluster format=cluster 2>/dev/null | grep -qx "$cluster_name"; then
    sacctmgr -i add cluster "$cluster_name" >"$log_dir/sacctmgr.log" 2>&1 ||
      die_with_log "could not register cluster $cluster_name in slurmdbd (sacctmgr add cluster)" "$log_dir/sacctmgr.log"
  fi
  # Per-user mode's test users, each with an association under one account.
  local users
  users=$(IFS=,; echo "${per_user_users[*]}")
  if ! sacctmgr -n -P list assoc cluster="$cluster_name" account="$per_user_account" format=user 2>/dev/null |
    grep -qx "${per_user_users[-1]}"; then
    # The account may be there from an earlier, half-finished start: only the users must be added.
    sacctmgr -i add account "$per_user_account" cluster="$cluster_name" >>"$log_dir/sacctmgr.log" 2>&1 || :
    sacctmgr -i add user "$users" account="$per_user_account" cluster="$cluster_name" >>"$log_dir/sacctmgr.log" 2>&1 ||
      die_with_log "could not add the users $users under the account $per_user_account (sacctmgr)" "$log_dir/sacctmgr.log"
  fi
}
