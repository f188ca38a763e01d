#include "journal/row_readers.h"

namespace tpslurm::journal {
namespace {

std::string text(SQLite::Statement& row, int column) {
  return row.getColumn(column).isNull() ? std::string() : row.getColumn(column).getString();
}

template <class T>
std::optional<T> optional_number(SQLite::Statement& row, int column) {
  if (row.getColumn(column).isNull()) return std::nullopt;
  return static_cast<T>(row.getColumn(column).getInt64());
}

}  // namespace

const std::string_view kJobColumns =
    "SELECT job_id, request_json, request_sha256, credential_path, credential_hmac, max_attempts, desire, "
    "desire_reason, phase, current_attempt, version, created_at, updated_at, cancel_grace_seconds, platform_user, "
    "unix_user, default_account FROM jobs";

const std::string_view kAttemptColumns =
    "SELECT job_id, number, submit_token, state, input_sha256, attempt_dir, script_sha256, env_sha256, "
    "manifest_sha256, intent_at, slurm_job_id, sluid, het_job_id, components, server_release, dialect, receipt, "
    "slurm_state, slurm_reason, exit_code, exit_signal, failure_phase, outcome_reason, found_by, cleanup, "
    "logs_sha256, version, created_at, updated_at, submit_mode, identified_at, released_at, searched_at, "
    "complete_search_at, search_report, observed_at, signalled_at, cleanup_at, search_elapsed_s, "
    "complete_search_elapsed_s, tag_name, tag_workdir, usage, "
    "(SELECT unix_user FROM jobs WHERE jobs.job_id = attempts.job_id) "
    "FROM attempts";

JobRecord read_job_row(SQLite::Statement& row) {
  JobRecord job;
  job.job_id = text(row, 0);
  job.request_json = text(row, 1);
  job.request_sha256 = text(row, 2);
  job.credential_path = text(row, 3);
  job.credential_hmac = text(row, 4);
  job.max_attempts = row.getColumn(5).getInt();
  // The CHECK constraints guarantee these parse.
  job.desire = model::parse_desire(text(row, 6)).value_or(model::Desire::run);
  job.desire_reason = text(row, 7);
  job.phase = model::parse_job_phase(text(row, 8)).value_or(model::JobPhase::queued);
  job.current_attempt = optional_number<int>(row, 9);
  job.version = row.getColumn(10).getInt64();
  job.created_at = text(row, 11);
  job.updated_at = text(row, 12);
  job.cancel_grace_seconds = optional_number<int>(row, 13);
  job.platform_user = text(row, 14);
  job.unix_user = text(row, 15);
  job.default_account = text(row, 16);
  return job;
}

AttemptRecord read_attempt_row(SQLite::Statement& row) {
  AttemptRecord a;
  a.job_id = text(row, 0);
  a.number = row.getColumn(1).getInt();
  a.submit_token = text(row, 2);
  a.state = model::parse_attempt_state(text(row, 3)).value_or(model::AttemptState::preparing);
  a.input_sha256 = text(row, 4);
  a.attempt_dir = text(row, 5);
  a.script_sha256 = text(row, 6);
  a.env_sha256 = text(row, 7);
  a.manifest_sha256 = text(row, 8);
  a.intent_at = text(row, 9);
  a.slurm_job_id = optional_number<std::uint32_t>(row, 10);
  a.sluid = text(row, 11);
  a.het_job_id = optional_number<std::uint32_t>(row, 12);
  a.components = text(row, 13);
  a.server_release = text(row, 14);
  a.dialect = text(row, 15);
  a.receipt = text(row, 16);
  a.slurm_state = text(row, 17);
  a.slurm_reason = text(row, 18);
  a.exit_code = optional_number<int>(row, 19);
  a.exit_signal = optional_number<int>(row, 20);
  a.failure_phase = text(row, 21);
  a.outcome_reason = text(row, 22);
  a.found_by = text(row, 23);
  a.cleanup = model::parse_cleanup_step(text(row, 24)).value_or(model::CleanupStep::none);
  a.logs_sha256 = text(row, 25);
  a.version = row.getColumn(26).getInt64();
  a.created_at = text(row, 27);
  a.updated_at = text(row, 28);
  a.submit_mode = text(row, 29);
  a.identified_at = text(row, 30);
  a.released_at = text(row, 31);
  a.searched_at = text(row, 32);
  a.complete_search_at = text(row, 33);
  a.search_report = text(row, 34);
  a.observed_at = text(row, 35);
  a.signalled_at = text(row, 36);
  a.cleanup_at = text(row, 37);
  a.search_elapsed_s = optional_number<std::int64_t>(row, 38);
  a.complete_search_elapsed_s = optional_number<std::int64_t>(row, 39);
  a.tag_name = text(row, 40);
  a.tag_workdir = text(row, 41);
  a.usage = text(row, 42);
  a.unix_user = text(row, 43);
  return a;
}

TimelineEntry read_timeline_row(SQLite::Statement& row) {
  TimelineEntry e;
  e.seq = row.getColumn(0).getInt64();
  e.at = text(row, 1);
  e.job_id = text(row, 2);
  e.request_sha256 = text(row, 3);
  e.attempt = optional_number<int>(row, 4);
  e.submit_token = text(row, 5);
  e.kind = text(row, 6);
  e.from_state = text(row, 7);
  e.to_state = text(row, 8);
  e.reason = text(row, 9);
  e.slurm_job_id = optional_number<std::int64_t>(row, 10);
  e.sluid = text(row, 11);
  e.detail = text(row, 12);
  e.user = text(row, 13);
  e.unix_user = text(row, 14);
  return e;
}

BlockedEntry read_blocked_row(SQLite::Statement& row) {
  return {text(row, 0),
          row.getColumn(1).getInt(),
          text(row, 2),
          text(row, 3),
          text(row, 4),
          text(row, 5),
          text(row, 6),
          text(row, 7),
          text(row, 8),
          text(row, 9),
          optional_number<std::int64_t>(row, 10),
          optional_number<std::int64_t>(row, 11)};
}

CleanupEntry read_cleanup_row(SQLite::Statement& row) {
  return {text(row, 0),
          row.getColumn(1).getInt(),
          text(row, 2),
          text(row, 3),
          optional_number<std::int64_t>(row, 4),
          text(row, 5),
          text(row, 6)};
}

AttemptUpdate::AttemptUpdate(StatementCache& statements, const AttemptChanges& c) : m_statements(statements) {
  const auto text_column = [this](const char* column, const std::optional<std::string>& value) {
    if (value) m_assignments.push_back({column, *value, std::nullopt});
  };
  const auto number_column = [this](const char* column, auto value) {
    if (value) m_assignments.push_back({column, std::nullopt, static_cast<std::int64_t>(*value)});
  };
  text_column("attempt_dir", c.attempt_dir);
  text_column("script_sha256", c.script_sha256);
  text_column("env_sha256", c.env_sha256);
  text_column("manifest_sha256", c.manifest_sha256);
  number_column("slurm_job_id", c.slurm_job_id);
  text_column("sluid", c.sluid);
  number_column("het_job_id", c.het_job_id);
  text_column("components", c.components);
  text_column("server_release", c.server_release);
  text_column("dialect", c.dialect);
  text_column("receipt", c.receipt);
  text_column("slurm_state", c.slurm_state);
  text_column("slurm_reason", c.slurm_reason);
  number_column("exit_code", c.exit_code);
  number_column("exit_signal", c.exit_signal);
  text_column("failure_phase", c.failure_phase);
  text_column("outcome_reason", c.outcome_reason);
  text_column("found_by", c.found_by);
  text_column("submit_mode", c.submit_mode);
  text_column("tag_name", c.tag_name);
  text_column("tag_workdir", c.tag_workdir);
  text_column("usage", c.usage);
  text_column("search_report", c.search_report);
  if (c.search_report) number_column("search_elapsed_s", c.search_elapsed_s);
  if (c.search_report && c.search_complete) number_column("complete_search_elapsed_s", c.search_elapsed_s);
}

void AttemptUpdate::set(std::string column, std::string value) {
  m_assignments.push_back({std::move(column), std::move(value), std::nullopt});
}

int AttemptUpdate::execute(const AttemptKey& key, model::AttemptState from) {
  // Column names come from this file only, never from input.
  std::string sql = "UPDATE attempts SET version = version + 1";
  for (const auto& assignment : m_assignments) sql += ", " + assignment.column + " = ?";
  sql += " WHERE job_id = ? AND number = ? AND state = ?";
  StatementCache::Use update = m_statements.use(sql);
  int index = 1;
  for (const auto& assignment : m_assignments) {
    if (assignment.text) {
      update->bind(index++, *assignment.text);
    } else {
      update->bind(index++, *assignment.number);
    }
  }
  update->bind(index++, key.job_id);
  update->bind(index++, key.number);
  update->bind(index, std::string(model::to_string(from)));
  return update->exec();
}

}  // namespace tpslurm::journal
