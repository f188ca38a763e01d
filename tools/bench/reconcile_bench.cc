// reconcile_bench: what following N live attempts costs the reconciler (reconcile::Controller
// against tools/slurmrestd-sim, a real SQLite journal), each figure next to a baseline or goal
// from the same run, for N = 1,000 and 10,000 (half a minute on 2 shared cores) and 100,000
// when asked (--sizes 1000,10000,100000: about 2.5 minutes more, and 4 GB of memory).
//
//   reconcile_bench [--sim PATH] [--sizes 1000,10000] [--pending-percent P] [--changed-percent C]
//                   [--steady S] [--budget B] [--log LEVEL]
//
// The fixture, per size, on a fresh simulator (26.05.3, v0.0.45) and a fresh journal:
//   - two template jobs go the whole way through a Controller (prepare, held submit,
//     identify, release, pending; the second then running), so the journal's own API writes
//     their rows and events;
//   - N-2 more Slurm jobs are created through POST /sim/jobs/bulk (no REST) carrying the tags
//     their attempts will have (reconcile::attempt_tag: name, comment, working directory);
//     P% of all N are PENDING (default 10), the rest RUNNING;
//   - their journal rows are FIXTURE GENERATION, never the product's way: a bench-only bulk
//     writer copies a template's job, attempt and event rows in one SQLite transaction,
//     substituting the job id, submit token, Slurm job id, SLUID and the `components` column
//     (reconcile::components_json of the record slurmctld lists for that job, as identify and
//     the status poll write it). Columns the status poll and a live job's pass do not read
//     (hashes, times, the receipt, event details) are the template's.
// Then, per size:
//   a) baseline: journal.followed_attempts(), what the status poll reads (median of 3 warm);
//      and the restart baseline: Journal::open and that read on the new connection, which any
//      restart must at least do (median of 3);
//   b) restart to ready: what `serve` does before its first call to Slurm — the journal
//      reopened (Journal::open: the setup lock, the migration check), a new client and
//      Controller as `serve` builds them (4 threads, the sweep every 30 cycles, a request
//      budget), the live jobs and the followed attempts read (what the first cycle starts
//      from). Median of 3; time / the restart baseline, goal <= 2 (and / the warm read);
//   c) the first cycle after it: one run_once() on a cluster where nothing changed, which
//      pays what a first cycle pays once: the full listing (GET jobs) that the pending reasons
//      and the orphan sweep share (again every 30th cycle); one full listing alone, timed
//      while the fixture was built, is printed beside it. Memory: resident set
//      (/proc/self/statm) before the restart and after the first cycle, per tracked attempt
//      (goal <= 2 KiB); the peak during the cycle (VmHWM, reset through /proc/self/clear_refs),
//      and what stays after malloc_trim(0). Journal bytes per attempt: page_count * page_size
//      after a checkpoint, / N;
//   d) steady cycles: S more run_once() (default 3) with nothing changed; per cycle REST
//      calls (goal <= ceil(N/500)), bytes, CPU, wall time, journal commits (goal 0); beside
//      them, what the cycle's passes read (journal.job and journal.attempts of every live
//      job), timed alone;
//   e) changed: C% of N (default 1) PENDING jobs set RUNNING (/sim/jobs/advance), one more
//      run_once(), which runs the cycle that journals the changes and the quiet one after it:
//      calls (goal <= cycles * ceil(N/500) + K) and commits (goal K).
// The status poll also journals when it last answered in full (last_status_poll, at most once
// a minute): the commit goals allow for it when it changed, and the output says so.
// Journal commits are SQLite's own count: the wal-index header's change counter (iChange, in
// <journal>-shm; SQLite's file format, "incremented with each transaction"), which moves once
// per committed write transaction of any connection and for nothing else: every commit the
// controller makes is counted, with or without an event. Before measuring, a check makes three
// commits through the journal's API and dies unless the counter says 3. Events appended are
// printed beside it.
// REST calls and bytes are counted by the client (bench_support's CountingTransport; bytes sent
// = request targets + bodies, received = response bodies); the calls per route come from the
// simulator's /sim/stats. CPU: this process (client, reconciler, SQLite) and the simulator
// (standing in for slurmrestd; /proc, 10 ms ticks).
// --budget: the request budget per cycle (TUNEPLANE_REQUEST_BUDGET); default: the daemon's
// default (200), raised when a cycle's goal needs more, and the output says so.
// Prints numbers only; asserts nothing.
#include <fcntl.h>
#include <malloc.h>
#include <sqlite3.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "base/digest.h"
#include "base/uuid.h"
#include "bench_support.h"
#include "cli/inputs.h"
#include "config/logging.h"
#include "journal/journal.h"
#include "reconcile/attempt_tag.h"
#include "reconcile/components.h"
#include "reconcile/controller.h"
#include "render/render_request.h"
#include "slurm/curl_transport.h"
#include "slurm/request_budget.h"
#include "slurm/rest_client.h"
#include "storage/job_credential.h"

