#!/usr/bin/env bash
# The local Slurm on a machine whose name is not `vm` and does not resolve, as on a fresh
# Debian install whose /etc/hosts lacks the machine's name. In a UTS + mount namespace the
# machine is renamed and /etc/hosts is replaced by a copy without that name; there
# tools/local-slurm brings up a cluster with accounting on its own ports and state
# directory, the smoke test (smoke.sh: a single and a heterogeneous job through
# slurmrestd) runs against it, a job submitted with the job user's token (read as the
# service account) must run as the job user in the shared group, and every job must reach
# slurmdbd as COMPLETED. The cluster
# is stopped afterwards whatever happens.
#
#   foreign_host.sh STATE_DIR
#
# Needs root (unshare, mount); re-runs itself through `sudo -n` otherwise. It never skips:
# when the namespace cannot be made or the cluster does not start, it fails.
set -uo pipefail

name=local_slurm_foreign_host
abort() {
  printf '%s: FAIL: %s\n' "$name" "$*" >&2
  exit 1
}
say() { printf '%s: %s\n' "$name" "$*"; }

(($# == 1)) || abort "usage: foreign_host.sh STATE_DIR"
state_dir=$1
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if ((EUID != 0)); then
  command -v sudo >/dev/null || abort "needs root for unshare and mount, and sudo is missing"
  exec sudo -n -- bash "${BASH_SOURCE[0]}" "$@" || abort "needs root for unshare and mount; sudo -n failed"
fi
command -v unshare >/dev/null || abort "unshare (util-linux) is missing"

# Ports of their own, so that this cluster never meets the two tools/test starts.
ports=(--ctld-port 6857 --slurmd-ports "6858,6859" --rest-port 6860 --dbd-port 6861 --mysql-port 6862)
foreign=tp-elsewhere-$$
[[ $(hostname) != "$foreign" ]] || abort "the machine is already called $foreign"

cleanup() {
  "$top/tools/local-slurm" down --state-dir "$state_dir" >/dev/null 2>&1 ||
    printf '%s: could not stop the cluster in %s\n' "$name" "$state_dir" >&2
}
trap cleanup EXIT

# A fresh state directory each time, so that MariaDB's data directory is made anew too.
cleanup
case $state_dir in
  /*/*) rm -rf -- "$state_dir" ;;
  *) abort "STATE_DIR $state_dir: expected an absolute path below /" ;;
esac

started=$SECONDS
# shellcheck disable=SC2016 # the inner script is expanded by the inner bash
# --propagation unchanged: unshare's default (private) fails where / is not a mount point;
# the inner script makes the mounts private itself before it mounts anything.
unshare --uts --mount --propagation unchanged -- bash -c '
  set -uo pipefail
  name=$1 top=$2 state_dir=$3 foreign=$4
  shift 4
  fail() { printf "%s: FAIL: %s\n" "$name" "$*" >&2; exit 1; }
  hostname "$foreign" || fail "cannot set the host name in a UTS namespace"
  [[ $(hostname) == "$foreign" ]] || fail "hostname says $(hostname), expected $foreign"
  # /etc/hosts is replaced by a copy without vm, but only where this namespace'"'"'s mounts can
  # be made private (so the bind mount reaches no other namespace). In a chroot whose root
  # is not a mount point they cannot; /etc/hosts stays then, which holds the new name in
  # no case. A fresh debootstrap root has no /etc/hosts at all.
  hidden="vm not resolvable"
  if [[ -e /etc/hosts ]] && grep -qw -e vm -e "$foreign" /etc/hosts; then
    if mount --make-rprivate / 2>/dev/null; then
      hosts=$(mktemp "${TMPDIR:-/tmp}/foreign-hosts.XXXXXX") || fail "mktemp failed"
      grep -v -w -e vm -e "$foreign" /etc/hosts >"$hosts"
      chmod 0644 "$hosts"
      mount --bind "$hosts" /etc/hosts || fail "cannot bind-mount a copy of /etc/hosts"
      rm -f "$hosts"
    else
      hidden="/etc/hosts left as it is: / is not a mount point here (a chroot?), so no private bind mount"
    fi
  fi
  if getent hosts "$foreign" >/dev/null; then fail "$foreign resolves; the test needs a name that does not"; fi
  if [[ $hidden == "vm not resolvable" ]] && getent hosts vm >/dev/null; then fail "vm still resolves inside the namespace"; fi
  printf "%s: host name %s (not resolvable), %s\n" "$name" "$foreign" "$hidden"

  "$top/tools/local-slurm" up --accounting --state-dir "$state_dir" "$@" ||
    fail "tools/local-slurm up failed on a machine called $foreign whose name does not resolve"
  set -a
  # shellcheck disable=SC1090
  . <("$top/tools/local-slurm" env --state-dir "$state_dir") || fail "tools/local-slurm env failed"
  set +a
  bash "$top/tests/local_slurm/smoke.sh" || fail "the smoke test failed against the cluster on $foreign"

  # The two-user deployment: the service account reads the job user'"'"'s token, and a job
  # submitted with it runs as the job user, in the shared group.
  svc=$TUNEPLANE_LOCAL_SLURM_SERVICE_USER job_user=$TUNEPLANE_LOCAL_SLURM_JOB_USER group=$TUNEPLANE_LOCAL_SLURM_JOB_GROUP
  [[ $(getent group "$group" | cut -d: -f4 | tr , "\n" | sort | paste -sd, -) == "$(printf "%s\n" "$svc" "$job_user" | sort | paste -sd, -)" ]] ||
    fail "group $group has members \"$(getent group "$group" | cut -d: -f4)\", expected $svc and $job_user"
  token=$(setpriv --reuid="$svc" --regid="$svc" --init-groups cat "$TUNEPLANE_LOCAL_SLURM_JOB_TOKEN_FILE" | sed -n "s/^SLURM_JWT=//p")
  [[ -n $token ]] || fail "$svc cannot read a token from $TUNEPLANE_LOCAL_SLURM_JOB_TOKEN_FILE"
  work=$state_dir/two-user
  install -d -m 2770 -o root -g "$group" "$work"
  headers=$state_dir/secrets/job-user.headers
  (umask 077 && printf "X-SLURM-USER-NAME: %s\nX-SLURM-USER-TOKEN: %s\nContent-Type: application/json\n" "$job_user" "$token" >"$headers")
  unset token
  body=$(jq -n --arg p "$TUNEPLANE_SLURM_PARTITION" --arg w "$work" '"'"'{job: {name: "tp-two-user", partition: $p,
    tasks: 1, memory_per_node: 100, time_limit: 2, current_working_directory: $w,
    standard_output: ($w + "/out-%j.txt"), environment: {PATH: "/usr/bin:/bin"}, no_requeue: true},
    script: "#!/bin/bash\nid -un > user.txt\nid -Gn >> user.txt\n"}'"'"')
  url=$TUNEPLANE_SLURM_REST_URL/slurm/$TUNEPLANE_SLURM_REST_API_VERSION
  id=$(curl -s --max-time 20 --noproxy "*" -H @"$headers" --data-binary "$body" "$url/job/submit" | jq -r ".job_id // empty")
  [[ $id =~ ^[0-9]+$ ]] || fail "submitting a job with the $job_user token failed"
  deadline=$((SECONDS + 60))
  until [[ $(curl -s --max-time 20 --noproxy "*" -H @"$headers" "$url/job/$id" | jq -r ".jobs[0].job_state") == COMPLETED ]]; do
    ((SECONDS < deadline)) || fail "the job $id of $job_user did not complete within 60 s"
    sleep 1
  done
  [[ $(stat -c %U "$work/user.txt" 2>/dev/null) == "$job_user" && $(head -n 1 "$work/user.txt") == "$job_user" ]] ||
    fail "the job of $job_user ran as \"$(head -n 1 "$work/user.txt" 2>/dev/null)\""
  grep -qw "$group" <(sed -n 2p "$work/user.txt") || fail "the job of $job_user is not in group $group: $(sed -n 2p "$work/user.txt")"
  printf "%s: ok: a job with the %s token ran as %s (groups: %s) and completed\n" "$name" "$job_user" "$job_user" "$(sed -n 2p "$work/user.txt")"

  # Every job above must reach slurmdbd as COMPLETED (records arrive a few
  # seconds after the end of a job).
  export SLURM_CONF=$TUNEPLANE_LOCAL_SLURM_CONF
  deadline=$((SECONDS + 60))
  while :; do
    records=$(sacct -n -X -P -a -o JobID,State 2>&1)
    if [[ -n $records ]] && ! grep -qv "|COMPLETED$" <<<"$records" && (($(wc -l <<<"$records") >= 3)); then
      break
    fi
    ((SECONDS < deadline)) || fail "slurmdbd does not hold every job as COMPLETED after 60 s; sacct says: $(tr "\n" " " <<<"$records")"
    sleep 1
  done
  printf "%s: ok: slurmdbd holds every job as COMPLETED: %s\n" "$name" "$(tr "\n" " " <<<"$records")"
' bash "$name" "$top" "$state_dir" "$foreign" "${ports[@]}" || abort "the local Slurm did not run jobs under the host name $foreign (output above)"
say "passed in $((SECONDS - started)) s"
