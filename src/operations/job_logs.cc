#include "operations/job_logs.h"

#include "storage/layout.h"

namespace tpslurm::operations {
namespace {

namespace json = boost::json;

std::string_view state_name(storage::LogFileState state) {
  switch (state) {
    case storage::LogFileState::present: return "present";
    case storage::LogFileState::empty: return "empty";
    case storage::LogFileState::missing: return "missing";
  }
  return "missing";
}

json::value optional_number(const std::optional<std::uint64_t>& n) {
  return n ? json::value(*n) : json::value(nullptr);
}

json::object file_json(const storage::AttemptLogFile& file) {
  json::object out{{"name", file.name},
                   {"component", file.component},
                   {"stream", storage::to_string(file.stream)},
                   {"path", file.path}};
  if (!file.content.ok()) {
    out["state"] = "unreadable";
    out["error"] = file.content.error().message();
    return out;
  }
  const storage::LogTail& log = *file.content;
  out["state"] = state_name(log.state);
  out["size"] = log.file_size;
  out["begin"] = log.begin;
  out["end"] = log.end;
  out["next_offset"] = log.next_offset;
  out["bytes_before"] = log.bytes_before;
  out["lines_before"] = optional_number(log.lines_before);
  out["bytes_after"] = log.bytes_after;
  out["lines_after"] = optional_number(log.lines_after);
  out["starts_mid_line"] = log.starts_mid_line;
  out["ends_mid_line"] = log.ends_mid_line;
  out["partial_line_held"] = log.partial_line_held;
  out["text"] = storage::valid_utf8(log.text);  // JSON must be UTF-8: invalid bytes become U+FFFD
  return out;
}

std::string numbers(const std::vector<journal::AttemptRecord>& attempts) {
  std::string out;
  for (const auto& a : attempts) out += (out.empty() ? "" : ", ") + std::to_string(a.number);
  return out;
}

Result<const journal::AttemptRecord*> pick_attempt(const std::vector<journal::AttemptRecord>& attempts,
                                                   const LogsQuery& query) {
  if (!query.attempt) return attempts.empty() ? nullptr : &attempts.back();
  for (const auto& a : attempts) {
    if (a.number == *query.attempt) return &a;
  }
  const std::string missing = "job " + query.job_id + " has no attempt " + std::to_string(*query.attempt);
  if (attempts.empty()) return not_found(missing + ": it has no attempts yet");
  return not_found(missing + "; its attempts are " + numbers(attempts) + " (without --attempt: the newest, " +
                   std::to_string(attempts.back().number) + ")");
}

}  // namespace

std::string logs_subject(const LogsQuery& query, const journal::AttemptRecord& attempt) {
  return "job " + query.job_id + " attempt " + std::to_string(attempt.number);
}

Result<JobLogs> read_job_logs(journal::Journal& journal, std::string_view storage_root, const LogsQuery& query) {
  auto job = journal.job(query.job_id);
  if (!job.ok()) return job.error();
  if (!job->has_value()) return not_found("no job " + query.job_id + " in " + journal.path());
  auto attempts = journal.attempts(query.job_id);
  if (!attempts.ok()) return attempts.error();
  auto picked = pick_attempt(*attempts, query);
  if (!picked.ok()) return picked.error();
  JobLogs logs;
  logs.phase = (*job)->phase;
  if (*picked == nullptr) return logs;
  const journal::AttemptRecord& attempt = **picked;
  logs.attempt = attempt;
  logs.dir = storage::recorded_attempt_dir(attempt.attempt_dir, storage_root, query.job_id, attempt.number);
  storage::LogSelection selection;
  selection.component = query.component;
  selection.stream = query.stream;
  selection.offset = query.offset;
  selection.growing = model::is_final(attempt.state) ? storage::Growing::no : storage::Growing::yes;
  auto files = storage::read_attempt_logs(logs.dir, selection);
  if (!files.ok()) {
    if (files.error().kind() != ErrorKind::not_found) return files.error().with_context(logs_subject(query, attempt));
    logs.no_directory = files.error();
    return logs;
  }
  logs.files = std::move(*files);
  return logs;
}

json::object logs_json(const LogsQuery& query, const JobLogs& logs) {
  json::object report{{"job_id", query.job_id}};
  if (!logs.attempt) {
    report["attempt"] = nullptr;
    report["logs"] = json::array();
    return report;
  }
  report["attempt"] = logs.attempt->number;
  report["attempt_state"] = model::to_string(logs.attempt->state);
  report["attempt_dir"] = logs.dir;
  report["directory_written"] = !logs.no_directory.has_value();
  json::array list;
  for (const auto& file : logs.files) list.push_back(file_json(file));
  report["logs"] = std::move(list);
  return report;
}

}  // namespace tpslurm::operations