namespace {

using namespace tpslurm;
using namespace tpslurm::bench;
using tpslurm::slurm::HttpMethod;

const std::string kImage = "image bytes of the bench runtime\n";
const std::string kHmacKey(32, 'k');
const std::string kPendingTemplate = "j0000000";
const std::string kRunningTemplate = "j0000001";

double ms_between(Steady::time_point from, Steady::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) die("cannot write " + path.string());
}

std::string job_id_of(long long i) {
  char text[24];
  std::snprintf(text, sizeof text, "j%07lld", i);
  return text;
}

std::string kib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f KiB", bytes / 1024);
  return text;
}

// A plain sqlite3 connection: the fixture writer and the readers of figures the Journal API
// does not give (page counts, event counts).
class Db {
 public:
  explicit Db(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      die("open " + path + ": " + sqlite3_errmsg(m_db));
    }
    sqlite3_busy_timeout(m_db, 10000);
  }
  ~Db() { sqlite3_close_v2(m_db); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  void exec(const std::string& sql) {
    char* error = nullptr;
    if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      const std::string message = error != nullptr ? error : "?";
      sqlite3_free(error);
      die(sql.substr(0, 60) + ": " + message);
    }
  }
  long long number(const std::string& sql) {
    sqlite3_stmt* statement = prepare(sql);
    long long value = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0;
    sqlite3_finalize(statement);
    return value;
  }
  sqlite3_stmt* prepare(const std::string& sql) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
      die("prepare " + sql.substr(0, 60) + ": " + sqlite3_errmsg(m_db));
    }
    return statement;
  }
  void run(sqlite3_stmt* statement) {
    int rc = sqlite3_step(statement);
    while (rc == SQLITE_ROW) rc = sqlite3_step(statement);
    if (rc != SQLITE_DONE) die(std::string("fixture writer: ") + sqlite3_errmsg(m_db));
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
  }

 private:
  sqlite3* m_db = nullptr;
};

void bind_text(sqlite3_stmt* statement, int index, const std::string& text) {
  const int rc = sqlite3_bind_text(statement, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) die("fixture writer: bind " + std::to_string(index) + ": " + sqlite3_errstr(rc));
}

long long event_count(const std::string& journal_path) {
  Db db(journal_path);
  return db.number("SELECT count(*) FROM events");
}

std::map<std::string, long long> routes(Simulator& sim) {
  std::map<std::string, long long> out;
  boost::system::error_code error;
  const boost::json::value stats = boost::json::parse(sim.call(HttpMethod::get, "/sim/stats"), error);
  if (error || !stats.is_object()) die("/sim/stats: not JSON");
  const auto* by_route = stats.as_object().if_contains("requests_by_route");
  if (by_route == nullptr || !by_route->is_object()) return out;
  for (const auto& [route, count] : by_route->as_object()) {
    if (count.is_int64()) out[std::string(route)] = count.as_int64();
  }
  return out;
}

// "20 jobs/state, 2 jobs, 100 job/{id}": the Slurm calls between two /sim/stats answers.
std::string route_delta(const std::map<std::string, long long>& before, const std::map<std::string, long long>& after) {
  std::string out;
  for (const auto& [route, count] : after) {
    auto it = before.find(route);
    const long long delta = count - (it == before.end() ? 0 : it->second);
    if (delta <= 0 || route.find("/slurm") == std::string::npos) continue;
    std::string shown = route;
    const auto version = shown.find("/v0.0.");
    if (version != std::string::npos) shown = shown.substr(0, shown.find(' ') + 1) + shown.substr(version + 9);
    if (!out.empty()) out += ", ";
    out += std::to_string(delta) + " " + shown;
  }
  return out.empty() ? "none" : out;
}

