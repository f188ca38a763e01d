// Journal::Impl: the journal's connection and the helpers every Journal method shares.
// Internal to journal/; lets the Journal's methods live in more than one file. Callers hold
// `mutex` around every use of `db`.
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "journal/journal.h"
#include "journal/journal_hash_cache.h"
#include "journal/row_readers.h"
#include "journal/statement_cache.h"
#include "journal/write_transaction.h"
#include "model/attempt_sequence.h"

namespace tpslurm::journal {

std::string detail_json(const EventDetail& detail);

// Where a job stands in its sweep, for insert_job.
struct SweepPlace {
  std::string_view sweep_id;
  int index = 0;
};

struct Journal::Impl {
  Impl(std::string path_in, SQLite::Database db_in, const Clock& clock_in)
      : path(std::move(path_in)),
        db(std::move(db_in)),
        clock(clock_in),
        statements(db),
        cache(statements, mutex, path, clock) {}

  std::string now() const { return format_utc(clock.now()); }

  // The time columns AttemptChanges asks to stamp (identified, released, searched).
  void stamp_times(AttemptUpdate& update, const AttemptChanges& changes) const {
    if (changes.identified) update.set("identified_at", now());
    if (changes.released) update.set("released_at", now());
    if (changes.search_report) update.set("searched_at", now());
    if (changes.search_report && changes.search_complete) update.set("complete_search_at", now());
    if (changes.observed) update.set("observed_at", now());
    if (changes.signalled) update.set("signalled_at", now());
  }

  void append_event(std::string_view job_id, std::optional<int> attempt, std::string_view kind,
                    std::optional<std::string_view> from, std::optional<std::string_view> to,
                    const EventDetail& detail) {
    Use insert = prepared(
        "INSERT INTO events (at, job_id, attempt, kind, from_state, to_state, detail) VALUES (?, ?, ?, ?, ?, ?, ?)");
    insert->bind(1, now());
    insert->bind(2, std::string(job_id));
    if (attempt) insert->bind(3, *attempt);
    insert->bind(4, std::string(kind));
    if (from) insert->bind(5, std::string(*from));
    if (to) insert->bind(6, std::string(*to));
    insert->bind(7, detail_json(detail));
    insert->exec();
  }

  // Moves the job's phase inside the caller's transaction.
  Status move_phase(std::string_view job_id, model::JobPhase from, model::JobPhase to, std::string_view reason) {
    if (from == to) return ok_status();
    if (Status legal = model::check_transition(from, to); !legal.ok()) {
      return legal.error().with_context("job " + std::string(job_id));
    }
    Use update = prepared("UPDATE jobs SET phase = ?, updated_at = ? WHERE job_id = ? AND phase = ?");
    update->bind(1, std::string(model::to_string(to)));
    update->bind(2, now());
    update->bind(3, std::string(job_id));
    update->bind(4, std::string(model::to_string(from)));
    if (update->exec() != 1)
      return transient("job " + std::string(job_id) + " is no longer in phase " + std::string(model::to_string(from)) +
                       "; read it again");
    append_event(job_id, std::nullopt, "job.phase", model::to_string(from), model::to_string(to),
                 reason.empty() ? EventDetail{} : EventDetail{{"reason", std::string(reason)}});
    return ok_status();
  }

  // A statement prepared once for the journal's life (statement_cache.h). The caller holds `mutex`.
  using Use = StatementCache::Use;
  Use prepared(const std::string& sql) { return statements.use(sql); }

  std::optional<JobRecord> read_job(std::string_view job_id) {
    Use query = prepared(std::string(kJobColumns) + " WHERE job_id = ?");
    query->bind(1, std::string(job_id));
    if (!query->executeStep()) return std::nullopt;
    return read_job_row(*query);
  }

  // What check_next_attempt needs: the limit, the newest number and the oldest attempt whose
  // cleanup is not closed (there is at most one while the invariants hold).
  model::AttemptHistory history_of(const JobRecord& job) {
    model::AttemptHistory history{job.max_attempts, job.current_attempt.value_or(0), std::nullopt};
    Use query =
        prepared(std::string(kAttemptColumns) + " WHERE job_id = ? AND cleanup <> 'closed' ORDER BY number LIMIT 1");
    query->bind(1, job.job_id);
    if (query->executeStep()) {
      const AttemptRecord open = read_attempt_row(*query);
      history.unclosed = model::UnclosedAttempt{open.number, open.state, open.cleanup};
    }
    return history;
  }

  std::optional<AttemptRecord> read_attempt(const AttemptKey& key) {
    Use query = prepared(std::string(kAttemptColumns) + " WHERE job_id = ? AND number = ?");
    query->bind(1, key.job_id);
    query->bind(2, key.number);
    if (!query->executeStep()) return std::nullopt;
    return read_attempt_row(*query);
  }

  // The write of a journal call: its own transaction, or a savepoint of the open group.
  WriteTransaction begin_write() { return WriteTransaction(db, group_open); }

  std::mutex mutex;
  bool group_open = false;  // between begin_group() and end_group()
  std::string path;
  SQLite::Database db;
  const Clock& clock;
  StatementCache statements;  // after db: destroyed before it
  JournalHashCache cache;
};

// journal.cc: how many jobs of `platform_user` have not yet ended; inserts a new job and its
// job.created event in the caller's transaction (the caller checked it is new and within its
// user's limit).
std::int64_t count_live_jobs(Journal::Impl& impl, std::string_view platform_user);
void insert_job(Journal::Impl& impl, const NewJob& job, std::string_view submitted_by,
                std::optional<SweepPlace> place = std::nullopt);

}  // namespace tpslurm::journal
