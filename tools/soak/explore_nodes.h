// Nodes: what the simulator's nodes leave out and a real node does. When a job starts, Slurm
// opens its standard output (the attempt's logs/batch.out) before the script runs; when the
// script ends normally its last act writes logs/exit.json ({"exit_status": 0, ...}). The daemon
// reads an attempt's logs/ as proof that a copy started (`resolve --absent` is refused then, and
// a forgotten held job with an empty logs/ is retried) and exit.json as the end of a job Slurm
// forgot, so without this a forgotten job that ran would look as if it never had, and one that
// ended would have no end. touch_started() does both for every job that started or completed
// since the last call (each once; a job that starts and is forgotten between two calls is
// missed). An exit.json already there (a planted FIFO) is left alone; nothing follows a link.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "sim_jobs.h"

namespace tpslurm::soak {

class Nodes {
 public:
  // How many output files it created now.
  int touch_started(const std::vector<SimJob>& jobs);

 private:
  std::set<std::pair<std::int64_t, std::string>> m_started;  // (id, name): ids can be given out again
  std::set<std::pair<std::int64_t, std::string>> m_ended;
};

}  // namespace tpslurm::soak
