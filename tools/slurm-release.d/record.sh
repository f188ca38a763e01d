# shellcheck shell=bash
# tools/slurm-release.d/record.sh OUT_DIR: records, against a running cluster of
# tools/slurm-release (up with --accounting), every call the client makes in the release's
# newest dialect, as transcripts in OUT_DIR:
#   NN_name.request.json   {method, url, headers (token shortened), body}
#   NN_name.response.json  the body exactly as served, local paths rewritten
#   NN_name.status.txt     "HTTP NNN" and the Connection/Content-Length/Content-Type headers
#   INDEX.tsv              sample, method, url, http_status
# and the OpenAPI document the server serves into OUT_DIR/../openapi-VERSION-served.json.
# Run by `tools/slurm-release record RELEASE OUT_DIR`, which sets RELEASE, VERSION,
# STATE_DIR and ENV_FILE (tools/local-slurm env). Submits and cancels jobs on that cluster;
# takes about two minutes. The answers are written as received; only paths are rewritten:
# the state directory becomes /var/lib/slurmNN (so Content-Length may differ from the
# rewritten body's length).
set -euo pipefail
shopt -s inherit_errexit

out=${1:?usage: record.sh OUT_DIR}
: "${RELEASE:?}" "${VERSION:?}" "${STATE_DIR:?}" "${ENV_FILE:?}"
# shellcheck disable=SC1090
. "$ENV_FILE"
base=$TUNEPLANE_SLURM_REST_URL
dialect=$TUNEPLANE_SLURM_REST_API_VERSION
user=$TUNEPLANE_SLURM_REST_USER
partition=$TUNEPLANE_SLURM_PARTITION
export SLURM_CONF=$TUNEPLANE_LOCAL_SLURM_CONF
export PATH=$TUNEPLANE_LOCAL_SLURM_PREFIX/bin:$TUNEPLANE_LOCAL_SLURM_PREFIX/sbin:$PATH
neutral=/var/lib/slurm${RELEASE%%.*}
case $RELEASE in
  24.11) pings=(v0.0.42 v0.0.41 v0.0.40) ;;
  23.11) pings=(v0.0.40 v0.0.39 v0.0.38) ;;
  *)
    echo "record.sh: no recording plan for $RELEASE" >&2
    exit 1
    ;;
esac
unserved=v0.0.43

