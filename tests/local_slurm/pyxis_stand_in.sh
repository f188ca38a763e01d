#!/bin/bash
# The local Slurm's Enroot+Pyxis stand-in (tools/local-slurm.d/pyxis-stand-in and enroot-stand-in/)
# through srun on the real cluster, with a real SQSH image (tools/make-test-sqsh): what a task
# sees with the options the `enroot-pyxis` profile renders (read from
# tests/golden/cpu-only-enroot-pyxis/job.sh, so the two cannot drift apart) and without
# --container-workdir; Pyxis's own refusals of --container-mounts values; an option a release
# does not have; that a hostile --container-mounts value given to srun runs its payload on the
# host through the configuration file that Enroot sources, as the real Pyxis 0.24 and Enroot 4.1.2
# do ($(...), a backquote, the ";...;" form), and, following Pyxis 0.19, that a newline in a
# target adds a whole mount line and a space drops :ro; and, as the cluster's job user (not
# root), what the real Enroot 4.1.2 did with the same mounts: the rendered options (scratch/
# writable inside the read-only attempt directory), a target missing below a read-only bind or
# below the user's own read-only directory, :ro on a source with a mount below it, TERM, uid 0
# under --container-remap-root, the job's cgroups, /.lock. This is the stand-in caught in the
# act; the project's own defence is the end-to-end tests' business.
#
# Reads the cluster from the variables `tools/local-slurm env` prints (tools/test exports them).
# Without them, or without the stand-in in the cluster's plugstack.conf, it fails; it never skips.
set -uo pipefail

