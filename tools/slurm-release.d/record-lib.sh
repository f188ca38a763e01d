# shellcheck shell=bash
# tools/slurm-release.d/record-lib.sh: what the recording plans (record.sh, record-arrays.sh)
# share. Sourced with `out` (the output directory) set and RELEASE, VERSION, STATE_DIR and
# ENV_FILE (tools/local-slurm env) in the environment; it empties `out` of earlier transcripts
# and defines call NAME METHOD PATH [AUTH [BODY_FILE]], which writes one transcript:
#   NN_name.request.json   {method, url, headers (token shortened), body}
#   NN_name.response.json  the body exactly as served, local paths rewritten
#   NN_name.status.txt     "HTTP NNN" and the Connection/Content-Length/Content-Type headers
#   INDEX.tsv              sample, method, url, http_status
# and the helpers the plans submit and wait with.
set -euo pipefail
shopt -s inherit_errexit

: "${RELEASE:?}" "${VERSION:?}" "${STATE_DIR:?}" "${ENV_FILE:?}"
# shellcheck disable=SC1090
. "$ENV_FILE"
base=$TUNEPLANE_SLURM_REST_URL
dialect=$TUNEPLANE_SLURM_REST_API_VERSION
user=$TUNEPLANE_SLURM_REST_USER
partition=$TUNEPLANE_SLURM_PARTITION
export SLURM_CONF=$TUNEPLANE_LOCAL_SLURM_CONF
if [[ -n ${TUNEPLANE_LOCAL_SLURM_PREFIX:-} ]]; then export PATH=$TUNEPLANE_LOCAL_SLURM_PREFIX/bin:$TUNEPLANE_LOCAL_SLURM_PREFIX/sbin:$PATH; fi
neutral=/var/lib/slurm${RELEASE%%.*}


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
