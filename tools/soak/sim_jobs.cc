#include "sim_jobs.h"

namespace tpslurm::soak {

Result<std::vector<SimJob>> fetch_sim_jobs(Sim& sim) {
  auto archive = sim.control(slurm::HttpMethod::get, "/sim/archive");
  if (!archive.ok()) return archive.error();
  std::vector<SimJob> jobs;
  try {
    for (const auto& value : archive->as_object().at("jobs").as_array()) {
      const auto& o = value.as_object();
      SimJob job;
      job.id = o.at("job_id").to_number<std::int64_t>();
      job.name = std::string(o.at("name").as_string());
      job.comment = std::string(o.at("comment").as_string());
      job.workdir = std::string(o.at("current_working_directory").as_string());
      job.standard_output = std::string(o.at("standard_output").as_string());
      job.state = std::string(o.at("state").as_string());
      // Given nodes: it ran. Not its start time, which Slurm (and the simulator) sets for a job
      // that ends without starting, too.
      job.started = o.at("allocated").as_bool();
      job.held = o.at("hold").as_bool();
      job.in_controller = o.at("in_controller").as_bool();
      jobs.push_back(std::move(job));
    }
  } catch (const std::exception& e) {
    return permanent(std::string("GET /sim/archive: unexpected answer (") + e.what() + ")");
  }
  return jobs;
}

}  // namespace tpslurm::soak
