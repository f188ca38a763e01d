#include "feeder.h"

#include <cstdio>
#include <thread>

namespace tpslurm::soak {

Feeder::Feeder(const Deployment& deployment, int target, int threads, std::chrono::milliseconds spread)
    : m_deployment(deployment), m_target(target), m_spread(spread) {
  for (int i = 0; i < threads; ++i) m_threads.emplace_back([this] { loop(); });
}

void Feeder::stop() {
  m_stop = true;
  for (auto& t : m_threads) {
    if (t.joinable()) t.join();
  }
}

void Feeder::loop() {
  while (!m_stop) {
    const int n = m_next.fetch_add(1);
    if (n >= m_target) return;
    const auto due = m_start + m_spread * n / m_target;
    while (!m_stop && std::chrono::steady_clock::now() < due) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (m_stop) return;
    char id[32];
    std::snprintf(id, sizeof id, "soak-%06d", n + 1);
    if (m_deployment.submit(id) == 0) {
      ++m_submitted;
    } else {
      ++m_failed;
    }
  }
}

}  // namespace tpslurm::soak