// One size's world, in a temporary directory: the simulator, settings, catalogs, the journal
// and the transport that counts what every client here sends and receives.
class World {
 public:
  World(const std::string& sim_binary, long long size) : m_size(size) {
    start_simulator(sim, sim_binary, "26.05.3");
    char pattern[] = "/tmp/reconcile_bench.XXXXXX";
    if (::mkdtemp(pattern) == nullptr) die("mkdtemp failed");
    m_dir = pattern;
    write_file(m_dir / "storage/runtimes/bench.sqsh", kImage);
    write_file(m_dir / "registry.json", R"({"runtimes": {"custom-bench": {"framework": "custom", "launcher": "srun",
        "sqsh": {"path": "runtimes/bench.sqsh", "sha256": ")" +
                                            sha256_hex(kImage) + R"("}}}})");
    write_file(m_dir / "gpu-series.json", R"({"series": {}})");
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

  ~World() {
    journal.reset();
    std::error_code ignored;
    std::filesystem::remove_all(m_dir, ignored);
  }

  // Journal::open as `serve` does it (the setup lock, the migration check).
  void reopen_journal() {
    auto opened = journal::Journal::open(settings.journal_path, m_clock);
    if (!opened.ok()) die(opened.error().message());
    journal = std::move(*opened);
  }

  // A client as `serve` builds one (cli/slurm_connection.cc), with its own budget when
  // `budget` > 0; a restarted daemon starts with a new one.
  std::unique_ptr<slurm::RestClient> client(int budget) {
    slurm::RestClientOptions options;
    options.clock = &m_clock;
    if (budget > 0) {
      slurm::BudgetLimits limits;
      limits.calls_per_cycle = budget;
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

  std::unique_ptr<reconcile::Controller> controller(slurm::SlurmClient& slurm) {
    return std::make_unique<reconcile::Controller>(reconcile::ControllerParts{
        *journal, slurm, settings, m_catalogs, m_clock, kHmacKey, m_budget.get(), 4, reconcile::kSweepEvery, {}});
  }

  // Journals a job as `submit` does (tools/bench/submit_bench.cc).
  void add_job(const std::string& job_id) {
    const std::string request = R"({"job_id": ")" + job_id + R"(", "type": "custom", "spec": {
        "framework": {"name": "custom", "runtime_id": "custom-bench"}, "command": ["python", "train.py"],
        "pools": [{"name": "main", "nodes": 1, "gpus_per_node": 0, "cpus": 1, "memory_gb": 1}],
        "time_limit_minutes": 600}, "credentials": {"ingest_token": "ingest-)" +
                                job_id + R"("}})";
    const render::RenderCatalogs catalogs{m_catalogs.gpu_series, m_catalogs.runtimes};
    auto parsed = render::parse_request(request, catalogs, settings);
    if (!parsed.ok()) die(parsed.error().to_text());
    auto credential = storage::write_job_credential(settings.storage_root, job_id, *parsed->ingest_token, kHmacKey);
    if (!credential.ok()) die(credential.error().message());
    auto added = journal->add_job({job_id, parsed->canonical_json, sha256_hex(parsed->canonical_json), credential->path,
                                   credential->hmac, parsed->max_attempts});
    if (!added.ok()) die(added.error().message());
  }

  journal::AttemptRecord attempt(const std::string& job_id) {
    auto attempts = journal->attempts(job_id);
    if (!attempts.ok() || attempts->empty()) die("no attempt of " + job_id + " in the journal");
    return attempts->back();
  }

  long long size() const { return m_size; }

  Simulator sim;
  model::Settings settings;
  std::unique_ptr<journal::Journal> journal;
  std::unique_ptr<CountingTransport> transport;

 private:
  long long m_size;
  std::filesystem::path m_dir;
  SystemClock m_clock;
  model::Catalogs m_catalogs;
  std::unique_ptr<slurm::CurlTransport> m_curl;
  AnyToken m_tokens;
  std::unique_ptr<slurm::RequestBudget> m_budget;
};

// A generated attempt: its job, token, template and Slurm job.
struct Clone {
  std::string job_id;
  std::string token;
  const std::string* from = nullptr;  // the template
  std::uint32_t slurm_job_id = 0;
};

// Creates `clones` in Slurm through the control API, each carrying its attempt's tag.
void create_in_slurm(World& world, std::vector<Clone>& clones, std::size_t first, std::size_t count,
                     const std::string& state) {
  constexpr std::size_t kChunk = 20000;
  for (std::size_t at = first; at < first + count; at += kChunk) {
    const std::size_t n = std::min(kChunk, first + count - at);
    boost::json::array names, comments, directories;
    for (std::size_t i = at; i < at + n; ++i) {
      journal::AttemptRecord a;
      a.job_id = clones[i].job_id;
      a.number = 1;
      a.submit_token = clones[i].token;
      const model::JobTag tag = reconcile::attempt_tag(world.settings, a);
      names.emplace_back(tag.name);
      comments.emplace_back(tag.comment);
      directories.emplace_back(tag.working_directory);
    }
    boost::json::object body{{"count", n},
                             {"state", state},
                             {"names", std::move(names)},
                             {"comments", std::move(comments)},
                             {"working_directories", std::move(directories)}};
    const std::string answer = world.sim.call(HttpMethod::post, "/sim/jobs/bulk", boost::json::serialize(body));
    auto id = static_cast<std::uint32_t>(number_after(answer, "first_job_id"));
    for (std::size_t i = at; i < at + n; ++i) clones[i].slurm_job_id = id++;
  }
}