say() { printf 'record: %s\n' "$*"; }
die() {
  printf 'record: %s\n' "$*" >&2
  exit 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jobs_dir=$STATE_DIR/jobs
install -d -m 0755 "$jobs_dir"
mkdir -p "$out"
rm -f "$out"/[0-9][0-9]_*.json "$out"/[0-9][0-9]_*.txt "$out/INDEX.tsv"
printf 'sample\tmethod\turl\thttp_status\n' >"$out/INDEX.tsv"

token=$(sed -n 's/^SLURM_JWT=//p' "$TUNEPLANE_SLURM_JWT_FILE")
[[ -n $token ]] || die "no token in $TUNEPLANE_SLURM_JWT_FILE"
# An expired token, minted by slurmctld with a short life.
expired=$(scontrol token username="$user" lifespan=2 | sed -n 's/^SLURM_JWT=//p')
garbage=garbage.not.a.jwt

shorten() { # like the earlier transcripts: 27 characters ... the last 8
  local t=$1
  if ((${#t} > 40)); then printf '%s...%s' "${t:0:27}" "${t: -8}"; else printf '%s' "$t"; fi
}

rewrite() { # the state directory, plain and with JSON's escaped slashes, to a neutral path
  local from=$STATE_DIR
  FROM=$from TO=$neutral perl -pe 'BEGIN { $f = $ENV{FROM}; $t = $ENV{TO}; ($fe = $f) =~ s{/}{\\/}g; ($te = $t) =~ s{/}{\\/}g }
    s/\Q$f\E/$t/g; s/\Q$fe\E/$te/g'
}

n=0
last_body=$work/last.body
# call NAME METHOD PATH [AUTH [BODY_FILE]]: AUTH is ok (default), expired, garbage or none.
call() {
  local name=$1 method=$2 path=$3 auth=${4:-ok} body=${5:-}
  n=$((n + 1))
  local id
  id=$(printf '%02d_%s' "$n" "$name")
  local url=$base$path hdr=$work/headers args=() t=
  case $auth in
    ok) t=$token ;;
    expired) t=$expired ;;
    garbage) t=$garbage ;;
    none) ;;
    *) die "internal: auth $auth" ;;
  esac
  {
    printf 'Accept: application/json\n'
    if [[ -n $t ]]; then printf 'X-SLURM-USER-NAME: %s\nX-SLURM-USER-TOKEN: %s\n' "$user" "$t"; fi
    if [[ -n $body ]]; then printf 'Content-Type: application/json\n'; fi
  } >"$hdr"
  args=(-s --noproxy '*' --max-time 60 -X "$method" -H @"$hdr" -D "$work/resp.headers" -o "$work/resp.body")
  if [[ -n $body ]]; then args+=(--data-binary @"$body"); fi
  curl "${args[@]}" "$url" || die "$id: curl failed"

  local headers_json
  headers_json=$(jq -n --arg user "$user" --arg tok "$(shorten "$t")" --argjson withtok "$([[ -n $t ]] && echo true || echo false)" \
    --argjson withbody "$([[ -n $body ]] && echo true || echo false)" \
    '{"Accept": "application/json"} + (if $withtok then {"X-SLURM-USER-NAME": $user, "X-SLURM-USER-TOKEN": $tok} else {} end)
       + (if $withbody then {"Content-Type": "application/json"} else {} end)')
  if [[ -n $body ]]; then
    jq -n --arg m "$method" --arg u "$url" --argjson h "$headers_json" --slurpfile b "$body" \
      '{method: $m, url: $u, headers: $h, body: $b[0]}' | rewrite >"$out/$id.request.json"
  else
    jq -n --arg m "$method" --arg u "$url" --argjson h "$headers_json" \
      '{method: $m, url: $u, headers: $h}' >"$out/$id.request.json"
  fi
  local status
  status=$(head -n 1 "$work/resp.headers" | tr -d '\r' | awk '{print $2}')
  {
    printf 'HTTP %s\n' "$status"
    tr -d '\r' <"$work/resp.headers" | grep -i -E '^(Connection|Content-Length|Content-Type):' | sort
  } >"$out/$id.status.txt"
  rewrite <"$work/resp.body" >"$out/$id.response.json"
  cp "$work/resp.body" "$last_body"
  printf '%s\t%s\t%s\t%s\n' "$id" "$method" "$url" "$status" >>"$out/INDEX.tsv"
  say "$id $method $path -> $status"
}

# job_body FILE NAME COMMENT SCRIPT HOLD [PARTITION [CONSTRAINT [ENV(yes|no)]]]
job_body() {
  local file=$1 name=$2 comment=$3 script=$4 hold=$5 part=${6:-$partition} constraint=${7:-h100} with_env=${8:-yes}
  jq -n --arg script "$script" --arg name "$name" --arg comment "$comment" --arg part "$part" \
    --arg cwd "$jobs_dir" --arg constraint "$constraint" --argjson hold "$hold" --arg env "$with_env" '
    {job: ({script: $script, name: $name, comment: $comment, partition: $part}
      + (if $env == "yes" then {environment: ["PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C", "FOO=bar"]} else {} end)
      + {current_working_directory: $cwd, requeue: false, constraints: $constraint, cpus_per_task: 1, tasks: 1,
         minimum_nodes: 1, memory_per_node: {set: true, infinite: false, number: 256},
         time_limit: {set: true, infinite: false, number: 10}, standard_output: ($cwd + "/%x-%j.out")}
      + (if $hold then {hold: true} else {} end))}' >"$file"
}

het_body() {
  jq -n --arg cwd "$jobs_dir" --arg part "$partition" '
    def comp($i; $c): {name: "sample-het", comment: "hetjob component \($i)", partition: $part,
      environment: ["PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C", "COMP=\($i)"],
      current_working_directory: $cwd, requeue: false, constraints: $c, cpus_per_task: 1, tasks: 1,
      minimum_nodes: 1, memory_per_node: {set: true, infinite: false, number: 256},
      time_limit: {set: true, infinite: false, number: 10}};
    {script: "#!/bin/bash\necho \"het leader $SLURM_JOB_ID het_size=$SLURM_HET_SIZE\"\nsleep 120\n",
     jobs: [comp(0; "h100") + {standard_output: ($cwd + "/%x-%j.out")}, comp(1; "emu")]}' >"$1"
}

json_file() { # json_file FILE JSON
  printf '%s\n' "$2" >"$1"
}

