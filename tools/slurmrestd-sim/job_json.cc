// What the job record writers of every dialect share (see job_json.h); the writers are
// job_json_v4x.cc and job_json_v38.cc.
#include "job_json.h"

#include "array_spec.h"

namespace tpslurm::sim {

std::string het_job_id_set(const JobRecord& job) {
  if (!job.is_het()) return "";
  return std::to_string(job.het_job_id) + "-" + std::to_string(job.het_job_id + job.het_size - 1);
}

void write_tres_strings(JsonWriter& out, const JobRecord& job, std::uint64_t def_mem) {
  out.str_field("tres_bind", "");
  out.str_field("tres_freq", "");
  out.str_field("tres_per_job", "");
  out.str_field("tres_per_node", job.tres_per_node);
  out.str_field("tres_per_socket", "");
  out.str_field("tres_per_task", "");
  out.str_field("tres_req_str", job.tres_string(def_mem));
  out.str_field("tres_alloc_str", job.allocated ? job.tres_string(def_mem) : "");
}

std::string batch_host(const JobRecord& job) {
  if (!job.allocated) return "";
  std::vector<std::string> nodes = split_csv(job.nodes);
  return nodes.empty() ? "" : nodes.front();
}

std::string job_array_task_string(const JobRecord& job) {
  return job.is_array_meta() ? array_task_string(job.array_pending, job.array_max_tasks) : "";
}

}  // namespace tpslurm::sim
