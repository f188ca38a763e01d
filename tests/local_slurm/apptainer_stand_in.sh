#!/bin/bash
# The local Slurm's apptainer stand-in (tools/local-slurm.d/apptainer-stand-in) on a real SIF
# image (tools/make-test-sif): what a job sees with the options the `apptainer` profile renders
# (read from tests/golden/cpu-only-apptainer/job.sh, so the two cannot drift apart), and what
# it sees with Apptainer's defaults, so that each option is shown to matter; an option Apptainer
# does not have fails with Apptainer's error. Needs bwrap, siftool, squashfs-tools and
# busybox-static (tools/packages): without them it fails, it never skips.
set -uo pipefail

source_dir=$(cd "$(dirname "$0")/../.." && pwd)
stand_in=$source_dir/tools/local-slurm.d/apptainer-stand-in
golden=$source_dir/tests/golden/cpu-only-apptainer/job.sh

for tool in bwrap siftool unsquashfs mksquashfs; do
  if ! command -v "$tool" >/dev/null; then
    echo "FAIL: $tool is not installed; run tools/setup" >&2
    exit 1
  fi
done

# The work directory: under $1 (ctest gives its build directory), never under /tmp, /var/tmp or
# $HOME, which Apptainer binds by default.
if [[ $# -ne 1 || ! -d $1 ]]; then
  echo "usage: $0 BASE_DIR (an existing directory outside /tmp, /var/tmp and \$HOME)" >&2
  exit 2
fi
work=$(mktemp -d -p "$1" apptainer-stand-in.XXXXXX)
home=$(getent passwd "$(id -u)" | cut -d: -f6)
home_marker=
cleanup() {
  rm -rf "$work" "/tmp/tp-stand-in-host-$$" "/tmp/tp-stand-in-inside-$$"
  if [[ -n $home_marker ]]; then rm -f "$home_marker"; fi
}
trap cleanup EXIT

passed=0 failed=0
check() {
  if [[ $2 == "$3" ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAIL: %s: expected [%s], got [%s]\n' "$1" "$2" "$3" >&2
  fi
}

image=$work/runtimes/probe.sif
mkdir -p "$work/runtimes"
if ! "$source_dir/tools/make-test-sif" "$image"; then
  echo "FAIL: tools/make-test-sif could not build the image" >&2
  exit 1
fi
export TP_APPTAINER_STAND_IN_CACHE=$work/cache

# An attempt as the batch script sees it, a directory nobody binds, the host's /tmp and $HOME.
attempt=$work/attempt
mkdir -p "$attempt/scratch" "$work/unbound" "$work/cwd"
echo attempt-env > "$attempt/env"
echo secret > "$work/unbound/secret"
echo cwd > "$work/cwd/marker"
echo host > "/tmp/tp-stand-in-host-$$"
if [[ -d $home && -w $home ]]; then
  home_marker=$(mktemp "$home/.tp-stand-in-XXXXXX")
fi
export TP_HOST_CANARY=host-canary

# The rendered options: the golden script's tp_container line, with its variables.
# shellcheck disable=SC2034  # read by the eval below
{
  tp_mounts=$attempt:$attempt:ro,$attempt/scratch:$attempt/scratch
  tp_workdir=$attempt
  tp_image=$image
}
line=$(grep '^tp_container=(apptainer exec' "$golden")
if [[ -z $line ]]; then
  echo "FAIL: no tp_container line in $golden" >&2
  exit 1
fi
eval "$line"
# shellcheck disable=SC2154  # assigned by the eval
check "rendered options" "apptainer exec --contain --no-home --no-mount hostfs --bind" "${tp_container[*]:0:7}"
rendered=("${tp_container[@]:1}")

# A device of the host that a minimal /dev lacks.
host_dev=
for candidate in /dev/kmsg /dev/loop-control /dev/fuse /dev/mem /dev/net/tun; do
  if [[ -e $candidate ]]; then host_dev=$candidate; break; fi
done

# What a job sees, one line per question. Its arguments: the test's pid, the marker in $HOME,
# the work directory, the attempt directory and the host's device.
# shellcheck disable=SC2016
probe='t() { if "$@" 2>/dev/null; then echo yes; else echo no; fi; }
echo "host-tmp $(t test -e /tmp/tp-stand-in-host-$1)"
echo "write-tmp $(t touch /tmp/tp-stand-in-inside-$1)"
echo "home $(t test -e "$2")"
echo "unbound $(t test -e "$3/unbound/secret")"
echo "cwd $(t test -e "$3/cwd/marker")"
echo "attempt $(t test -e "$4/env")"
echo "attempt-ro $(t touch "$4/probe")"
echo "scratch-rw $(t touch "$4/scratch/probe")"
echo "root-ro $(t touch /probe)"
echo "canary ${TP_HOST_CANARY:-unset}"
echo "path $PATH"
echo "pwd $(pwd)"
echo "host-dev $5 $(t test -e "$5")"
echo "pid1 $(cat /proc/1/comm 2>/dev/null)"'

# Runs the stand-in from the host's current directory $work/cwd; prints what the job saw.
see() {
  (cd "$work/cwd" && "$stand_in" "$@" /bin/sh -c "$probe" probe "$$" "${home_marker:-/nonexistent}" "$work" \
    "$attempt" "${host_dev:-/nonexistent}")
}
field() { sed -n "s/^$1 //p" <<< "$2"; }

# 1. With the rendered options.
out=$(see "${rendered[@]}")
check "rendered: runs" 0 $?
check "rendered: host /tmp" no "$(field host-tmp "$out")"
check "rendered: /tmp writable" yes "$(field write-tmp "$out")"
check "rendered: the write stays inside" no "$([[ -e /tmp/tp-stand-in-inside-$$ ]] && echo yes || echo no)"
if [[ -n $home_marker ]]; then check "rendered: \$HOME" no "$(field home "$out")"; fi
check "rendered: an unbound host directory" no "$(field unbound "$out")"
check "rendered: the host's current directory" no "$(field cwd "$out")"
check "rendered: the attempt directory" yes "$(field attempt "$out")"
check "rendered: the attempt directory is read-only" no "$(field attempt-ro "$out")"
check "rendered: scratch is writable" yes "$(field scratch-rw "$out")"
check "rendered: the image is read-only" no "$(field root-ro "$out")"
check "rendered: the step's environment goes in" host-canary "$(field canary "$out")"
check "rendered: PATH is Apptainer's" /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$(field path "$out")"
check "rendered: --pwd" "$attempt" "$(field pwd "$out")"
if [[ -n $host_dev ]]; then check "rendered: minimal /dev lacks $host_dev" "$host_dev no" "$(field host-dev "$out")"; fi
rm -f "/tmp/tp-stand-in-inside-$$" "$attempt/scratch/probe"

# 2. Apptainer's defaults: the host's /tmp, $HOME, current directory, /dev and environment.
out=$(see exec "$image")
check "defaults: runs" 0 $?
check "defaults: host /tmp" yes "$(field host-tmp "$out")"
check "defaults: the write reaches the host" yes "$([[ -e /tmp/tp-stand-in-inside-$$ ]] && echo yes || echo no)"
if [[ -n $home_marker ]]; then check "defaults: \$HOME" yes "$(field home "$out")"; fi
check "defaults: an unbound host directory" no "$(field unbound "$out")"
check "defaults: the host's current directory" yes "$(field cwd "$out")"
check "defaults: the attempt directory is not bound" no "$(field attempt "$out")"
check "defaults: the environment" host-canary "$(field canary "$out")"
check "defaults: working directory" "$work/cwd" "$(field pwd "$out")"
if [[ -n $host_dev ]]; then check "defaults: the host's /dev has $host_dev" "$host_dev yes" "$(field host-dev "$out")"; fi
check "defaults: the host's PID namespace" "$(cat /proc/1/comm)" "$(field pid1 "$out")"
rm -f "/tmp/tp-stand-in-inside-$$"

# 3. Each option alone.
out=$(see exec --no-home "$image")
if [[ -n $home_marker ]]; then check "--no-home: \$HOME" no "$(field home "$out")"; fi
check "--no-home: host /tmp still" yes "$(field host-tmp "$out")"
out=$(see exec --no-mount tmp,cwd "$image")
check "--no-mount tmp: host /tmp" no "$(field host-tmp "$out")"
check "--no-mount tmp: /tmp is the image's, read-only" no "$(field write-tmp "$out")"
check "--no-mount cwd: the host's current directory" no "$(field cwd "$out")"
out=$(see exec --cleanenv "$image")
check "--cleanenv: the environment" unset "$(field canary "$out")"
out=$(APPTAINERENV_TP_HOST_CANARY=forced see exec -e "$image")
check "-e with APPTAINERENV_: the variable" forced "$(field canary "$out")"
out=$(see exec --cleanenv --env TP_HOST_CANARY=given "$image")
check "--env" given "$(field canary "$out")"
printf '# a comment\nTP_HOST_CANARY=from-file\n' > "$work/env-file"
out=$(see exec --containall --env-file "$work/env-file" "$image")
check "--containall --env-file" from-file "$(field canary "$out")"
check "--containall: host /tmp" no "$(field host-tmp "$out")"
check "--containall: own PID namespace" yes "$([[ $(field pid1 "$out") != "$(cat /proc/1/comm)" ]] && echo yes || echo no)"
out=$(see exec -B "$work/unbound:/data:ro" --pwd /data "$image")
check "-B SRC:DST:ro and --pwd" /data "$(field pwd "$out")"

err=$("$stand_in" exec --nv "$image" true 2>&1)
check "--nv without a GPU: status" 0 $?
check "--nv without a GPU: Apptainer's warning" "WARNING: Could not find any nv files on this host!" "$err"

# 4. The grammar: Apptainer's errors and statuses.
err=$("$stand_in" exec --no-such-flag "$image" true 2>&1 >/dev/null)
check "unknown flag: status" 1 $?
check "unknown flag: Apptainer's error" 'Error for command "exec": unknown flag: --no-such-flag' "$(head -n 1 <<< "$err")"
err=$("$stand_in" exec -Z "$image" true 2>&1 >/dev/null)
check "unknown shorthand: status" 1 $?
check "unknown shorthand: Apptainer's error" "Error for command \"exec\": unknown shorthand flag: 'Z' in -Z" "$(head -n 1 <<< "$err")"
err=$("$stand_in" exec "$image" 2>&1 >/dev/null)
check "too few arguments: status" 1 $?
check "too few arguments: Apptainer's error" 'Error for command "exec": requires at least 2 arg(s), only received 1' "$(head -n 1 <<< "$err")"
"$stand_in" exec --bind 2>/dev/null >/dev/null
check "a flag without its value: status" 1 $?
"$stand_in" exec --writable "$image" true 2>/dev/null
check "an Apptainer flag not implemented here: status" 255 $?
echo "not a SIF" > "$work/plain.sif"
err=$("$stand_in" exec "$work/plain.sif" true 2>&1)
check "a file that is not a SIF: status" 255 $?
check "a file that is not a SIF: error" "FATAL:   could not open image $work/plain.sif: image format not recognized" "$err"
"$stand_in" exec --contain "$image" /bin/sh -c 'exit 7'
check "the program's status" 7 $?

# A signal to apptainer reaches the container's program, as Apptainer's starter passes it on
# (the job's grace signal): the program's trap runs and the program ends by itself.
"$stand_in" exec --contain --no-home "$image" /bin/sh -c \
  'trap "echo got-usr1; exit 3" USR1; echo ready; while :; do sleep 0.1; done' > "$work/signal.out" 2>&1 &
signalled=$!
for _ in $(seq 100); do grep -q ready "$work/signal.out" 2>/dev/null && break; sleep 0.1; done
kill -USR1 "$signalled"
wait "$signalled"
check "a signal: the program's status" 3 $?
check "a signal: the program's trap ran" got-usr1 "$(grep -o got-usr1 "$work/signal.out")"

# Slurm signals a step's every process, not only its task (proctrack: each descendant of the
# step, or its cgroup): a signal to each process of the stand-in's session leaves the program
# to its trap, as Apptainer's starter does, and the runtime's own processes survive it.
setsid "$stand_in" exec --contain --no-home "$image" /bin/sh -c \
  'trap "echo got-usr1; exit 4" USR1; echo ready; while :; do sleep 0.1; done' > "$work/tree.out" 2>&1 &
tree=$!
for _ in $(seq 100); do grep -q ready "$work/tree.out" 2>/dev/null && break; sleep 0.1; done
kill -USR1 -- "-$tree"
wait "$tree"
check "a signal to every process: the program's status" 4 $?
check "a signal to every process: the program's trap ran" got-usr1 "$(grep -o -m1 got-usr1 "$work/tree.out")"

echo "apptainer stand-in: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
