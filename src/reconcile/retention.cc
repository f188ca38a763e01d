#include "reconcile/retention.h"

#include <algorithm>

#include "base/duration.h"
#include "config/logging.h"
#include "reconcile/journal_writer.h"
#include "reconcile/step.h"
#include "storage/attempt_removal.h"

namespace tpslurm::reconcile {

void Retention::find_due() {
  const auto keep = m_services.settings.attempt_retention;
  if (keep.count() == 0) return;
  auto attempts = m_services.journal.read().all_attempts();
  if (!attempts.ok()) return;
  const TimePoint now = m_services.clock.now();
  std::lock_guard lock(m_mutex);
  for (const auto& a : *attempts) {
    if (a.cleanup != model::CleanupStep::closed || a.attempt_dir.empty()) continue;
    // Attempts closed before cleanup_at existed count from their last change.
    const auto closed = parse_utc(a.cleanup_at.empty() ? a.updated_at : a.cleanup_at);
    if (!closed || now - *closed < keep) continue;
    const bool queued = std::any_of(m_due.begin(), m_due.end(),
                                    [&](const Due& d) { return d.key.job_id == a.job_id && d.key.number == a.number; });
    if (!queued) m_due.push_back({a.key(), a.attempt_dir});
  }
}

bool Retention::work(std::stop_token stop) {
  Due due;
  {
    std::lock_guard lock(m_mutex);
    if (m_due.empty()) return false;
    due = m_due.front();
  }
  storage::WorkSlice slice(&m_services.clock, {}, std::move(stop));
  auto removed = storage::remove_attempt_directory(due.dir, slice);
  ++due.slices;
  if (removed.ok()) due.found = due.found || removed->found;
  const bool finished = !removed.ok() || removed->done;
  if (!removed.ok()) {
    config::LogFields fields;
    fields.job = due.key.job_id;
    fields.attempt = due.key.number;
    config::log(config::LogLevel::warn, fields, "retention: " + removed.error().message());
  } else if (finished && due.found) {
    finish(due);
  }
  std::lock_guard lock(m_mutex);
  // Only work() takes the front, and one call at a time: it is still `due`.
  if (finished) {
    m_due.pop_front();
  } else {
    m_due.front() = due;
  }
  return !m_due.empty();
}

bool Retention::pending() const {
  std::lock_guard lock(m_mutex);
  return !m_due.empty();
}

void Retention::finish(const Due& due) {
  const auto keep = m_services.settings.attempt_retention;
  journal::EventDetail detail{{"reason", "attempt directory removed " + format_duration(keep) +
                                             " after its cleanup closed (TUNEPLANE_ATTEMPT_RETENTION)"},
                              {"path", due.dir}};
  if (due.slices > 1) detail.emplace_back("slices", std::to_string(due.slices));
  (void)m_services.journal.write(
      [&](journal::Journal& j) { return j.record_event(due.key.job_id, due.key.number, "retention", detail); });
}

}  // namespace tpslurm::reconcile
