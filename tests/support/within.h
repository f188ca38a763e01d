// within(): runs a call on a thread of its own and waits for it at most `limit`: a call that
// blocks (on a FIFO, on a lock) fails the test instead of hanging it. The blocked thread is
// left behind, never joined.
#pragma once

#include <chrono>
#include <future>
#include <optional>

namespace tpslurm::testing {

template <class Call>
auto within(std::chrono::seconds limit, Call call) -> std::optional<decltype(call())> {
  auto future = std::async(std::launch::async, std::move(call));
  if (future.wait_for(limit) != std::future_status::ready) {
    new auto(std::move(future));  // its destructor would wait for the blocked thread
    return std::nullopt;
  }
  return future.get();
}

}  // namespace tpslurm::testing