job_id_of_last() {
  jq -er '.job_id' "$last_body" || die "the last answer had no job_id: $(head -c 400 "$last_body")"
}

job_state() { # the job's state as scontrol sees it (not recorded)
  # A hetjob's leader lists every component; the line of this id is the one.
  scontrol show job -o "$1" 2>/dev/null | grep "^JobId=$1 " | grep -o 'JobState=[A-Z_]*' | cut -d= -f2 || true
}

wait_state() { # wait_state JOB SECONDS STATE...
  local job=$1 limit=$2 state deadline
  shift 2
  deadline=$((SECONDS + limit))
  while :; do
    state=$(job_state "$job")
    for s in "$@"; do [[ $state == "$s" ]] && return 0; done
    ((SECONDS < deadline)) || die "job $job is $state, not $* after $limit s"
    sleep 0.5
  done
}

wait_dbd_end() { # wait_dbd_end JOB SECONDS: slurmdbd has the job's end
  local job=$1 deadline=$((SECONDS + $2)) end
  while :; do
    end=$(sacct -n -X -P -j "$job" -o End 2>/dev/null | head -n 1)
    [[ -n $end && $end != Unknown ]] && return 0
    ((SECONDS < deadline)) || die "slurmdbd has no end for job $job after $2 s"
    sleep 1
  done
}

sleeper=$'#!/bin/bash\necho "hello from $SLURM_JOB_ID on $(hostname) FOO=$FOO"\nsleep 120\n'
quick=$'#!/bin/bash\necho "quick $SLURM_JOB_ID"\nexit 0\n'
started=$(date +%s)

# --- the served OpenAPI document -----------------------------------------------------
curl -s --noproxy '*' --max-time 60 -H "X-SLURM-USER-NAME: $user" -H @<(printf 'X-SLURM-USER-TOKEN: %s\n' "$token") \
  -o "$work/openapi.json" "$base/openapi/v3"
jq -e .openapi "$work/openapi.json" >/dev/null || die "GET /openapi/v3 did not answer an OpenAPI document"
rewrite <"$work/openapi.json" >"$(dirname "$out")/openapi-$VERSION-served.json"
say "saved openapi-$VERSION-served.json"

# --- pings ---------------------------------------------------------------------------
for v in "${pings[@]}"; do call "ping_$v" GET "/slurm/$v/ping"; done
call "ping_${unserved}_unserved" GET "/slurm/$unserved/ping"

# --- a held job, released ------------------------------------------------------------
job_body "$work/held.json" sample-single "submitted via slurmrestd $dialect" "$sleeper" true
call submit_single_held POST "/slurm/$dialect/job/submit" ok "$work/held.json"
single=$(job_id_of_last)
call get_job_held GET "/slurm/$dialect/job/$single"
json_file "$work/release.json" '{"hold": false}'
call release_job POST "/slurm/$dialect/job/$single" ok "$work/release.json"
wait_state "$single" 60 RUNNING
call get_job_running GET "/slurm/$dialect/job/$single"

# --- a heterogeneous job -------------------------------------------------------------
before_het=$(date +%s)
sleep 1
het_body "$work/het.json"
call submit_hetjob POST "/slurm/$dialect/job/submit" ok "$work/het.json"
leader=$(job_id_of_last)
component=$((leader + 1))
wait_state "$leader" 60 RUNNING
call get_hetjob_leader GET "/slurm/$dialect/job/$leader"
call get_hetjob_component1 GET "/slurm/$dialect/job/$component"

# --- lists ---------------------------------------------------------------------------
call jobs GET "/slurm/$dialect/jobs"
call jobs_update_time GET "/slurm/$dialect/jobs?update_time=$before_het"
sleep 2
call jobs_update_time_now GET "/slurm/$dialect/jobs?update_time=$(date +%s)"
# 23.11 parses a query's time with parse_time() only, which takes no Unix time; the same
# time as the server's local date and time (the colons percent-encoded: a bare one is refused):
call jobs_update_time_iso GET "/slurm/$dialect/jobs?update_time=$(date -d "@$before_het" +%Y-%m-%dT%H%%3A%M%%3A%S)"
call jobs_state_multi GET "/slurm/$dialect/jobs/state?job_id=$single&job_id=$leader&job_id=$component"
call jobs_state_multi_csv GET "/slurm/$dialect/jobs/state?job_id=$single,$leader,$component"
call jobs_state GET "/slurm/$dialect/jobs/state"
call jobs_state_unknown GET "/slurm/$dialect/jobs/state?job_id=999999"
call get_unknown_job_id GET "/slurm/$dialect/job/999999"

