// Feeder: journals new jobs (`tuneplane-slurm submit`, which works whether or not the daemon is
// up) from `threads` threads until `target` jobs are in or stop() is called, paced evenly over
// `spread` (job n is not submitted before start + n * spread / target; as fast as it can when the
// submits are slower than that). Job ids are "soak-000001" on. A submit that fails is counted and not retried (the id
// is skipped). Thread-safe: the counters may be read while it runs; stop() joins the threads.
#pragma once

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "daemon.h"

namespace tpslurm::soak {

class Feeder {
 public:
  Feeder(const Deployment& deployment, int target, int threads, std::chrono::milliseconds spread);
  ~Feeder() { stop(); }
  void stop();

  int submitted() const { return m_submitted.load(); }
  int failed() const { return m_failed.load(); }
  bool done() const { return m_next.load() >= m_target; }

 private:
  void loop();

  const Deployment& m_deployment;
  const int m_target;
  const std::chrono::milliseconds m_spread;
  const std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
  std::atomic<int> m_next{0};
  std::atomic<int> m_submitted{0};
  std::atomic<int> m_failed{0};
  std::atomic<bool> m_stop{false};
  std::vector<std::thread> m_threads;
};

}  // namespace tpslurm::soak