name=pyxis_stand_in
passed=0 failed=0
check() {
  if [[ $2 == "$3" ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf '%s: FAIL: %s: expected [%s], got [%s]\n' "$name" "$1" "$2" "$3" >&2
  fi
}
abort() {
  printf '%s: FAIL: %s\n' "$name" "$*" >&2
  exit 1
}

source_dir=$(cd "$(dirname "$0")/../.." && pwd)
golden=$source_dir/tests/golden/cpu-only-enroot-pyxis/job.sh
for var in TUNEPLANE_LOCAL_SLURM_CONF TUNEPLANE_SLURM_PARTITION TUNEPLANE_LOCAL_SLURM_JOB_USER TUNEPLANE_LOCAL_SLURM_JOB_GROUP; do
  [[ -n ${!var:-} ]] || abort "the local Slurm is not up: $var is not set (start it with tools/local-slurm up, then export the lines of tools/local-slurm env)"
done
export SLURM_CONF=$TUNEPLANE_LOCAL_SLURM_CONF
plugstack=$(dirname "$SLURM_CONF")/plugstack.conf
grep -q 'spank_pyxis_stand_in.so' "$plugstack" 2>/dev/null || abort "$plugstack does not name the Pyxis stand-in"
command -v srun >/dev/null || abort "srun is missing (tools/local-slurm up installs it)"

# The work directory: outside /tmp, which the container has of its own, and reachable by the
# nodes (every ancestor searchable).
work=$(mktemp -d "${TMPDIR:-/tmp}/pyxis-stand-in.XXXXXX")
chmod 0755 "$work"
trap 'rm -rf "$work" "/tmp/tp-pyxis-stand-in-host-$$" "/dev/shm/tp-pyxis-stand-in-$$"' EXIT
image=$work/probe.sqsh
"$source_dir/tools/make-test-sqsh" "$image" || abort "tools/make-test-sqsh could not build the image"

attempt=$work/attempt
mkdir -p "$attempt/scratch" "$work/unbound" "$work/canary" "$work/data"
echo attempt-env > "$attempt/env"
echo secret > "$work/unbound/secret"
echo host > "/tmp/tp-pyxis-stand-in-host-$$"

# The rendered options: the golden script's tp_container line, with its variables.
# shellcheck disable=SC2034  # read by the eval below
{
  tp_mounts=$attempt:$attempt:ro,$attempt/scratch:$attempt/scratch
  tp_workdir=$attempt
  tp_image=$image
}
line=$(grep '^tp_container=(--container-image' "$golden") || abort "no tp_container line in $golden"
eval "$line"
# shellcheck disable=SC2154  # assigned by the eval
check "rendered options" "--container-image=$image --container-mounts=$tp_mounts --container-workdir=$attempt --no-container-mount-home" "${tp_container[*]}"

# What a task sees, one line per question. Its arguments: the test's pid, the work directory, the
# attempt directory.
# shellcheck disable=SC2016
probe='t() { if "$@" 2>/dev/null; then echo yes; else echo no; fi; }
echo "host-tmp $(t test -e /tmp/tp-pyxis-stand-in-host-$1)"
echo "write-tmp $(t touch /tmp/inside)"
echo "unbound $(t test -e "$2/unbound/secret")"
echo "attempt $(t test -e "$3/env")"
echo "attempt-ro $(t touch "$3/probe")"
echo "scratch-rw $(t touch "$3/scratch/probe")"
echo "root-ro $(t touch /probe)"
echo "canary ${TP_HOST_CANARY:-unset}"
echo "image-variable ${TP_IMAGE_VARIABLE:-unset}"
echo "lang ${LANG:-unset}"
echo "path $PATH"
echo "pwd $(pwd)"
echo "home ${HOME:-unset}"
echo "hostname-file $(t test -s /etc/hostname)"
echo "proc $(t test -e /proc/self/status)"
echo "sys-ro $(t touch /sys/probe)"
echo "user $(id -u)"'
field() { sed -n "s/^$1 //p" <<< "$2"; }
run() { (cd "$work" && timeout 120 srun --partition="$TUNEPLANE_SLURM_PARTITION" --nodes=1 --ntasks=1 "$@"); }

# 1. With the rendered options; the step's environment carries a canary, a variable the image
# also sets, and LANG (which Pyxis drops).
out=$(TP_HOST_CANARY=host-canary TP_IMAGE_VARIABLE=from-the-job LANG=C.UTF-8 run "${tp_container[@]}" \
  /bin/sh -c "$probe" probe "$$" "$work" "$attempt" 2>"$work/err")
check "rendered: runs" 0 $?
check "rendered: the host's /tmp" no "$(field host-tmp "$out")"
check "rendered: /tmp is Enroot's own tmpfs" yes "$(field write-tmp "$out")"
check "rendered: an unbound host directory" no "$(field unbound "$out")"
check "rendered: the attempt directory" yes "$(field attempt "$out")"
check "rendered: the attempt directory is read-only" no "$(field attempt-ro "$out")"
check "rendered: scratch is writable" yes "$(field scratch-rw "$out")"
check "rendered: the image is read-only" no "$(field root-ro "$out")"
check "rendered: the step's environment goes in" host-canary "$(field canary "$out")"
check "rendered: the image's environment wins over the step's" from-the-image "$(field image-variable "$out")"
check "rendered: LANG is dropped" unset "$(field lang "$out")"
check "rendered: PATH is the image's" /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$(field path "$out")"
check "rendered: --container-workdir" "$attempt" "$(field pwd "$out")"
check "rendered: Enroot's /etc/hostname" yes "$(field hostname-file "$out")"
check "rendered: Enroot's /proc" yes "$(field proc "$out")"
check "rendered: /sys is read-only" no "$(field sys-ro "$out")"
check "rendered: the job's user" "$(id -u)" "$(field user "$out")"
check "rendered: the scratch write reached the host" yes "$([[ -e $attempt/scratch/probe ]] && echo yes || echo no)"
rm -f "$attempt/scratch/probe"

# 2. Without --container-workdir the task starts where Enroot's login put the container: $HOME.
home=$(getent passwd "$(id -u)" | cut -d: -f6)
out=$(run --container-image="$image" --no-container-mount-home /bin/sh -c "$probe" probe "$$" "$work" "$attempt" 2>>"$work/err")
check "no workdir: runs" 0 $?
check "no workdir: the task starts in \$HOME" "$home" "$(field pwd "$out")"
check "no workdir: \$HOME" "$home" "$(field home "$out")"

# 3. Pyxis's refusals, in srun (its status for a bad option, 255) and in the step.
err=$(run --container-image="$image" --container-mounts=":$work" true 2>&1)
check "empty source: status" 255 $?
check "empty source: Pyxis's error" "srun: error: pyxis: --container-mounts: invalid format: :$work" "$(head -n 1 <<< "$err")"
err=$(run --container-image="$image" --container-mounts="data:/data" true 2>&1)
check "bare source: status" 255 $?
check "bare source: Pyxis's error" 'srun: error: pyxis: mount source must be a relative path, an absolute path, "tmpfs" or "umount"' "$(head -n 1 <<< "$err")"
err=$(run --container-image="$image" --container-mounts="$work/data:data" true 2>&1)
check "bare target: status" 255 $?
check "bare target: Pyxis's error" "srun: error: pyxis: mount target must be a relative path or an absolute path" "$(head -n 1 <<< "$err")"
err=$(run --container-image="$image" --container-mounts="$work/missing:/data" true 2>&1)
check "missing source: status" 1 $?
check "missing source: Pyxis 0.24's error" yes "$(grep -q "pyxis: --container-mounts: source path does not exist: $work/missing" <<< "$err" && echo yes || echo no)"
err=$(TP_PYXIS_STAND_IN_RELEASE=0.19 run --container-image="$image" --container-unshare=net true 2>&1)
check "an option Pyxis 0.19 does not have: status" 255 $?
check "an option Pyxis 0.19 does not have: srun's error" "srun: unrecognized option '--container-unshare=net'" "$(head -n 1 <<< "$err")"
err=$(run --container-image="$image" --container-name=kept true 2>&1)
check "an option the stand-in does not implement: status" 254 $?

# 4. Hostile targets given to srun: each payload runs on the host, as the job's user, before the
# container exists (the configuration file is sourced in bash there). After $(...) and a
# backquote the step goes on as if nothing happened; after the ";...;" form the rest of the line
# is a mount of its own, whose failure ends the step, but only after the payload ran.
mounts="$work/data:/d1\$(touch\${IFS}$work/canary/dollar),$work/data:/d2\`touch\${IFS}$work/canary/backquote\`"
run --container-image="$image" --container-mounts="$mounts" --no-container-mount-home true 2>>"$work/err"
check "hostile targets: the step runs" 0 $?
run --container-image="$image" --container-mounts="$work/data:/d3\";touch\${IFS}$work/canary/quote;echo\${IFS}\"" \
  --no-container-mount-home true 2>>"$work/err"
for canary in dollar backquote quote; do
  check "a hostile target ($canary) ran on the host" yes "$([[ -e $work/canary/$canary ]] && echo yes || echo no)"
done

# 5. Pyxis 0.19 to 0.23 write targets unescaped: a newline adds a mount line (here the host's /
# at /host), and "DST none rbind" leaves a bind without its flags (:ro is lost). 0.24 escapes both.
hostile="$work/data:/a"$'\n'"/ /host:ro,$work/data:/home none rbind:ro"
# shellcheck disable=SC2016
look='if [ -e /host/proc ]; then echo host-root; fi; touch /home/written 2>/dev/null && echo written'
out=$(TP_PYXIS_STAND_IN_RELEASE=0.19 run --container-image="$image" --container-mounts="$hostile" --no-container-mount-home \
  /bin/sh -c "$look" 2>>"$work/err")
check "0.19: a newline adds a mount line; a space drops :ro" "host-root written" "$(tr '\n' ' ' <<< "$out" | sed 's/ $//')"
rm -f "$work/data/written"
out=$(run --container-image="$image" --container-mounts="$hostile" --no-container-mount-home /bin/sh -c "$look" 2>>"$work/err")
check "0.24: both escaped" "" "$out"
check "0.24: nothing written" no "$([[ -e $work/data/written ]] && echo yes || echo no)"

# 6. A target that climbs out of the root: refused with Enroot's words, those of the musl its
# release packages are built with.
err=$(run --container-image="$image" --container-mounts="$work/data:/../../../../../../../../data" true 2>&1)
check "a target out of the root: Enroot's error" yes \
  "$(grep -q 'enroot-mount: failed to resolve path: .*/\.\./\.\./\.\./\.\./\.\./\.\./\.\./\.\./data: Cross-device link$' <<< "$err" && echo yes || echo no)"

# 7. As the job user, as a site runs jobs: root's capabilities hide what the user's rights
# forbid. Its environment has no TERM.
job_user=$TUNEPLANE_LOCAL_SLURM_JOB_USER
as_job_user() {
  (cd "$work" && setpriv --reuid="$job_user" --regid="$TUNEPLANE_LOCAL_SLURM_JOB_GROUP" --init-groups \
    env -i PATH=/usr/local/bin:/usr/bin:/bin "SLURM_CONF=$SLURM_CONF" \
    timeout 120 srun --partition="$TUNEPLANE_SLURM_PARTITION" --nodes=1 --ntasks=1 "$@")
}
# Enroot, and so its stand-in, runs the job user's container in a user namespace: say so first
# when this machine refuses them (a chroot refuses them to every user; so do kernels with
# kernel.unprivileged_userns_clone=0 or kernel.apparmor_restrict_unprivileged_userns=1).
userns_ok=yes
if ! userns=$(setpriv --reuid="$job_user" --regid="$TUNEPLANE_LOCAL_SLURM_JOB_GROUP" --init-groups \
  unshare --user true 2>&1); then
  userns_ok=no
  echo "pyxis_stand_in: the job user $job_user cannot create a user namespace here ($userns): the checks as the job user fail; run the tests on a machine or VM that allows them" >&2
fi
check "job user: may create a user namespace" yes "$userns_ok"
chmod 0644 "$image"
chown "$job_user" "$attempt/scratch"
job_uid=$(id -u "$job_user")
# The rendered options: the attempt directory read-only, its scratch/ writable inside it (Enroot
# mounts one entry after the other: scratch/ is found in the attempt directory's bind).
out=$(as_job_user "${tp_container[@]}" /bin/sh -c "$probe" probe "$$" "$work" "$attempt" 2>>"$work/err")
check "job user, rendered: runs" 0 $?
check "job user, rendered: the attempt directory is read-only" no "$(field attempt-ro "$out")"
check "job user, rendered: scratch is writable" yes "$(field scratch-rw "$out")"
check "job user, rendered: the job's user" "$job_uid" "$(field user "$out")"
check "job user, rendered: the scratch write reached the host" yes "$([[ -e $attempt/scratch/probe ]] && echo yes || echo no)"
# A target missing below a read-only bind cannot be created there.
err=$(as_job_user --container-image="$image" --container-mounts="$attempt:/a:ro,$work/data:/a/missing" true 2>&1)
check "job user: a target missing below a read-only bind: status" 1 $?
check "job user: a target missing below a read-only bind: Enroot's error" yes \
  "$(grep -q 'enroot-mount: failed to create directory: .*/a/missing: Read-only file system$' <<< "$err" && echo yes || echo no)"
# A target missing below a writable bind of the job user's own read-only directory: Enroot makes
# it with the capabilities its user namespace gives over the user's own files. And :ro makes the
# bind read-only, not what is mounted below its source (Enroot remounts the bind alone): the
# host's /dev/shm under /dev stays writable.
install -d -m 0555 -o "$job_user" -g "$TUNEPLANE_LOCAL_SLURM_JOB_GROUP" "$work/own"
# shellcheck disable=SC2016
below='touch "/host-dev/$1-top" 2>/dev/null && echo top; touch "/host-dev/shm/$1" 2>/dev/null && echo below'
out=$(as_job_user --container-image="$image" --container-mounts="$work/own:/own,$work/data:/own/new,/dev:/host-dev:ro" \
  --no-container-mount-home /bin/sh -c "$below" probe "tp-pyxis-stand-in-$$" 2>>"$work/err")
check "job user: a target missing below its own read-only directory: runs" 0 $?
check "job user: a target missing below its own read-only directory: made on the host" yes \
  "$([[ -d $work/own/new ]] && echo yes || echo no)"
check "job user: :ro on a source with a mount below it" below "$out"
# Enroot's login, ENROOT_REMAP_ROOT (uid 0 inside, through the user namespace's map), /.lock,
# and its 10-cgroups hook: over a cgroup hierarchy's mount, the job's own cgroup, read-only, then
# /sys/fs/cgroup remounted read-only (the last mount at each point is the one the task sees).
# shellcheck disable=SC2016
login='echo "term [${TERM-unset}]"; read -r inside outside count < /proc/self/uid_map
echo "uid $(id -u) $inside $outside $count"
echo "login ${USER-} ${LOGNAME-} $HOME $(pwd)"
awk '"'"'$5 ~ /^\/sys\/fs\/cgroup/ { split($6, o, ","); if ($5 in seen && o[1] == "ro") covered = "yes"; seen[$5] = o[1] }
  END { print "cgroup " seen["/sys/fs/cgroup"] " " (covered ? covered : "no") }'"'"' /proc/self/mountinfo
grep " /.lock " /proc/self/mountinfo | cut -d" " -f6 | cut -d, -f1'
out=$(as_job_user --container-image="$image" --no-container-mount-home /bin/sh -c "$login" 2>>"$work/err")
check "job user: TERM is set and empty (Enroot reads it from the environment)" "term []" "$(grep '^term' <<< "$out")"
check "job user: its own uid, mapped to itself" "uid $job_uid $job_uid $job_uid 1" "$(grep '^uid' <<< "$out")"
check "job user: /.lock, read-only" ro "$(tail -n 1 <<< "$out")"
check "job user: /sys/fs/cgroup read-only, a hierarchy covered by the job's cgroup" "cgroup ro yes" \
  "$(grep '^cgroup' <<< "$out")"
out=$(as_job_user --container-image="$image" --container-remap-root --no-container-mount-home /bin/sh -c "$login" 2>>"$work/err")
check "remapped root: uid 0, mapped to the job user" "uid 0 0 $job_uid 1" "$(grep '^uid' <<< "$out")"
check "remapped root: root's login, LOGNAME the job user's" "login root $job_user /root /root" "$(grep '^login' <<< "$out")"

if ((failed > 0)); then
  printf '%s: the steps'"'"' errors:\n' "$name" >&2
  cat "$work/err" >&2
fi
echo "$name: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
