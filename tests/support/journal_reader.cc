#include "support/journal_reader.h"

#include "base/clock.h"

namespace tpslurm::testing {

std::unique_ptr<journal::Journal> open_read_only(const std::string& path) {
  static const SystemClock clock;
  journal::OpenOptions options;
  options.mode = journal::OpenOptions::Mode::read_only;
  auto journal = journal::Journal::open(path, clock, options);
  return journal.ok() ? std::move(*journal) : nullptr;
}

std::vector<journal::AttemptRecord> journaled_attempts(const std::string& path, const std::string& job_id) {
  auto journal = open_read_only(path);
  if (!journal) return {};
  auto attempts = journal->attempts(job_id);
  return attempts.ok() ? std::move(*attempts) : std::vector<journal::AttemptRecord>{};
}

std::optional<journal::AttemptRecord> first_attempt(const std::string& path, const std::string& job_id) {
  auto attempts = journaled_attempts(path, job_id);
  if (attempts.empty()) return std::nullopt;
  return std::move(attempts.front());
}

}  // namespace tpslurm::testing