// The two templates, through a Controller: both released and pending, the second running.
void make_templates(World& world) {
  world.add_job(kPendingTemplate);
  world.add_job(kRunningTemplate);
  auto client = world.client(0);
  auto controller = world.controller(*client);
  controller->run_once();
  const journal::AttemptRecord running = world.attempt(kRunningTemplate);
  if (!running.slurm_job_id) die("the template " + kRunningTemplate + " was not submitted");
  world.sim.call(HttpMethod::post, "/sim/jobs/" + std::to_string(*running.slurm_job_id) + "/state",
                 R"({"state": "RUNNING"})");
  controller->run_once();
  if (world.attempt(kPendingTemplate).state != model::AttemptState::pending ||
      world.attempt(kRunningTemplate).state != model::AttemptState::running) {
    die("the templates did not reach pending and running (run with --log info to see why)");
  }
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// FIXTURE GENERATION, not the product's way of writing: the clones' rows copied from their
// templates in one transaction (the insert trigger wants a new attempt in preparing; the
// state is set right after).
void write_clones(World& world, const std::vector<Clone>& clones,
                  const std::map<std::uint32_t, model::JobSnapshot>& records) {
  std::map<std::string, journal::JobRecord> templates;
  for (const auto& id : {kPendingTemplate, kRunningTemplate}) {
    auto job = world.journal->job(id);
    if (!job.ok() || !job->has_value()) die("no template job " + id);
    templates[id] = **job;
  }
  Db db(world.settings.journal_path);
  sqlite3_stmt* job = db.prepare(
      "INSERT INTO jobs (job_id, request_json, request_sha256, credential_path, credential_hmac, max_attempts, "
      "desire, desire_reason, phase, current_attempt, version, created_at, updated_at, cancel_grace_seconds) "
      "SELECT ?1, ?2, ?3, replace(credential_path, ?4, ?1), credential_hmac, max_attempts, desire, desire_reason, "
      "phase, current_attempt, version, created_at, updated_at, cancel_grace_seconds FROM jobs WHERE job_id = ?4");
  sqlite3_stmt* attempt = db.prepare(
      "INSERT INTO attempts (job_id, number, submit_token, state, input_sha256, attempt_dir, script_sha256, "
      "env_sha256, manifest_sha256, intent_at, slurm_job_id, sluid, het_job_id, components, server_release, "
      "dialect, receipt, slurm_state, slurm_reason, exit_code, exit_signal, failure_phase, outcome_reason, found_by, "
      "cleanup, logs_sha256, version, created_at, updated_at, submit_mode, identified_at, released_at, searched_at, "
      "complete_search_at, search_report, observed_at, signalled_at, cleanup_at) "
      "SELECT ?1, number, ?2, 'preparing', input_sha256, replace(attempt_dir, ?3, ?1), script_sha256, env_sha256, "
      "manifest_sha256, intent_at, ?4, ?5, het_job_id, ?6, server_release, dialect, receipt, slurm_state, ?7, "
      "exit_code, exit_signal, failure_phase, outcome_reason, found_by, cleanup, logs_sha256, version, created_at, "
      "updated_at, submit_mode, identified_at, released_at, searched_at, complete_search_at, search_report, "
      "observed_at, signalled_at, cleanup_at FROM attempts WHERE job_id = ?3");
  sqlite3_stmt* state =
      db.prepare("UPDATE attempts SET state = (SELECT state FROM attempts WHERE job_id = ?2) WHERE job_id = ?1");
  sqlite3_stmt* events = db.prepare(
      "INSERT INTO events (at, job_id, attempt, kind, from_state, to_state, detail) "
      "SELECT at, ?1, attempt, kind, from_state, to_state, detail FROM events WHERE job_id = ?2 ORDER BY seq");
  db.exec("BEGIN IMMEDIATE");
  for (const Clone& c : clones) {
    const auto record = records.find(c.slurm_job_id);
    if (record == records.end()) die("slurmctld does not list job " + std::to_string(c.slurm_job_id));
    const std::string& from = *c.from;
    const std::string request = replace_all(templates[from].request_json, from, c.job_id);
    bind_text(job, 1, c.job_id);
    bind_text(job, 2, request);
    bind_text(job, 3, sha256_hex(request));
    bind_text(job, 4, from);
    db.run(job);
    bind_text(attempt, 1, c.job_id);
    bind_text(attempt, 2, c.token);
    bind_text(attempt, 3, from);
    sqlite3_bind_int64(attempt, 4, c.slurm_job_id);
    bind_text(attempt, 5, record->second.sluid);
    bind_text(attempt, 6, reconcile::components_json({record->second}));
    bind_text(attempt, 7, record->second.state_reason);
    db.run(attempt);
    bind_text(state, 1, c.job_id);
    bind_text(state, 2, from);
    db.run(state);
    bind_text(events, 1, c.job_id);
    bind_text(events, 2, from);
    db.run(events);
  }
  db.exec("COMMIT");
  for (sqlite3_stmt* s : {job, attempt, state, events}) sqlite3_finalize(s);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

// What building the fixture measured on the way.
struct Built {
  long long pending = 0;
  double seconds = 0;
  double listing_ms = 0;  // one full GET jobs listing of every job, client side
  double listing_bytes = 0;
  double journal_bytes = 0;
};

Built build_fixture(World& world, double pending_percent) {
  const auto start = Steady::now();
  make_templates(world);
  const long long n = world.size();
  Built built;
  built.pending = std::clamp<long long>(std::llround(static_cast<double>(n) * pending_percent / 100), 1, n - 1);
  std::vector<Clone> clones;
  for (long long i = 2; i < n; ++i) {
    clones.push_back({job_id_of(i), new_uuid(), i - 1 < built.pending ? &kPendingTemplate : &kRunningTemplate, 0});
  }
  const auto pending_clones = static_cast<std::size_t>(built.pending - 1);
  create_in_slurm(world, clones, 0, pending_clones, "PENDING");
  create_in_slurm(world, clones, pending_clones, clones.size() - pending_clones, "RUNNING");
  {
    // What identify would have read, for every clone at once.
    auto client = world.client(0);
    const double received = static_cast<double>(world.transport->bytes_received);
    const auto listed = Steady::now();
    slurm::JobsResult all = client->jobs_changed_since(std::nullopt);
    built.listing_ms = ms_between(listed, Steady::now());
    built.listing_bytes = static_cast<double>(world.transport->bytes_received) - received;
    if (!all.ok()) die("listing the fixture's jobs: " + all.message);
    std::map<std::uint32_t, model::JobSnapshot> records;
    for (auto& r : all.jobs) records.emplace(r.job_id, std::move(r));
    all.jobs.clear();
    write_clones(world, clones, records);
  }
  malloc_trim(0);
  Db db(world.settings.journal_path);
  built.journal_bytes = static_cast<double>(db.number("PRAGMA page_count") * db.number("PRAGMA page_size"));
  built.seconds = ms_between(start, Steady::now()) / 1000;
  return built;
}

// What one measured stretch (a run_once) cost.
struct Figures {
  Cost cost;
  reconcile::CycleReport report;
  long long commits = 0;
  long long events = 0;
  // Commits that may be the status poll's last_status_poll (at most once a cycle and once a
  // minute), when it changed; 0 when it did not.
  long long meta_writes = 0;
  std::string routes;
};

Figures measure(World& world, const std::function<reconcile::CycleReport()>& body) {
  const auto routes_before = routes(world.sim);
  const long long events_before = event_count(world.settings.journal_path);
  auto meta = world.journal->meta("last_status_poll");
  const std::string meta_before = meta.ok() ? meta->value_or("") : "";
  const long long commits_before = journal_commits(world.settings.journal_path);
  Figures f;
  {
    Meter meter(*world.transport, world.sim.pid);
    f.report = body();
    f.cost = meter.stop();
  }
  f.commits = journal_commits(world.settings.journal_path) - commits_before;
  f.events = event_count(world.settings.journal_path) - events_before;
  meta = world.journal->meta("last_status_poll");
  if ((meta.ok() ? meta->value_or("") : "") != meta_before) {
    f.meta_writes = std::min<long long>(f.report.cycles, static_cast<long long>(f.cost.wall_ms / 60000) + 1);
  }
  f.routes = route_delta(routes_before, routes(world.sim));
  return f;
}

const char* verdict(bool met) { return met ? "met" : "MISSED"; }

void print_cost(const char* indent, const Figures& f) {
  std::printf("%ssent %s, received %s; CPU: client %.1f ms, sim %.1f ms; wall %.1f ms\n", indent,
              human_bytes(f.cost.bytes_sent).c_str(), human_bytes(f.cost.bytes_received).c_str(), f.cost.client_cpu_ms,
              f.cost.sim_cpu_ms, f.cost.wall_ms);
  std::printf("%sSlurm calls by route: %s\n", indent, f.routes.c_str());
}

std::string commits_text(const Figures& f) {
  std::string text = std::to_string(f.commits) + " (" + std::to_string(f.events) + " events";
  if (f.meta_writes > 0) {
    text += "; " + std::string(f.meta_writes == 1 ? "1 is" : "up to " + std::to_string(f.meta_writes) + " are") +
            " the once-a-minute last_status_poll";
  }
  return text + ")";
}

void check_commit_counter(World& world) {
  const long long before = journal_commits(world.settings.journal_path);
  for (int i = 0; i < 3; ++i) {
    if (!world.journal->set_meta("reconcile_bench_check", std::to_string(i)).ok()) die("set_meta failed");
  }
  const long long counted = journal_commits(world.settings.journal_path) - before;
  if (counted != 3) die("the commit counter saw " + std::to_string(counted) + " of 3 commits; it cannot be trusted");
}

void bench_size(const std::string& sim_binary, long long n, double pending_percent, double changed_percent,
                int steady_cycles, int budget_flag) {
  World world(sim_binary, n);
  const Built built = build_fixture(world, pending_percent);
  check_commit_counter(world);
  const long long bulk_calls = (n + 499) / 500;
  const long long changed =
      std::clamp<long long>(std::llround(static_cast<double>(n) * changed_percent / 100), 1, built.pending);
  const int needed = static_cast<int>(bulk_calls + changed + 10);
  const int budget = budget_flag > 0 ? budget_flag : std::max(world.settings.request_budget, needed);

  std::printf("\nN = %lld live attempts: %lld pending, %lld running (2 through the Controller, the rest generated)\n",
              n, built.pending, n - built.pending);
  std::printf("  fixture built in %.1f s; journal %s = %s per attempt (page_count * page_size after a checkpoint)\n",
              built.seconds, human_bytes(built.journal_bytes).c_str(),
              human_bytes(built.journal_bytes / static_cast<double>(n)).c_str());
  std::printf("  request budget %d calls per cycle%s\n", budget,
              budget_flag > 0 ? " (--budget)"
              : budget == world.settings.request_budget
                  ? " (the daemon's default)"
                  : " (raised from the daemon's default 200: a cycle needs more)");

  // a) the baseline
  std::vector<double> reads;
  std::size_t followed = 0;
  for (int i = 0; i < 4; ++i) {
    const auto start = Steady::now();
    auto rows = world.journal->followed_attempts();
    const double ms = ms_between(start, Steady::now());
    if (!rows.ok()) die(rows.error().message());
    followed = rows->size();
    if (i > 0) reads.push_back(ms);  // the first one warms the cache
  }
  const double baseline = median(reads);
  std::printf("  a) baseline: journal.followed_attempts(), %zu rows: %.1f ms (median of 3 warm reads)\n", followed,
              baseline);
  // What any restart must at least do: open the journal and read the rows on that new connection.
  std::vector<double> cold_reads;
  for (int i = 0; i < 3; ++i) {
    world.journal.reset();
    const auto start = Steady::now();
    world.reopen_journal();
    if (!world.journal->followed_attempts().ok()) die("cannot read the followed attempts");
    cold_reads.push_back(ms_between(start, Steady::now()));
  }
  const double cold_baseline = median(cold_reads);
  std::printf(
      "     restart baseline: Journal::open + followed_attempts() on that new connection: %.1f ms (median of 3)\n",
      cold_baseline);
  std::printf("     one full listing of slurmctld (GET jobs, %lld records, %s), timed while building: %.1f ms\n", n,
              human_bytes(built.listing_bytes).c_str(), built.listing_ms);

  // b) restart to ready: what `serve` does before its first call to Slurm
  std::unique_ptr<slurm::RestClient> client;
  std::unique_ptr<reconcile::Controller> controller;
  malloc_trim(0);
  const double resident_before = resident_bytes();
  std::vector<double> readies;
  for (int i = 0; i < 3; ++i) {
    controller.reset();
    world.journal.reset();
    const auto start = Steady::now();
    world.reopen_journal();
    client = world.client(budget);
    controller = world.controller(*client);
    auto live = world.journal->live_job_ids();
    auto rows = world.journal->followed_attempts();
    if (!live.ok() || !rows.ok()) die("cannot read the live jobs");
    readies.push_back(ms_between(start, Steady::now()));
  }
  const double ready = median(readies);
  const double ratio = cold_baseline > 0 ? ready / cold_baseline : 0;
  std::printf(
      "  b) restart to ready (reopen the journal, a new client and Controller, read the live jobs and the\n"
      "     followed attempts: everything before the first call to Slurm): %.1f ms = %.1fx the restart baseline"
      "  goal <= 2x  %s\n",
      ready, ratio, verdict(ratio <= 2));
  std::printf("     (= %.1fx the warm read)\n", baseline > 0 ? ready / baseline : 0);

  // c) the first cycle after the restart, and memory
  reset_peak();
  const Figures restart = measure(world, [&] { return controller->run_once(); });
  const double resident_after = resident_bytes();
  const double peak = peak_resident_bytes();
  malloc_trim(0);
  const double resident_trimmed = resident_bytes();
  std::printf("  c) the first cycle (run_once, nothing changed): %.1f ms = %.1fx baseline; %d cycle(s), %d passes\n",
              restart.cost.wall_ms, baseline > 0 ? restart.cost.wall_ms / baseline : 0, restart.report.cycles,
              restart.report.passes);
  std::printf("     %.0f REST calls; journal commits %s\n", restart.cost.calls, commits_text(restart).c_str());
  std::printf(
      "     it pays the full listing (GET jobs) that the pending reasons and the sweep share, once (again every\n"
      "     30th cycle); one such listing alone took %.1f ms above\n",
      built.listing_ms);
  print_cost("     ", restart);
  const double per_attempt = (resident_after - resident_before) / static_cast<double>(n);
  std::printf(
      "     memory: resident %s before the restart, %s after the first cycle: +%s = %s per attempt"
      "  goal <= 2 KiB  %s\n",
      human_bytes(resident_before).c_str(), human_bytes(resident_after).c_str(),
      human_bytes(resident_after - resident_before).c_str(), kib(per_attempt).c_str(), verdict(per_attempt <= 2048));
  std::printf(
      "     peak during the cycle %s (+%s = %s per attempt: the listing); after malloc_trim(0) +%s = %s "
      "per attempt\n",
      human_bytes(peak).c_str(), human_bytes(peak - resident_before).c_str(),
      kib((peak - resident_before) / static_cast<double>(n)).c_str(),
      human_bytes(resident_trimmed - resident_before).c_str(),
      kib((resident_trimmed - resident_before) / static_cast<double>(n)).c_str());
  std::printf("     journal: %s per attempt\n", human_bytes(built.journal_bytes / static_cast<double>(n)).c_str());

  // d) steady cycles
  Figures total;
  std::vector<Figures> steady;
  for (int i = 0; i < steady_cycles; ++i) steady.push_back(measure(world, [&] { return controller->run_once(); }));
  Cost mean;
  double calls_max = 0;
  long long commits = 0, events = 0;
  int cycles = 0;
  long long meta = 0;
  for (const auto& f : steady) {
    mean.calls += f.cost.calls / steady_cycles;
    mean.bytes_sent += f.cost.bytes_sent / steady_cycles;
    mean.bytes_received += f.cost.bytes_received / steady_cycles;
    mean.client_cpu_ms += f.cost.client_cpu_ms / steady_cycles;
    mean.sim_cpu_ms += f.cost.sim_cpu_ms / steady_cycles;
    mean.wall_ms += f.cost.wall_ms / steady_cycles;
    calls_max = std::max(calls_max, f.cost.calls);
    commits += f.commits;
    events += f.events;
    cycles += f.report.cycles;
    meta += f.meta_writes;
  }
  total.cost = mean;
  total.commits = commits;
  total.events = events;
  total.meta_writes = meta;
  total.routes = steady.empty() ? "none" : steady.back().routes;
  std::printf(
      "  d) steady cycle, nothing changed (mean of %d run_once, %d cycles): %.1f REST calls (max %.0f)"
      "  goal <= %lld  %s\n",
      steady_cycles, cycles, mean.calls, calls_max, bulk_calls, verdict(calls_max <= static_cast<double>(bulk_calls)));
  std::printf("     journal commits over the %d: %s  goal 0 for unchanged jobs  %s\n", steady_cycles,
              commits_text(total).c_str(), verdict(commits <= meta));
  std::printf("     wall %.1f ms = %.1fx baseline; %d passes a cycle\n", mean.wall_ms,
              baseline > 0 ? mean.wall_ms / baseline : 0, steady.empty() ? 0 : steady.back().report.passes);
  print_cost("     ", total);
  // What every cycle's passes read, timed alone: each live job's row and its attempts.
  const auto reads_start = Steady::now();
  for (long long i = 0; i < n; ++i) {
    const std::string id = job_id_of(i);
    if (!world.journal->job(id).ok() || !world.journal->attempts(id).ok()) die("cannot read job " + id);
  }
  const double pass_reads_ms = ms_between(reads_start, Steady::now());
  std::printf(
      "     each cycle gives every live job a pass; their %lld journal.job() + journal.attempts() alone: "
      "%.1f ms = %.1fx baseline\n",
      n, pass_reads_ms, baseline > 0 ? pass_reads_ms / baseline : 0);

  // e) K jobs change
  world.sim.call(HttpMethod::post, "/sim/jobs/advance",
                 R"({"count": )" + std::to_string(changed) + R"(, "from": "PENDING", "to": "RUNNING"})");
  const Figures moved = measure(world, [&] { return controller->run_once(); });
  const long long goal = moved.report.cycles * bulk_calls + changed;
  const long long commit_goal = changed + moved.meta_writes;
  std::printf(
      "  e) %lld jobs PENDING -> RUNNING, one run_once (%d cycles: the changes, then a quiet one): %.0f REST "
      "calls  goal <= %d x %lld + %lld = %lld  %s\n",
      changed, moved.report.cycles, moved.cost.calls, moved.report.cycles, bulk_calls, changed, goal,
      verdict(moved.cost.calls <= static_cast<double>(goal)));
  std::printf("     journal commits %s  goal %lld  %s\n", commits_text(moved).c_str(), commit_goal,
              verdict(moved.commits <= commit_goal));
  print_cost("     ", moved);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::string sim_binary = default_simulator_path();
  std::string sizes_text = "1000,10000";
  double pending_percent = 10;
  double changed_percent = 1;
  int steady_cycles = 3;
  int budget = 0;
  std::string log_level = "error";
  CLI::App app{"reconcile_bench: the controller following N live attempts", "reconcile_bench"};
  app.add_option("--sim", sim_binary, "the slurmrestd-sim binary");
  app.add_option("--sizes", sizes_text, "attempt counts, comma-separated");
  app.add_option("--pending-percent", pending_percent, "share of the jobs pending")->check(CLI::Range(0.0, 100.0));
  app.add_option("--changed-percent", changed_percent, "share of the jobs changed per cycle")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--steady", steady_cycles, "steady cycles measured")->check(CLI::Range(1, 1 << 30));
  app.add_option("--budget", budget, "request budget per cycle (0: the default)")->check(CLI::Range(0, 1 << 30));
  app.add_option("--log", log_level, "the daemon's log level");
  CLI11_PARSE(app, argc, argv);
  if (!std::filesystem::exists(sim_binary)) {
    die(sim_binary +
        " does not exist; build it (cmake --build <build dir> --target slurmrestd-sim) or pass --sim PATH");
  }
  if (Status logging = config::configure_logging(log_level, model::LogFormat::text); !logging.ok()) {
    die("--log " + log_level + ": " + logging.error().message());
  }
  const std::vector<long long> sizes = parse_sizes("--sizes", sizes_text, 3);
  if (sizes.empty()) die("--sizes: give at least one size, e.g. 1000,10000");
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a size takes minutes: show each figure when it is known

  std::printf("reconcile_bench: reconcile::Controller following N live attempts, slurmrestd-sim 26.05.3 (v0.0.45),\n");
  std::printf("  SQLite journal (WAL, synchronous=FULL); each size on a fresh simulator and journal\n");
  std::printf("  %.0f%% of the attempts pending, %.0f%% of N changed in e); CPU in ms (client: this process with the\n",
              pending_percent, changed_percent);
  std::printf("  reconciler and SQLite; sim: the simulator standing in for slurmrestd, 10 ms ticks)\n");
  std::printf("  journal commits: SQLite's wal-index change counter (every committed write transaction)\n");
  if (sizes.back() < 100000) {
    std::printf("  100,000 attempts is opt-in (--sizes 1000,10000,100000): about 2.5 minutes and 4 GB resident on\n");
    std::printf("  2 shared cores, most of it in building the fixture and the first cycle's full listing\n");
  }
  for (const long long n : sizes) bench_size(sim_binary, n, pending_percent, changed_percent, steady_cycles, budget);
  return 0;
}
