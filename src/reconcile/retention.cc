#include "reconcile/retention.h"

#include "base/duration.h"
#include "config/logging.h"
#include "reconcile/journal_writer.h"
#include "reconcile/step.h"
#include "storage/attempt_tree.h"

namespace tpslurm::reconcile {
RetentionReport run_retention(Services& services) {
  RetentionReport report;
  const auto keep = services.settings.attempt_retention;
  if (keep.count() == 0) return report;
  auto attempts = services.journal.read().all_attempts();
  if (!attempts.ok()) return report;
  const TimePoint now = services.clock.now();
  for (const auto& a : *attempts) {
    if (a.cleanup != model::CleanupStep::closed || a.attempt_dir.empty()) continue;
    // Attempts closed before cleanup_at existed count from their last change.
    const auto closed = parse_utc(a.cleanup_at.empty() ? a.updated_at : a.cleanup_at);
    if (!closed || now - *closed < keep) continue;
    auto removed = storage::remove_attempt_directory(a.attempt_dir);
    if (!removed.ok()) {
      ++report.failed;
      config::log(config::LogLevel::warn, attempt_fields(a), "retention: " + removed.error().message());
      continue;
    }
    if (!*removed) continue;  // already gone
    ++report.removed;
    (void)services.journal.write([&](journal::Journal& j) {
      return j.record_event(a.job_id, a.number, "retention",
                            {{"reason", "attempt directory removed " + format_duration(keep) +
                                            " after its cleanup closed (TUNEPLANE_ATTEMPT_RETENTION)"},
                             {"path", a.attempt_dir}});
    });
  }
  return report;
}

}  // namespace tpslurm::reconcile
