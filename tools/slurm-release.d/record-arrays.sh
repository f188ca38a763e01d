# shellcheck shell=bash
# tools/slurm-release.d/record-arrays.sh OUT_DIR: records, against a running cluster with
# accounting (tools/local-slurm's 22.05, or one of tools/slurm-release), what a job array does
# through slurmrestd in the cluster's newest dialect, as transcripts in OUT_DIR (the layout of
# record-lib.sh): a held array submitted with a limit on the tasks running at once, its pending
# record, one pending task read and cancelled alone, the array released, its tasks split off as
# they start, the listing, one running task cancelled alone by `ARRAY_TASK` and one by its own
# id (by `ARRAY_TASK` after all where the release refuses that), and slurmdbd's records of the
# tasks. Needs RELEASE, VERSION, STATE_DIR and ENV_FILE as
# record.sh does; for the local 22.05:
#   env RELEASE=22.05 VERSION=22.05.8 STATE_DIR=DIR ENV_FILE=<(tools/local-slurm env --state-dir DIR) \
#     bash tools/slurm-release.d/record-arrays.sh OUT_DIR
# Takes about a minute; answers as served, paths rewritten as record.sh rewrites them.
set -euo pipefail
shopt -s inherit_errexit

out=${1:?usage: record-arrays.sh OUT_DIR}
# shellcheck source=tools/slurm-release.d/record-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/record-lib.sh"

# array_body FILE NAME ARRAY HOLD SCRIPT: one array in the dialect's submit shape.
array_body() {
  local file=$1 name=$2 array=$3 hold=$4 script=$5
  if [[ $dialect == v0.0.38 ]]; then
    jq -n --arg script "$script" --arg name "$name" --arg part "$partition" --arg cwd "$jobs_dir" \
      --arg array "$array" --argjson hold "$hold" '
      {script: $script, job: ({name: $name, comment: "array sample", partition: $part, array: $array,
        current_working_directory: $cwd, environment: {PATH: "/usr/local/bin:/usr/bin:/bin"},
        requeue: false, cpus_per_task: 1, tasks: 1, minimum_nodes: 1, memory_per_node: 64,
        time_limit: 10, standard_output: ($cwd + "/%x-%A_%a.out")} + (if $hold then {hold: true} else {} end))}' >"$file"
  else
    jq -n --arg script "$script" --arg name "$name" --arg part "$partition" --arg cwd "$jobs_dir" \
      --arg array "$array" --argjson hold "$hold" '
      {job: ({script: $script, name: $name, comment: "array sample", partition: $part, array: $array,
        current_working_directory: $cwd, environment: ["PATH=/usr/local/bin:/usr/bin:/bin"],
        requeue: false, cpus_per_task: 1, tasks: 1, minimum_nodes: 1,
        memory_per_node: {set: true, infinite: false, number: 64},
        time_limit: {set: true, infinite: false, number: 10}, standard_output: ($cwd + "/%x-%A_%a.out")}
        + (if $hold then {hold: true} else {} end))}' >"$file"
  fi
}

# task_job_id MASTER TASK: the job id slurmctld gave the task once it started (scontrol).
task_job_id() {
  scontrol show job -o "$1_$2" 2>/dev/null | grep -o '^JobId=[0-9]*' | cut -d= -f2 || true
}

wait_task_running() { # wait_task_running MASTER TASK SECONDS
  local deadline=$((SECONDS + $3)) id
  while :; do
    id=$(task_job_id "$1" "$2")
    if [[ -n $id && $(job_state "$id") == RUNNING ]]; then return 0; fi
    ((SECONDS < deadline)) || die "task $1_$2 is not running after $3 s"
    sleep 0.5
  done
}

sleeper=$'#!/bin/bash\necho "task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_JOB_ID is job $SLURM_JOB_ID"\nsleep 60\n'
started=$(date +%s)

# --- a held array of five tasks, at most two running -----------------------------------
array_body "$work/array.json" sample-array "0-4%2" true "$sleeper"
call submit_array_held POST "/slurm/$dialect/job/submit" ok "$work/array.json"
master=$(job_id_of_last)
call get_array_held GET "/slurm/$dialect/job/$master"
call get_array_pending_task GET "/slurm/$dialect/job/${master}_3"
call delete_array_pending_task DELETE "/slurm/$dialect/job/${master}_4"
call get_array_after_pending_task_cancel GET "/slurm/$dialect/job/$master"

# --- released: the tasks split off as they start ----------------------------------------
json_file "$work/release.json" '{"hold": false}'
call release_array POST "/slurm/$dialect/job/$master" ok "$work/release.json"
wait_task_running "$master" 0 60
wait_task_running "$master" 1 60
call get_array_running GET "/slurm/$dialect/job/$master"
call get_array_running_task GET "/slurm/$dialect/job/${master}_1"
task0=$(task_job_id "$master" 0)
call get_array_task_by_own_id GET "/slurm/$dialect/job/$task0"
call jobs_with_array GET "/slurm/$dialect/jobs"

# --- one running task cancelled alone, by ARRAY_TASK, then one by its own id ------------
call delete_array_running_task DELETE "/slurm/$dialect/job/${master}_1"
wait_state "$(task_job_id "$master" 1)" 30 CANCELLED
call delete_array_task_by_own_id DELETE "/slurm/$dialect/job/$task0"
sleep 2
if [[ $(job_state "$task0") != CANCELLED ]]; then
  # 22.05 refuses a task's own id (2017, "Invalid job id specified"): by ARRAY_TASK then.
  call delete_array_task_refused_by_own_id DELETE "/slurm/$dialect/job/${master}_0"
fi
wait_state "$task0" 30 CANCELLED
wait_task_running "$master" 2 60
call get_array_after_running_task_cancels GET "/slurm/$dialect/job/$master"

# --- the rest cancelled with the master id; slurmdbd's records ---------------------------
call delete_array DELETE "/slurm/$dialect/job/$master"
wait_state "$master" 30 CANCELLED
wait_dbd_end "$master" 60
# A time as the server's local date and time (the colons percent-encoded): every release parses
# it; 22.05 refuses a Unix time here (9000, "Unable to parse time format").
call slurmdb_jobs_array GET "/slurmdb/$dialect/jobs?job_name=sample-array&start_time=$(date -d "@$started" +%Y-%m-%dT%H%%3A%M%%3A%S)"
call slurmdb_job_array_master GET "/slurmdb/$dialect/job/$master"

say "recorded $n transcripts into $out"
