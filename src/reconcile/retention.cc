#include "reconcile/retention.h"

#include <sys/stat.h>

#include <filesystem>

#include "base/duration.h"
#include "config/logging.h"
#include "reconcile/journal_writer.h"
#include "reconcile/step.h"

namespace tpslurm::reconcile {
namespace {

// Sealing made logs/ read-only; the owner may write it again to remove it.
void make_removable(const std::filesystem::path& dir) {
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    if (it->is_directory(error)) ::chmod(it->path().c_str(), 0700);
  }
  ::chmod(dir.c_str(), 0700);
}

}  // namespace

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
    std::error_code error;
    if (!std::filesystem::exists(a.attempt_dir, error)) continue;
    make_removable(a.attempt_dir);
    std::filesystem::remove_all(a.attempt_dir, error);
    if (error) {
      ++report.failed;
      config::log(config::LogLevel::warn, attempt_fields(a),
                  "retention: cannot remove " + a.attempt_dir + ": " + error.message());
      continue;
    }
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
