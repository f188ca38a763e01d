// Job record writers: one slurmctld job record as each dialect renders it.
//
// v0.0.45/44/43 follow the key order and value shapes of the 26.05.3 transcripts (which
// match the generated OpenAPI documents key for key): NO_VAL structs for numbers,
// `job_state` as an array, verbose exit-code objects, `job_resources: null` until the
// job holds resources, `step_id.sluid` from v0.0.44 on, `power` only before v0.0.45.
// v0.0.38 follows 22.05.8's dump_job_info: plain integers with `null` for NO_VAL fields,
// `job_state` a single word, raw wait statuses in `exit_code`, and no `job_resources`
// key at all before allocation. Stateless functions.
//
// The v0.0.4x writer is job_json_v4x.cc, the v0.0.38 one job_json_v38.cc; job_json.cc holds
// what both use.
#pragma once

#include <cstdint>
#include <string>

#include "cluster.h"
#include "job.h"
#include "json_writer.h"
#include "release.h"

namespace tpslurm::sim {

// {"status": [...], "return_code": {...}, "signal": {"id": {...}, "name": "TERM"}}
void write_exit_code_v4x(JsonWriter& out, std::int32_t wait_status);

void write_job_v4x(JsonWriter& out, const JobRecord& job, Dialect dialect, Release release,
                   const ClusterConfig& cluster);
void write_job_v38(JsonWriter& out, const JobRecord& job, const ClusterConfig& cluster);

// "14-15" for a het job, "" otherwise.
std::string het_job_id_set(const JobRecord& job);

// "tres_bind" .. "tres_alloc_str", in the order both dialects write them (the same in each).
void write_tres_strings(JsonWriter& out, const JobRecord& job, std::uint64_t def_mem_per_cpu_mb);

// The node the batch script runs on: the first allocated node; "" before allocation.
std::string batch_host(const JobRecord& job);

// An array's meta record: its pending tasks as libslurm prints them ("3,5-9%4"); "" otherwise.
std::string job_array_task_string(const JobRecord& job);

}  // namespace tpslurm::sim
