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
# shellcheck source=tools/slurm-release.d/record-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/record-lib.sh"
case $RELEASE in
  24.11) pings=(v0.0.42 v0.0.41 v0.0.40) ;;
  23.11) pings=(v0.0.40 v0.0.39 v0.0.38) ;;
  *)
    echo "record.sh: no recording plan for $RELEASE" >&2
    exit 1
    ;;
esac
unserved=v0.0.43


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
