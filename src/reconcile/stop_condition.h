// StopCondition: a condition that stops submitting for every job — the journal or the storage
// root cannot be written — logged once when it starts and once when it clears, not per pass.
//
// Passes run side by side and their results reach the controller in no particular order, so
// a result must not undo what a later one established: a pass that began before the condition
// last changed cannot tell whether what it saw came before or after that change, and changes
// nothing. A failure seen by a pass that began after the last change starts the condition; a
// success of one that began after the condition started clears it. Used on the controller's
// event loop only: not thread-safe.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "base/result.h"

namespace tpslurm::reconcile {

class StopCondition {
 public:
  using Time = std::chrono::steady_clock::time_point;

  // `name`: what cannot be done, e.g. "the journal cannot be written".
  explicit StopCondition(std::string name) : m_name(std::move(name)) {}

  // A pass (or probe) that began at `since` failed with `error`; `now` is the time it is told.
  void fail(const Error& error, Time since, Time now);
  // A pass (or probe) that began at `since` succeeded.
  void succeed(Time since, Time now);

  bool active() const { return m_active.has_value(); }

 private:
  std::string m_name;
  std::optional<std::string> m_active;
  Time m_changed{};  // when it last started or cleared
};

}  // namespace tpslurm::reconcile
