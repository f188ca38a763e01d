# shellcheck shell=bash disable=SC2034,SC2154
# Writes every configuration file of the local cluster into the state directory.
# Sourced by tools/local-slurm; reads its globals (paths from set_paths, the settings).
# Nothing under /etc/slurm or /etc/munge is read or written: every path below is inside
# the state directory, so this cluster can run beside another Slurm.

readonly cluster_name=tuneplane
readonly partition_name=debug
readonly gpu_feature=h100
readonly cpu_feature=emu
readonly gres_name=gpu:h100

# detect_hardware: CPU layout and memory from `slurmd -C`, copied into both node lines.
# The two nodes are the same machine, so its CPUs and memory are counted twice.
detect_hardware() {
  local line
  line=$(env -i PATH="$PATH" SLURM_CONF=/nonexistent slurmd -C 2>/dev/null | head -n 1) || true
  hw_layout=$(printf '%s\n' "$line" | grep -o -E '(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=[0-9]+' | tr '\n' ' ')
  hw_memory=$(printf '%s\n' "$line" | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
  [[ $hw_layout == *CPUs=* && $hw_memory =~ ^[0-9]+$ ]] ||
    die "could not read the CPU layout from 'slurmd -C' (it printed: ${line:-nothing})"
}

# write_if_changed FILE MODE OWNER: moves FILE.new over FILE unless the content is the same.
# Sets config_changed=1 when something changed, which makes `up` restart running daemons.
write_if_changed() {
  local file=$1 mode=$2 owner=$3
  chmod "$mode" "$file.new"
  chown "$owner" "$file.new"
  if [[ -f $file ]] && cmp -s "$file" "$file.new"; then
    rm -f "$file.new"
  else
    mv -f "$file.new" "$file"
    config_changed=1
  fi
}

write_slurm_conf() {
  local accounting_lines
  if ((accounting)); then
    # With slurmdbd, AccountingStoragePass names the munge socket for talking to it
    # (AuthInfo is not used there).
    accounting_lines="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$dbd_port
AccountingStoragePass=$munge_socket
AccountingStorageTRES=gres/gpu"
  else
    accounting_lines="AccountingStorageType=accounting_storage/none"
  fi
  # Nothing here depends on the machine's name or on a name resolving (a fresh machine's
  # name is often missing from /etc/hosts): every address is 127.0.0.1; "localhost" in
  # SlurmctldHost is only compared with gethostname(), never looked up. There is no
  # CommunicationParameters=NoInAddrAny: with it slurmd, slurmstepd, srun and slurmdbd bind
  # to the address the machine's name resolves to, which fails when it does not resolve and
  # strands the nodes when it resolves to 127.0.1.1 (Debian's entry) while slurmctld talks
  # to NodeAddr 127.0.0.1. Without it they listen on every address; munge still
  # authenticates every message. The node names vm and vm-emu are labels, not host names:
  # each slurmd is started with -N.
  cat >"$slurm_conf.new" <<EOF
# Written by tools/local-slurm; rewritten on every 'up' (edits are lost).
ClusterName=$cluster_name
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$munge_socket
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$jwt_key
StateSaveLocation=$save_dir
SlurmdSpoolDir=$spool_dir/%n
SlurmctldPidFile=$run_dir/slurmctld.pid
SlurmdPidFile=$run_dir/slurmd-%n.pid
SlurmctldLogFile=$log_dir/slurmctld.log
SlurmdLogFile=$log_dir/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$plugstack_conf
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
$accounting_lines
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=256
ReturnToService=2
MinJobAge=$min_job_age
KillWait=5
GresTypes=gpu
NodeName=vm NodeHostname=vm NodeAddr=127.0.0.1 Port=$slurmd_port_vm ${hw_layout}RealMemory=$hw_memory Features=$gpu_feature,cpuonly Gres=$gres_name:1 State=UNKNOWN
NodeName=vm-emu NodeHostname=vm-emu NodeAddr=127.0.0.1 Port=$slurmd_port_emu ${hw_layout}RealMemory=$hw_memory Features=cpuonly,$cpu_feature Gres=gpu:$cpu_feature:1 State=UNKNOWN
PartitionName=$partition_name Nodes=vm,vm-emu Default=YES MaxTime=INFINITE State=UP
EOF
  write_if_changed "$slurm_conf" 0644 root:root
}

write_gres_conf() {
  # A GPU gres needs a device file, else the node is INVAL; a character device with
  # NVIDIA's numbers stands in for one (nothing opens it). Each node has one: a job of two GPU
  # pools (one per constraint) can run.
  local device minor=0
  for device in "$gpu_device" "$gpu_device_emu"; do
    if [[ ! -c $device ]]; then
      rm -f "$device"
      mknod -m 0666 "$device" c 195 "$minor" || die "mknod $device failed; the fake GPU needs a device node"
    fi
    minor=$((minor + 1))
  done
  cat >"$gres_conf.new" <<EOF
# Written by tools/local-slurm.
NodeName=vm Name=gpu Type=h100 File=$gpu_device
NodeName=vm-emu Name=gpu Type=$cpu_feature File=$gpu_device_emu
EOF
  write_if_changed "$gres_conf" 0644 root:root
}

write_plugstack_conf() {
  # Our own stack keeps slurmd from loading /etc/slurm/plugstack.conf of another Slurm. srun,
  # sbatch and slurmstepd read it through slurm.conf's PlugStackConfig.
  local plugin=${pyxis_plugin:-$pyxis_stand_in}
  printf '# Written by tools/local-slurm: Pyxis (%s).\nrequired %s%s\n' \
    "$([[ -n $pyxis_plugin ]] && echo "--pyxis-plugin" || echo "the stand-in, local-slurm.d/pyxis-stand-in")" \
    "$plugin" "${pyxis_args:+ $pyxis_args}" >"$plugstack_conf.new"
  write_if_changed "$plugstack_conf" 0644 root:root
}

write_dbd_conf() {
  local password
  password=$(<"$db_password_file")
  (
    umask 077
    cat >"$dbd_conf.new" <<EOF
# Written by tools/local-slurm. DbdHost=localhost is compared with gethostname(), never
# looked up, so it matches whatever the machine is called.
DbdAddr=127.0.0.1
DbdHost=localhost
DbdPort=$dbd_port
SlurmUser=slurm
AuthType=auth/munge
AuthInfo=socket=$munge_socket
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$jwt_key
PidFile=$run_dir/slurmdbd.pid
LogFile=$log_dir/slurmdbd.log
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$mysql_port
StorageUser=slurm
StoragePass=$password
StorageLoc=slurm_acct_db
EOF
  )
  # slurmdbd refuses a config file that others can read (it holds the password).
  write_if_changed "$dbd_conf" 0600 slurm:slurm
}

# write_configs: every file the daemons read; sets config_changed when any differs.
write_configs() {
  config_changed=0
  detect_hardware
  write_slurm_conf
  write_gres_conf
  write_plugstack_conf
  if ((accounting)); then
    write_dbd_conf
  fi
}
