// eventually(): waits, in real time and bounded, until a condition holds — for tests that
// watch a real process (the daemon, a server) reach a state. Polls every 50 ms; returns
// whether the condition held, checking it one last time at the limit.
#pragma once

#include <chrono>
#include <thread>

namespace tpslurm::testing {

template <class Done>
bool eventually(Done done, std::chrono::seconds limit = std::chrono::seconds(20)) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

}  // namespace tpslurm::testing
