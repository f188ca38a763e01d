#include "explore_nodes.h"

#include <fcntl.h>
#include <unistd.h>

namespace tpslurm::soak {

int Nodes::touch_started(const std::vector<SimJob>& jobs) {
  int created = 0;
  for (const auto& job : jobs) {
    if (!job.started || job.standard_output.empty() || job.standard_output.front() != '/') continue;
    if (m_started.insert({job.id, job.name}).second) {
      // O_NOFOLLOW|O_NONBLOCK: a link or FIFO planted there is not followed or waited on.
      const int fd =
          ::open(job.standard_output.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK, 0660);
      if (fd >= 0) {
        ::close(fd);
        ++created;
      }
    }
    if (job.state != "COMPLETED" || !m_ended.insert({job.id, job.name}).second) continue;
    // Written beside it and linked into place: a reader never sees half of it, and an exit.json
    // already there (a planted FIFO) stays.
    const std::string exit_json = job.workdir + "/logs/exit.json";
    const std::string temporary = exit_json + ".explore";
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK, 0660);
    if (fd < 0) continue;
    static constexpr char kNormalEnd[] = "{\"exit_status\": 0, \"failed_phase\": null}\n";
    bool written = ::write(fd, kNormalEnd, sizeof kNormalEnd - 1) == static_cast<ssize_t>(sizeof kNormalEnd - 1);
    ::close(fd);
    written = written && ::link(temporary.c_str(), exit_json.c_str()) == 0;
    ::unlink(temporary.c_str());
    created += written ? 1 : 0;
  }
  return created;
}

}  // namespace tpslurm::soak
