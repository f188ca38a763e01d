// reconcile_bench's world: the simulator, settings, catalogs, journal and counting transport of
// one size, and the plain sqlite3 connection (see reconcile_bench_world.h).
#include "reconcile_bench_world.h"

#include <cstdlib>
#include <fstream>

#include "base/digest.h"
#include "bench_site.h"
#include "cli/inputs.h"
#include "render/render_request.h"
#include "storage/job_credential.h"

namespace tpslurm::bench::reconcile_bench {

namespace {

const std::string kHmacKey(32, 'k');

}  // namespace

double ms_between(Steady::time_point from, Steady::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

Db::Db(const std::string& path) {
  if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    die("open " + path + ": " + sqlite3_errmsg(m_db));
  }
  sqlite3_busy_timeout(m_db, 10000);
}

Db::~Db() { sqlite3_close_v2(m_db); }

void Db::exec(const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error != nullptr ? error : "?";
    sqlite3_free(error);
    die(sql.substr(0, 60) + ": " + message);
  }
}

long long Db::number(const std::string& sql) {
  sqlite3_stmt* statement = prepare(sql);
  long long value = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
  sqlite3_finalize(statement);
  return value;
}

sqlite3_stmt* Db::prepare(const std::string& sql) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
    die("prepare " + sql.substr(0, 60) + ": " + sqlite3_errmsg(m_db));
  }
  return statement;
}

void Db::run(sqlite3_stmt* statement) {
  int rc = sqlite3_step(statement);
  while (rc == SQLITE_ROW) rc = sqlite3_step(statement);
  if (rc != SQLITE_DONE) die(std::string("fixture writer: ") + sqlite3_errmsg(m_db));
  sqlite3_reset(statement);
  sqlite3_clear_bindings(statement);
}

void bind_text(sqlite3_stmt* statement, int index, const std::string& text) {
  const int rc = sqlite3_bind_text(statement, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) die("fixture writer: bind " + std::to_string(index) + ": " + sqlite3_errstr(rc));
}

long long event_count(const std::string& journal_path) {
  Db db(journal_path);
  return db.number("SELECT count(*) FROM events");
}

World::World(const std::string& sim_binary, long long size) : m_size(size) {
  start_simulator(sim, sim_binary, "26.05.3");
  m_dir = make_bench_site("reconcile_bench");
  settings.instance = "rb";
  settings.storage_root = (m_dir / "storage").string();
  settings.state_dir = (m_dir / "state").string();
  settings.journal_path = (m_dir / "state/journal.db").string();
  settings.partition = "debug";
  settings.cpu_partition = "debug";
  settings.runtime_registry_file = (m_dir / "registry.json").string();
  settings.gpu_series_file = (m_dir / "gpu-series.json").string();
  settings.rest_url = sim.url;
  auto catalogs = cli::load_catalogs(settings, "reconcile_bench");
  if (!catalogs.ok()) die(catalogs.error().to_text());
  m_catalogs = std::move(*catalogs);
  std::filesystem::create_directories(settings.state_dir);
  reopen_journal();
  slurm::CurlTransportOptions options;
  options.url = sim.url;
  options.total_timeout = std::chrono::minutes(10);
  auto curl = slurm::CurlTransport::create(options);
  if (!curl.ok()) die(curl.error().message());
  m_curl = std::move(*curl);
  transport = std::make_unique<CountingTransport>(*m_curl);
}

World::~World() {
  journal.reset();
  std::error_code ignored;
  std::filesystem::remove_all(m_dir, ignored);
}

void World::reopen_journal() {
  auto opened = journal::Journal::open(settings.journal_path, m_clock);
  if (!opened.ok()) die(opened.error().message());
  journal = std::move(*opened);
}

std::unique_ptr<slurm::RestClient> World::client(int budget) {
  slurm::RestClientOptions options;
  options.clock = &m_clock;
  if (budget > 0) {
    slurm::BudgetLimits limits;
    limits.calls_per_second = budget;
    limits.initial_backoff = settings.backoff_initial;
    limits.max_backoff = settings.backoff_max;
    m_budget = std::make_unique<slurm::RequestBudget>(m_clock, limits);
    options.budget = m_budget.get();
  }
  options.request_timeout = std::chrono::minutes(5);
  options.bulk.max_ids_per_call = settings.bulk_max_ids;
  options.bulk.max_target_bytes = settings.bulk_max_url_bytes;
  auto made = slurm::RestClient::create(*transport, m_tokens, "v0.0.45", options);
  if (!made.ok()) die(made.error().message());
  return std::move(made).value();
}

std::unique_ptr<reconcile::Controller> World::controller(slurm::SlurmClient& slurm) {
  return std::make_unique<reconcile::Controller>(reconcile::ControllerParts{*journal,
                                                                            slurm,
                                                                            settings,
                                                                            m_catalogs,
                                                                            m_clock,
                                                                            kHmacKey,
                                                                            m_budget.get(),
                                                                            settings.pass_threads,
                                                                            reconcile::kSweepEvery,
                                                                            {}});
}

void World::add_job(const std::string& job_id) {
  const std::string request = bench_request(job_id);
  const render::RenderCatalogs catalogs{m_catalogs.gpu_series, m_catalogs.runtimes};
  auto parsed = render::parse_request(request, catalogs, settings);
  if (!parsed.ok()) die(parsed.error().to_text());
  auto credential = storage::write_job_credential(settings.storage_root, job_id, *parsed->ingest_token, kHmacKey);
  if (!credential.ok()) die(credential.error().message());
  auto added = journal->add_job({job_id, parsed->canonical_json, sha256_hex(parsed->canonical_json), credential->path,
                                 credential->hmac, parsed->max_attempts});
  if (!added.ok()) die(added.error().message());
}

journal::AttemptRecord World::attempt(const std::string& job_id) {
  auto attempts = journal->attempts(job_id);
  if (!attempts.ok() || attempts->empty()) die("no attempt of " + job_id + " in the journal");
  return attempts->back();
}

}  // namespace tpslurm::bench::reconcile_bench
