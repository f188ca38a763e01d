#!/usr/bin/env bash
# Smoke test of the real local Slurm that tools/local-slurm starts: through slurmrestd
# v0.0.38 with the client token it submits a single job and a two-component heterogeneous
# job (GPU constraint + gres on one component, the emulation constraint on the other),
# waits for both to complete, checks exit codes, nodes and what the jobs wrote, and that a
# tampered token and missing headers are refused.
#
# Reads the cluster's address and files from the variables `tools/local-slurm env` prints
# (tools/test exports them). Without them it fails: a real-Slurm test never skips.
set -uo pipefail

name=local_slurm_smoke
failures=0
checks=0
fail() {
  printf '%s: FAIL: %s\n' "$name" "$*" >&2
  failures=$((failures + 1))
}
pass() {
  checks=$((checks + 1))
  printf '%s: ok: %s\n' "$name" "$*"
}
abort() {
  printf '%s: FAIL: %s\n' "$name" "$*" >&2
  exit 1
}

for var in TUNEPLANE_SLURM_REST_URL TUNEPLANE_SLURM_REST_API_VERSION TUNEPLANE_SLURM_REST_USER \
  TUNEPLANE_SLURM_JWT_FILE TUNEPLANE_SLURM_PARTITION TUNEPLANE_LOCAL_SLURM_STATE_DIR \
  TUNEPLANE_LOCAL_SLURM_GPU_CONSTRAINT TUNEPLANE_LOCAL_SLURM_CPU_CONSTRAINT TUNEPLANE_LOCAL_SLURM_GRES; do
  [[ -n ${!var:-} ]] || abort "the local Slurm is not up: $var is not set (start it with tools/local-slurm up, then export the lines of tools/local-slurm env)"
done
for tool in curl jq; do
  command -v "$tool" >/dev/null || abort "$tool is missing (tools/local-slurm up installs it)"
done

url=$TUNEPLANE_SLURM_REST_URL
api=$TUNEPLANE_SLURM_REST_API_VERSION
rest_user=$TUNEPLANE_SLURM_REST_USER
partition=$TUNEPLANE_SLURM_PARTITION
[[ -r $TUNEPLANE_SLURM_JWT_FILE ]] || abort "the token file $TUNEPLANE_SLURM_JWT_FILE is not readable"
token=$(sed -n 's/^SLURM_JWT=//p' "$TUNEPLANE_SLURM_JWT_FILE")
[[ -n $token ]] || abort "$TUNEPLANE_SLURM_JWT_FILE holds no SLURM_JWT=<token> line"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/local-slurm-smoke.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# The token reaches curl through header files (0600), never through its argument list.
(
  umask 077
  printf 'X-SLURM-USER-NAME: %s\nX-SLURM-USER-TOKEN: %s\nContent-Type: application/json\n' "$rest_user" "$token" >"$scratch/good.headers"
  # Same header, signature changed in its last characters: a tampered token.
  printf 'X-SLURM-USER-NAME: %s\nX-SLURM-USER-TOKEN: %sAAAA\n' "$rest_user" "${token%????}" >"$scratch/bad.headers"
)
unset token

# Jobs run as the token's user; they write their evidence here.
work=$scratch/jobs
mkdir -p "$work"
chmod 0755 "$scratch" "$work"
if ((EUID == 0)) && [[ $rest_user != root ]]; then chown "$rest_user" "$work"; fi

# rest METHOD PATH [BODY_FILE] [HEADERS_FILE]: prints the body, then the status on the last line.
rest() {
  local method=$1 path=$2 body=${3:-} headers=${4:-$scratch/good.headers}
  local args=(-s --max-time 20 --noproxy '*' -X "$method" -w '\n%{http_code}')
  [[ -z $headers ]] || args+=(-H @"$headers")
  [[ -z $body ]] || args+=(--data-binary @"$body")
  curl "${args[@]}" "$url$path"
}
status_of() { tail -n 1 <<<"$1"; }
body_of() { sed '$d' <<<"$1"; }

# --- submit ----------------------------------------------------------------------------

jq -n --arg partition "$partition" --arg work "$work" '{
  job: {
    name: "tp-smoke-single", partition: $partition, tasks: 1, memory_per_node: 100,
    time_limit: 2, current_working_directory: $work,
    standard_output: ($work + "/single-%j.out"),
    environment: {PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8"},
    no_requeue: true
  },
  script: "#!/bin/bash\nprintf \"single %s %s\\n\" \"$SLURM_JOB_ID\" \"$SLURMD_NODENAME\" > single.evidence\n"
}' >"$scratch/single.json"

