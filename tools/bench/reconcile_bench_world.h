// reconcile_bench's world: everything one size runs in — a simulator (26.05.3, v0.0.45), the
// settings and catalogs a daemon would load, a SQLite journal and the counting transport every
// client here talks through — and the plain sqlite3 connection that reads what the Journal API
// does not give.
//
// Contract:
//   - World owns a temporary directory (/tmp/reconcile_bench.XXXXXX) with the runtime image,
//     the catalogs, the storage root and the journal; its destructor closes the journal and
//     removes the directory. The simulator stops with it.
//   - Every helper here dies (bench_support's die()) when it cannot go on; none returns an
//     error.
//   - Clients and Controllers are built as `serve` builds them (cli/slurm_connection.cc), so
//     what the bench times is what a restarted daemon pays.
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "base/clock.h"
#include "bench_support.h"
#include "journal/journal.h"
#include "model/catalogs.h"
#include "model/settings.h"
#include "reconcile/controller.h"
#include "slurm/curl_transport.h"
#include "slurm/request_budget.h"
#include "slurm/rest_client.h"

namespace tpslurm::bench::reconcile_bench {

// Milliseconds from `from` to `to`.
double ms_between(Steady::time_point from, Steady::time_point to);

// A plain sqlite3 connection: the fixture writer and the readers of figures the Journal API
// does not give (page counts, event counts).
class Db {
 public:
  explicit Db(const std::string& path);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // Runs `sql`; dies on an error.
  void exec(const std::string& sql);
  // The first column of the first row of `sql`; 0 when it gives no row.
  long long number(const std::string& sql);
  // A prepared statement the caller finalizes; dies on an error.
  sqlite3_stmt* prepare(const std::string& sql);
  // Steps `statement` to its end, then resets it and clears its bindings; dies on an error.
  void run(sqlite3_stmt* statement);

 private:
  sqlite3* m_db = nullptr;
};

// Binds a copy of `text` to parameter `index`; dies on an error.
void bind_text(sqlite3_stmt* statement, int index, const std::string& text);

// The number of rows in the journal's events table.
long long event_count(const std::string& journal_path);

// One size's world, in a temporary directory: the simulator, settings, catalogs, the journal
// and the transport that counts what every client here sends and receives.
class World {
 public:
  World(const std::string& sim_binary, long long size);
  ~World();

  // Journal::open as `serve` does it (the setup lock, the migration check).
  void reopen_journal();

  // A client as `serve` builds one (cli/slurm_connection.cc), with its own budget when
  // `budget` > 0; a restarted daemon starts with a new one.
  std::unique_ptr<slurm::RestClient> client(int budget);

  // A Controller as `serve` builds one: 4 threads, the sweep every reconcile::kSweepEvery
  // cycles, the budget of the last client() that had one.
  std::unique_ptr<reconcile::Controller> controller(slurm::SlurmClient& slurm);

  // Journals a job as `submit` does (tools/bench/submit_bench.cc).
  void add_job(const std::string& job_id);

  // The last attempt of `job_id`; dies when there is none.
  journal::AttemptRecord attempt(const std::string& job_id);

  long long size() const { return m_size; }
  // Time going by for every part here (journal, budget, clients, controllers), without the wait.
  void pass(std::chrono::seconds by) { m_clock.pass(by); }

  Simulator sim;
  model::Settings settings;
  std::unique_ptr<journal::Journal> journal;
  std::unique_ptr<CountingTransport> transport;

 private:
  long long m_size;
  std::filesystem::path m_dir;
  SteppedClock m_clock;
  model::Catalogs m_catalogs;
  std::unique_ptr<slurm::CurlTransport> m_curl;
  AnyToken m_tokens;
  std::unique_ptr<slurm::RequestBudget> m_budget;
};

}  // namespace tpslurm::bench::reconcile_bench