# --- cancelling ----------------------------------------------------------------------
call delete_job DELETE "/slurm/$dialect/job/$single"
wait_state "$single" 30 CANCELLED
call get_job_after_cancel GET "/slurm/$dialect/job/$single"
call delete_job_again DELETE "/slurm/$dialect/job/$single"
call delete_hetjob_leader_sigterm DELETE "/slurm/$dialect/job/$leader?signal=SIGTERM"
wait_state "$leader" 30 FAILED CANCELLED COMPLETED
call get_hetjob_after_sigterm GET "/slurm/$dialect/job/$leader"

job_body "$work/pending.json" sample-pending "held, to be signalled" "$sleeper" true
call submit_single_held_to_signal POST "/slurm/$dialect/job/submit" ok "$work/pending.json"
pending=$(job_id_of_last)
call delete_pending_job_sigusr1 DELETE "/slurm/$dialect/job/$pending?signal=SIGUSR1"
call delete_pending_job DELETE "/slurm/$dialect/job/$pending"
call delete_unknown_job_id DELETE "/slurm/$dialect/job/999999"

# --- a job that ends by itself; updates --------------------------------------------
job_body "$work/quick.json" sample-finished "ends at once" "$quick" false
call submit_single_quick POST "/slurm/$dialect/job/submit" ok "$work/quick.json"
finished=$(job_id_of_last)
wait_state "$finished" 60 COMPLETED
call get_job_finished GET "/slurm/$dialect/job/$finished"
call update_finished_job POST "/slurm/$dialect/job/$finished" ok "$work/release.json"
call update_unknown_job POST "/slurm/$dialect/job/999999" ok "$work/release.json"

# --- the rest of what the client reads -----------------------------------------------
call diag GET "/slurm/$dialect/diag"
call partitions GET "/slurm/$dialect/partitions"
wait_dbd_end "$finished" 60
wait_dbd_end "$single" 60
call slurmdb_jobs_finished GET "/slurmdb/$dialect/jobs?job_name=sample-finished&start_time=$started"
call slurmdb_jobs_cancelled GET "/slurmdb/$dialect/jobs?job_name=sample-single&start_time=$started"
call slurmdb_jobs_finished_iso GET "/slurmdb/$dialect/jobs?job_name=sample-finished&start_time=$(date -d "@$started" +%Y-%m-%dT%H%%3A%M%%3A%S)"
call slurmdb_jobs_finished_date GET "/slurmdb/$dialect/jobs?job_name=sample-finished&start_time=$(date -d "@$started" +%Y-%m-%d)"

# --- errors ----------------------------------------------------------------------------
call auth_expired_token_jobs GET "/slurm/$dialect/jobs" expired
call auth_garbage_token_jobs GET "/slurm/$dialect/jobs" garbage
call auth_expired_token_ping GET "/slurm/$dialect/ping" expired
call auth_garbage_token_ping GET "/slurm/$dialect/ping" garbage
call auth_no_token_headers GET "/slurm/$dialect/ping" none
job_body "$work/badauth.json" sample-badauth "bad token" "$sleeper" false
call auth_garbage_token_submit POST "/slurm/$dialect/job/submit" garbage "$work/badauth.json"
call auth_expired_token_submit POST "/slurm/$dialect/job/submit" expired "$work/badauth.json"
job_body "$work/badpart.json" sample-badpartition "no such partition" "$sleeper" false nosuchpartition
call submit_invalid_partition POST "/slurm/$dialect/job/submit" ok "$work/badpart.json"
job_body "$work/badfeat.json" sample-badconstraint "no such feature" "$sleeper" false "$partition" nosuchfeature
call submit_invalid_constraint POST "/slurm/$dialect/job/submit" ok "$work/badfeat.json"
job_body "$work/noenv.json" sample-noenv "no environment" "$quick" false "$partition" h100 no
call submit_no_environment POST "/slurm/$dialect/job/submit" ok "$work/noenv.json"
if noenv=$(jq -e '.job_id // empty' "$last_body" 2>/dev/null) && [[ -n $noenv ]]; then
  scancel "$noenv" 2>/dev/null || true
fi

say "recorded $n transcripts into $out"
