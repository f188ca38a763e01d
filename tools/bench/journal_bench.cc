// journal_bench: journaled state changes per second against a raw SQLite insert+commit loop
// on the same disk with the same settings (WAL, synchronous=FULL), measured in the same run.
//
//   journal_bench [--dir DIR] [--changes N] [--rounds R]
//
// Each journaled change is what the reconciler does for one attempt move: one transaction
// that checks the expected state, updates the attempt row (and the job's phase when it moves)
// and appends the event. The baseline is one INSERT per transaction into a bare table. Rounds
// alternate baseline and journal so that disk noise hits both; the medians are compared.
// Prints numbers and the ratio (goal: >= 0.5); asserts nothing.
#include <sqlite3.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "base/clock.h"
#include "journal/journal.h"

namespace {

using namespace tpslurm;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

void must(int rc, sqlite3* db, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    std::fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
    std::exit(1);
  }
}

// Raw SQLite: N single-row transactions, WAL + synchronous=FULL.
double baseline_rate(const std::string& path, int changes) {
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  must(sqlite3_open(path.c_str(), &db), db, "open");
  must(sqlite3_exec(db,
                    "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE t (seq INTEGER PRIMARY KEY "
                    "AUTOINCREMENT, at TEXT, job TEXT, kind TEXT, detail TEXT)",
                    nullptr, nullptr, nullptr),
       db, "setup");
  sqlite3_stmt* insert = nullptr;
  must(sqlite3_prepare_v2(db, "INSERT INTO t (at, job, kind, detail) VALUES (?, ?, 'attempt.state', '{}')", -1, &insert,
                          nullptr),
       db, "prepare");
  const auto start = Clock::now();
  for (int i = 0; i < changes; ++i) {
    sqlite3_bind_text(insert, 1, "2026-11-30T12:00:00Z", -1, SQLITE_STATIC);
    const std::string job = "job-" + std::to_string(i);
    sqlite3_bind_text(insert, 2, job.c_str(), -1, SQLITE_TRANSIENT);
    must(sqlite3_step(insert), db, "insert");
    sqlite3_reset(insert);
  }
  const double elapsed = seconds_since(start);
  sqlite3_finalize(insert);
  sqlite3_close(db);
  return changes / elapsed;
}

// The journal: N attempt moves, each one transaction with its event (and phase when it moves).
double journal_rate(const std::string& path, int changes) {
  std::filesystem::remove(path);
  std::filesystem::remove(path + "-wal");
  std::filesystem::remove(path + "-shm");
  const SystemClock clock;
  auto opened = journal::Journal::open(path, clock);
  if (!opened.ok()) {
    std::fprintf(stderr, "%s\n", opened.error().message().c_str());
    std::exit(1);
  }
  journal::Journal& j = **opened;
  using model::AttemptState;
  const AttemptState path_of_an_attempt[] = {AttemptState::prepared, AttemptState::submitting, AttemptState::submitted,
                                             AttemptState::pending,  AttemptState::running,    AttemptState::succeeded};
  const int per_job = static_cast<int>(std::size(path_of_an_attempt));
  const int jobs = (changes + per_job - 1) / per_job;
  for (int i = 0; i < jobs; ++i) {
    const std::string id = "job-" + std::to_string(i);
    (void)j.add_job({id, "{}", std::string(64, 'a'), "", "", 1});
    (void)j.add_attempt(id, 1, "token-" + id, "input");
  }
  const auto start = Clock::now();
  int done = 0;
  for (int step = 0; step < per_job && done < changes; ++step) {
    for (int i = 0; i < jobs && done < changes; ++i, ++done) {
      const AttemptState from = step == 0 ? AttemptState::preparing : path_of_an_attempt[step - 1];
      journal::AttemptChanges receipt;
      if (path_of_an_attempt[step] == AttemptState::submitted) receipt.slurm_job_id = static_cast<std::uint32_t>(i + 1);
      const Status moved =
          j.transition({"job-" + std::to_string(i), 1}, from, path_of_an_attempt[step], receipt, {{"reason", "bench"}});
      if (!moved.ok()) {
        std::fprintf(stderr, "%s\n", moved.error().message().c_str());
        std::exit(1);
      }
    }
  }
  return changes / seconds_since(start);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = std::filesystem::temp_directory_path().string();
  int changes = 2000;
  int rounds = 3;
  CLI::App app{"journal_bench: the journal's group commits against one transaction per change", "journal_bench"};
  app.add_option("--dir", dir, "where the journals are made");
  app.add_option("--changes", changes, "changes per round")->check(CLI::Range(1, 1 << 30));
  app.add_option("--rounds", rounds, "rounds")->check(CLI::Range(1, 1 << 30));
  CLI11_PARSE(app, argc, argv);
  const std::string base = dir + "/journal-bench-" + std::to_string(::getpid());
  std::filesystem::create_directories(base);
  std::vector<double> raw, journaled;
  for (int round = 0; round < rounds; ++round) {
    raw.push_back(baseline_rate(base + "/raw.db", changes));
    journaled.push_back(journal_rate(base + "/journal.db", changes));
  }
  std::filesystem::remove_all(base);
  const double r = median(raw);
  const double jr = median(journaled);
  std::printf("journal_bench: %d changes x %d rounds in %s (WAL, synchronous=FULL, one transaction each)\n", changes,
              rounds, dir.c_str());
  std::printf("  raw SQLite insert+commit   %9.0f /s (median)\n", r);
  std::printf("  journaled state changes    %9.0f /s (median; row update + event, guarded by state)\n", jr);
  std::printf("  ratio journal/raw          %9.2f   (goal >= 0.50)\n", jr / r);
  return 0;
}