# Component 0 holds the batch script; it starts a step on component 1 so that the second
# node provably ran something, not just held an allocation. (srun finds the cluster through
# the SLURM_CONF that slurmd puts into every job's environment.)
jq -n --arg partition "$partition" --arg work "$work" \
  --arg gpu "$TUNEPLANE_LOCAL_SLURM_GPU_CONSTRAINT" --arg cpu "$TUNEPLANE_LOCAL_SLURM_CPU_CONSTRAINT" \
  --arg gres "$TUNEPLANE_LOCAL_SLURM_GRES:1" '{
  jobs: [
    { name: "tp-smoke-het", partition: $partition, constraints: $gpu, gres: $gres, tasks: 1,
      memory_per_node: 100, time_limit: 2, current_working_directory: $work,
      standard_output: ($work + "/het-%j.out"),
      environment: {PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8"},
      no_requeue: true },
    { name: "tp-smoke-het", partition: $partition, constraints: $cpu, tasks: 1,
      memory_per_node: 100, time_limit: 2, current_working_directory: $work,
      environment: {PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8"},
      no_requeue: true }
  ],
  script: "#!/bin/bash\nset -e\nprintf \"het0 %s %s gpu=%s\\n\" \"$SLURM_JOB_ID\" \"$SLURMD_NODENAME\" \"${CUDA_VISIBLE_DEVICES:-none}\" > het0.evidence\nsrun --het-group=1 bash -c '\''printf \"het1 %s\\n\" \"$SLURMD_NODENAME\"'\'' > het1.evidence\n"
}' >"$scratch/het.json"

submit() { # submit LABEL FILE: prints the job id
  local reply status id
  reply=$(rest POST "/slurm/$api/job/submit" "$2")
  status=$(status_of "$reply")
  id=$(body_of "$reply" | jq -r '.job_id // empty' 2>/dev/null)
  if [[ $status != 200 || ! $id =~ ^[0-9]+$ ]]; then
    abort "submitting the $1 job: HTTP $status, body: $(body_of "$reply" | jq -c '.errors // .' 2>/dev/null | head -c 600)"
  fi
  printf '%s\n' "$id"
}
single_id=$(submit single "$scratch/single.json") || exit 1
pass "single job submitted as $single_id"
het_id=$(submit heterogeneous "$scratch/het.json") || exit 1
pass "heterogeneous job submitted as $het_id"

# --- wait (bounded) until every component is terminal ------------------------------------

# On v0.0.38 COMPLETING replaces the base state, so only these count as finished.
terminal='^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED)$'
declare -A final=()
deadline=$((SECONDS + 120))
for id in "$single_id" "$het_id"; do
  while :; do
    reply=$(rest GET "/slurm/$api/job/$id")
    if [[ $(status_of "$reply") == 200 ]]; then
      final[$id]=$(body_of "$reply")
      states=$(jq -r '[.jobs[].job_state] | join(" ")' <<<"${final[$id]}")
      all_done=1
      for state in $states; do [[ $state =~ $terminal ]] || all_done=0; done
      ((all_done)) && break
    fi
    ((SECONDS < deadline)) || abort "job $id did not finish within 120 s (last answer: HTTP $(status_of "$reply"), states: ${states:-none}); see squeue and the slurmctld log in $TUNEPLANE_LOCAL_SLURM_STATE_DIR/log"
    sleep 1
  done
done

# --- check what ran ----------------------------------------------------------------------

check_job() { # check_job ID EXPECTED_COMPONENTS
  local id=$1 want=$2 record count
  record=${final[$id]}
  count=$(jq '.jobs | length' <<<"$record")
  [[ $count == "$want" ]] || fail "job $id: expected $want component record(s), got $count"
  while read -r component state exit_code nodes offset; do
    if [[ $state == COMPLETED && $exit_code == 0 ]]; then
      pass "job $id component $component (offset $offset) COMPLETED with exit_code 0 on $nodes"
    else
      fail "job $id component $component: state $state, exit_code $exit_code (raw wait status), nodes $nodes"
    fi
  done < <(jq -r '.jobs[] | "\(.job_id) \(.job_state) \(.exit_code) \(.nodes) \(.het_job_offset // 0)"' <<<"$record")
}
check_job "$single_id" 1
check_job "$het_id" 2

het_nodes=$(jq -r '[.jobs[] | {o: .het_job_offset, n: .nodes}] | sort_by(.o) | map(.n) | join(",")' <<<"${final[$het_id]}")
if [[ $het_nodes == vm,vm-emu ]]; then
  pass "heterogeneous components ran on vm (constraint $TUNEPLANE_LOCAL_SLURM_GPU_CONSTRAINT) and vm-emu (constraint $TUNEPLANE_LOCAL_SLURM_CPU_CONSTRAINT)"
else
  fail "heterogeneous components ran on '$het_nodes', expected 'vm,vm-emu'"
fi
requeue=$(jq -r '[.jobs[].requeue] | unique | join(",")' <<<"${final[$single_id]}${final[$het_id]}" | sort -u | paste -sd, -)
if [[ $requeue == false ]]; then pass "no_requeue took effect (requeue false on every record)"; else fail "requeue flags: $requeue, expected false"; fi

expect_file() { # expect_file FILE EXPECTED_CONTENT
  local got
  got=$(cat "$work/$1" 2>/dev/null) || {
    fail "the job did not write $work/$1"
    return
  }
  if [[ $got == "$2" ]]; then pass "$1: $got"; else fail "$1 holds '$got', expected '$2'"; fi
}
expect_file single.evidence "single $single_id $(jq -r '.jobs[0].nodes' <<<"${final[$single_id]}")"
expect_file het0.evidence "het0 $het_id vm gpu=0"
expect_file het1.evidence "het1 vm-emu"
owner=$(stat -c %U "$work/single.evidence" 2>/dev/null)
if [[ $owner == "$rest_user" ]]; then pass "jobs ran as the token's user ($rest_user)"; else fail "single.evidence is owned by '$owner', expected the token's user '$rest_user'"; fi

# --- authentication ----------------------------------------------------------------------

reply=$(rest GET "/slurm/$api/ping" "" "$scratch/bad.headers")
status=$(status_of "$reply")
if [[ $status == 500 || $status == 401 ]]; then
  pass "a tampered token is refused (HTTP $status)"
else
  fail "a tampered token got HTTP $status, expected 500 (22.05) or 401"
fi
printf 'Content-Type: application/json\n' >"$scratch/none.headers"
reply=$(rest GET "/slurm/$api/ping" "" "$scratch/none.headers")
status=$(status_of "$reply")
if [[ $status == 401 ]]; then pass "a request without token headers is refused (HTTP 401)"; else fail "a request without token headers got HTTP $status, expected 401"; fi

printf '%s: %d passed, %d failed\n' "$name" "$checks" "$failures"
((failures == 0))
