// burst_bench: a sweep from the platform — N LaunchRequests POSTed to `serve`'s API by C
// clients at once — timed until every one is answered 201 and until every job is released in
// Slurm, each next to T_raw: the time the same kind of slurmrestd takes to accept N raw POSTs
// of the same held submit body from C connections, measured in the same run.
//
//   burst_bench [--sim PATH] [--serve PATH] [--jobs N] [--clients C] [--timeout S] [--no-sim] [--set K=V]...
//               [--real-url URL --real-jwt-file F --real-user U --real-partition P]
//
// Everything on loopback, against tools/slurmrestd-sim 26.05.3 (v0.0.45; --no-auth, a manual
// clock: a released job stays pending) unless --no-sim, each part on a fresh simulator, and,
// when the four --real-* flags are given, against that real slurmrestd (the local Slurm 22.05:
// tools/local-slurm env prints them) — there each baseline and the sweep leave N jobs in
// Slurm, which the bench cancels (every job not ended whose name starts with the run's
// instance, tp-bst<pid>): each baseline's after it, then waiting (at most 2 minutes) until
// Slurm lists none of them, so that the next part meets the server as T_raw did; the sweep's
// at the end. The run's
// temporary directory (state, storage) is made under $TMPDIR (/tmp without it), so that the
// same sweep can be measured on another filesystem:
//   a) T_raw: C threads, each on one reused connection, POST N/C copies of the held submit body
//      the daemon sends for the sweep's first request (rendered here by the daemon's own
//      renderer and encoded by the target's dialect); T_held, on a fresh simulator again: the
//      same, each POST followed by a GET of the job its answer names and the release of its
//      hold — held mode's own three calls, raw: what the server alone needs to take the sweep;
//   b) the sweep: the real `tuneplane-slurm serve` (a child process, its log in the temporary
//      directory) on its defaults (but for the --set KEY=VALUE settings given), the API on a unix socket; C client
//      threads (a libcurl connection each, reused) POST the N requests, each under its own job_id, the same request
//      otherwise. t_201 is when the last 201 came; t_released when the journal (read on a connection of the bench's own
//      every 50 ms) shows every attempt released;
//   c) for the sweep: the change feed's items per job (GET /v1/events, every page), journal
//      bytes per job (page_count * page_size when serve has stopped), journal commits per
//      attempt (SQLite's own counter, bench_support.h), Slurm jobs created (the simulator's
//      count: N, no more), serve's CPU seconds (from the first request to the last release, and
//      the part until the last 201), and how slurmrestd answered: the answer times
//      half and 99% of serve's calls came within (its /metrics histogram's buckets) and the
//      request budget's adaptive rate at the last release.
//      On the real server the jobs created are the distinct job ids the journal holds, and the
//      server's own listing must show no other job under the sweep's names (a duplicate would);
//   d) quiet: serve's CPU over 10 s, 10 s after the last release, while the N jobs pend in
//      Slurm and nothing changes (each cycle still gives every live job a pass).
// Goals: t_201 <= 5 T_raw and t_released <= 10 T_raw against the simulator (which accepts
// faster than a real slurmrestd and is single-threaded), <= 0.5 and <= 2.5 T_raw against the
// real one; <= 5 feed items and <= 4 kB of journal per job; <= 2 commits per attempt; N Slurm
// jobs. The release is also given in T_held, which has no goal. Prints numbers and whether each
// goal is met; asserts nothing.
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "bench_site.h"
#include "bench_support.h"
#include "burst_bench.h"
#include "slurm/dialect.h"
#include "slurm/jwt_source.h"
#include "slurm/rest_client.h"

namespace {

using namespace tpslurm;
using namespace tpslurm::bench;
using namespace tpslurm::bench::burst;

HttpRequest api_request(HttpMethod method, const std::string& target, std::string body = {}) {
  return http_request(method, target, std::move(body),
                      {{"Authorization", "Bearer " + kApiToken}, {"Content-Type", "application/json"}});
}

// `serve`, a child process of this one, logging to serve.log in the site's directory.
class Serve {
 public:
  Serve(const std::string& binary, const Site& site) {
    const std::string log = (site.dir / "serve.log").string();
    m_pid = ::fork();
    if (m_pid == 0) {
      std::FILE* out = std::freopen(log.c_str(), "w", stdout);
      if (out == nullptr || ::dup2(::fileno(stdout), 2) < 0) ::_exit(126);
      std::vector<std::string> env = site.environment();
      std::vector<char*> envp;
      for (auto& entry : env) envp.push_back(entry.data());
      envp.push_back(nullptr);
      std::string program = binary;
      std::string command = "serve";
      char* argv[] = {program.data(), command.data(), nullptr};
      ::execve(argv[0], argv, envp.data());
      ::_exit(127);
    }
    if (m_pid < 0) die("fork failed");
  }
  ~Serve() { stop(); }
  Serve(const Serve&) = delete;
  Serve& operator=(const Serve&) = delete;

  pid_t pid() const { return m_pid; }
  void stop() {
    if (m_pid <= 0) return;
    ::kill(m_pid, SIGTERM);
    int status = 0;
    ::waitpid(m_pid, &status, 0);
    m_pid = -1;
  }

 private:
  pid_t m_pid = -1;
};

std::unique_ptr<slurm::CurlTransport> api_client(const Site& site) {
  slurm::CurlTransportOptions options;
  options.url = "unix:" + site.socket();
  options.total_timeout = std::chrono::minutes(1);
  auto transport = slurm::CurlTransport::create(options);
  if (!transport.ok()) die(transport.error().message());
  return std::move(*transport);
}

void wait_until_ready(const Site& site, const Serve& serve) {
  auto client = api_client(site);
  const auto deadline = Steady::now() + std::chrono::seconds(30);
  while (Steady::now() < deadline) {
    int status = 0;
    if (::waitpid(serve.pid(), &status, WNOHANG) == serve.pid()) {
      die("serve exited; its log: " + (site.dir / "serve.log").string());
    }
    if (fs::exists(site.socket()) && client->perform(api_request(HttpMethod::get, "/healthz")).response.status == 200) {
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  die("serve's API did not answer within 30 s; its log: " + (site.dir / "serve.log").string());
}

// Each row of a one-column integer query on the journal (read-only; empty when it cannot be read).
std::vector<long long> journal_column(const std::string& journal, const char* sql) {
  sqlite3* db = nullptr;
  std::vector<long long> values;
  if (sqlite3_open_v2(journal.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 1000);
    sqlite3_stmt* query = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &query, nullptr) == SQLITE_OK) {
      while (sqlite3_step(query) == SQLITE_ROW) values.push_back(sqlite3_column_int64(query, 0));
    }
    sqlite3_finalize(query);
  }
  sqlite3_close_v2(db);
  return values;
}

long long count_released(const std::string& journal) {
  const auto counted = journal_column(journal, "SELECT count(*) FROM attempts WHERE released_at IS NOT NULL");
  return counted.empty() ? -1 : counted.front();
}

long long journal_bytes(const std::string& journal) {
  const auto bytes =
      journal_column(journal, "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()");
  return bytes.empty() ? 0 : bytes.front();
}

// The change feed's items, every page.
long long feed_items(const Site& site) {
  auto client = api_client(site);
  long long items = 0;
  long long after = 0;
  for (;;) {
    const auto answer =
        client->perform(api_request(HttpMethod::get, "/v1/events?limit=1000&after=" + std::to_string(after)));
    if (answer.response.status != 200) die("GET /v1/events: HTTP " + std::to_string(answer.response.status));
    const boost::json::object page = boost::json::parse(answer.response.body).as_object();
    const auto count = static_cast<long long>(page.at("events").as_array().size());
    const long long next = page.at("next").to_number<long long>();
    items += count;
    if (count == 0 || next == after) return items;
    after = next;
  }
}

// How slurmrestd answered the sweep, from serve's /metrics: its calls' answer times (the
// histogram's buckets, summed over every endpoint) and the request budget's adaptive rate.
struct Answers {
  std::map<double, double> within;  // upper bound in seconds -> calls answered within it
  double calls = 0;
  double rate = 0;
  // The smallest bucket bound that holds `share` of the calls (infinity past the last bound).
  double quantile(double share) const {
    for (const auto& [bound, count] : within) {
      if (count >= share * calls) return bound;
    }
    return std::numeric_limits<double>::infinity();
  }
};

Answers answers(const Site& site) {
  auto client = api_client(site);
  const auto answer = client->perform(api_request(HttpMethod::get, "/metrics"));
  if (answer.response.status != 200) die("GET /metrics: HTTP " + std::to_string(answer.response.status));
  Answers out;
  std::istringstream lines(answer.response.body);
  const std::string bucket = "tuneplane_slurm_rest_call_duration_seconds_bucket{";
  const std::string count = "tuneplane_slurm_rest_call_duration_seconds_count{";
  for (std::string line; std::getline(lines, line);) {
    const double value = std::strtod(line.c_str() + line.rfind(' ') + 1, nullptr);
    if (line.rfind(bucket, 0) == 0) {
      const auto le = line.find("le=\"");
      const std::string bound = line.substr(le + 4, line.find('"', le + 4) - le - 4);
      if (bound != "+Inf") out.within[std::stod(bound)] += value;
    } else if (line.rfind(count, 0) == 0) {
      out.calls += value;
    } else if (line.rfind("tuneplane_slurm_request_rate ", 0) == 0) {
      out.rate = value;
    }
  }
  return out;
}

struct Sweep {
  double t_201 = 0;
  double t_released = 0;
  long long released = 0;
  long long feed_items = 0;
  long long journal_bytes = 0;
  long long commits = 0;
  long long slurm_jobs = 0;
  double serve_cpu_s = 0;   // from the first request to the last release
  double intake_cpu_s = 0;  // serve's CPU until the last 201
  double quiet_cpu_s = 0;   // serve's CPU over kQuietWindow once the sweep is in Slurm
  Answers answers;          // when every attempt was released
};

// After the release, one poll interval (the default 10 s) for the poll to catch up, then the
// window over which serve's CPU is read while nothing happens: every live job still gets a pass
// each cycle (the pass is level-triggered), and that is what a quiet cycle costs.
constexpr std::chrono::seconds kSettle{10};
constexpr std::chrono::seconds kQuietWindow{10};

// Waits until every attempt is released, or the timeout; returns the seconds from `start`.
double wait_released(const Options& options, const Site& site, Steady::time_point start, long long& released) {
  const auto deadline = start + std::chrono::seconds(options.timeout_s);
  while (Steady::now() < deadline) {
    released = count_released(site.journal());
    if (released >= options.jobs) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return seconds_between(start, Steady::now());
}

// A client of the target's slurmrestd, for the listing and the cancels on a real server.
struct RealClient {
  explicit RealClient(const Target& target) : tokens(target.user, target.jwt_file, clock) {
    slurm::CurlTransportOptions options;
    options.url = target.url;
    options.total_timeout = std::chrono::minutes(2);
    auto made = slurm::CurlTransport::create(options);
    if (!made.ok()) die(made.error().message());
    transport = std::move(*made);
    slurm::RestClientOptions client_options;
    client_options.clock = &clock;
    auto rest = slurm::RestClient::create(*transport, tokens, "auto", client_options);
    if (!rest.ok()) die(rest.error().message());
    client = std::move(*rest);
  }
  // The ids of the jobs Slurm lists under names starting with `prefix` (with `live_only`, only
  // those that have not ended).
  std::set<std::uint32_t> listed(const std::string& prefix, bool live_only = false) {
    std::set<std::uint32_t> ids;
    const slurm::JobsResult all = client->jobs_changed_since(std::nullopt);
    if (!all.ok()) die("listing the real server's jobs: " + all.message);
    for (const auto& record : all.jobs) {
      if (live_only && record.state.is_terminal()) continue;
      if (record.name.rfind(prefix, 0) == 0) ids.insert(record.het_job_id.value_or(record.job_id));
    }
    return ids;
  }
  // Cancels every job listed under `prefix` that has not ended; returns how many.
  std::size_t cancel_all(const std::string& prefix) {
    const std::set<std::uint32_t> ids = listed(prefix, true);
    int failed = 0;
    for (const std::uint32_t id : ids) failed += cancelled_or_gone(client->cancel(slurm::JobRef{id})) ? 0 : 1;
    if (failed > 0) std::printf("  WARNING: %d of %zu cancels failed; check squeue\n", failed, ids.size());
    return ids.size();
  }
  // Cancels the jobs under `prefix`, then waits (at most `limit`) until Slurm lists none of
  // them: it forgets a job MinJobAge after it ended. Prints what it did for `what`.
  void clear(const std::string& prefix, const std::string& what, std::chrono::seconds limit) {
    const std::size_t cancelled = cancel_all(prefix);
    const auto start = Steady::now();
    std::size_t left = listed(prefix).size();
    while (left > 0 && Steady::now() - start < limit) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      left = listed(prefix).size();
    }
    const double waited = seconds_between(start, Steady::now());
    if (left == 0) {
      std::printf("  (cancelled the %zu jobs of %s; Slurm listed none of them %.0f s later)\n", cancelled, what.c_str(),
                  waited);
    } else {
      std::printf(
          "  (cancelled the %zu jobs of %s; %zu still listed after %.0f s: what follows shares the server "
          "with them)\n",
          cancelled, what.c_str(), left, waited);
    }
  }

  SystemClock clock;
  slurm::FileTokenSource tokens;
  std::unique_ptr<slurm::CurlTransport> transport;
  std::unique_ptr<slurm::RestClient> client;
};

// The Slurm jobs the sweep created: the simulator counts them; on a real server, the distinct
// ids the journal holds, plus any job listed under the sweep's names that the journal lacks.
long long slurm_jobs_created(const Site& site, Simulator& sim) {
  if (!site.target.real()) return number_after(sim.call(HttpMethod::get, "/sim/stats"), "jobs_created");
  const std::vector<long long> journaled =
      journal_column(site.journal(), "SELECT DISTINCT slurm_job_id FROM attempts WHERE slurm_job_id IS NOT NULL");
  const std::set<long long> ids(journaled.begin(), journaled.end());
  long long extra = 0;
  RealClient real(site.target);
  for (const std::uint32_t id : real.listed("tp-" + site.target.instance + "-")) extra += ids.count(id) == 0 ? 1 : 0;
  if (extra > 0) std::printf("  %lld job(s) listed under the sweep's names are not in the journal\n", extra);
  return static_cast<long long>(ids.size()) + extra;
}

Sweep sweep(const Options& options, const Target& target) {
  Simulator sim;
  if (!target.real()) start_simulator(sim, options.sim, "26.05.3");
  const Site site = make_site(target.real() ? target.url : sim.url, target);
  Serve serve(options.serve, site);
  wait_until_ready(site, serve);
  Sweep s;
  const long long commits_before = journal_commits(site.journal());
  const double cpu_before = cpu_seconds_of(serve.pid());
  const auto start = Steady::now();
  s.t_201 = run_from_clients("unix:" + site.socket(), options.clients, options.jobs, one_request(201, [](int i) {
                               char id[32];
                               std::snprintf(id, sizeof id, "burst-%04d", i);
                               return api_request(HttpMethod::post, "/v1/jobs", bench_request(id));
                             }));
  s.intake_cpu_s = cpu_seconds_of(serve.pid()) - cpu_before;
  s.t_released = wait_released(options, site, start, s.released);
  s.answers = answers(site);
  s.commits = journal_commits(site.journal()) - commits_before;
  s.feed_items = feed_items(site);
  s.serve_cpu_s = cpu_seconds_of(serve.pid()) - cpu_before;
  std::this_thread::sleep_for(kSettle);
  const double quiet_from = cpu_seconds_of(serve.pid());
  std::this_thread::sleep_for(kQuietWindow);
  s.quiet_cpu_s = cpu_seconds_of(serve.pid()) - quiet_from;
  serve.stop();
  s.slurm_jobs = slurm_jobs_created(site, sim);
  s.journal_bytes = journal_bytes(site.journal());
  std::error_code ignored;
  if (s.released >= options.jobs) fs::remove_all(site.dir, ignored);
  return s;
}

const char* verdict(bool met) { return met ? "met" : "MISSED"; }

void print(const Options& options, const Target& target, double t_raw, double t_held, const Sweep& s) {
  const double n = options.jobs;
  std::printf("  a) T_raw: %d raw held POSTs from %d connections: %.2f s (%.0f POSTs/s)\n", options.jobs,
              options.clients, t_raw, n / t_raw);
  std::printf("     T_held: the same POSTs, each followed by a GET of its job and its release: %.2f s = %.1f T_raw\n",
              t_held, t_held / t_raw);
  std::printf("  b) all %d answered 201 after %.2f s = %.1f T_raw  goal <= %g  %s\n", options.jobs, s.t_201,
              s.t_201 / t_raw, target.goal_201, verdict(s.t_201 <= target.goal_201 * t_raw));
  std::printf("     %lld of %d released in Slurm after %.2f s = %.1f T_raw  goal <= %g  %s  (= %.1f T_held)\n",
              s.released, options.jobs, s.t_released, s.t_released / t_raw, target.goal_released,
              verdict(s.released >= options.jobs && s.t_released <= target.goal_released * t_raw),
              s.t_released / t_held);
  std::printf("  c) change-feed items: %.2f per job  goal <= 5  %s\n", static_cast<double>(s.feed_items) / n,
              verdict(static_cast<double>(s.feed_items) <= 5 * n));
  std::printf("     journal: %s = %s per job  goal <= 4 kB  %s\n",
              human_bytes(static_cast<double>(s.journal_bytes)).c_str(),
              human_bytes(static_cast<double>(s.journal_bytes) / n).c_str(),
              verdict(static_cast<double>(s.journal_bytes) <= 4000 * n));
  std::printf("     journal commits: %lld = %.2f per attempt  goal <= 2  %s\n", s.commits,
              static_cast<double>(s.commits) / n, verdict(static_cast<double>(s.commits) <= 2 * n));
  std::printf("     Slurm jobs created: %lld  goal %d  %s\n", s.slurm_jobs, options.jobs,
              verdict(s.slurm_jobs == options.jobs));
  std::printf("     serve's CPU: %.2f s = %.1f ms per job: %.2f s until the last 201, %.2f s after it\n", s.serve_cpu_s,
              s.serve_cpu_s * 1000 / n, s.intake_cpu_s, s.serve_cpu_s - s.intake_cpu_s);
  std::printf(
      "     slurmrestd's answers: %.0f calls, half within %g ms, 99%% within %g ms; the adaptive rate at "
      "the last release: %.0f calls/s\n",
      s.answers.calls, s.answers.quantile(0.5) * 1000, s.answers.quantile(0.99) * 1000, s.answers.rate);
  std::printf("  d) quiet: serve's CPU over %lld s with the %lld jobs in Slurm and nothing changing: %.2f s\n",
              static_cast<long long>(kQuietWindow.count()), s.released, s.quiet_cpu_s);
}

Options parse_options(int argc, char** argv) {
  Options options;
  CLI::App app{"burst_bench: a sweep of LaunchRequests through serve's API, against raw POSTs", "burst_bench"};
  app.add_option("--sim", options.sim, "the slurmrestd-sim binary");
  app.add_option("--serve", options.serve, "the tuneplane-slurm binary");
  app.add_option("--jobs", options.jobs, "requests in the sweep")->check(CLI::Range(1, 100000));
  app.add_option("--clients", options.clients, "API clients (and raw connections)")->check(CLI::Range(1, 200));
  app.add_option("--timeout", options.timeout_s, "seconds to wait for every release")->check(CLI::Range(1, 86400));
  app.add_flag("--no-sim", options.no_sim, "skip the simulator (only a real server)");
  app.add_option("--real-url", options.real_url, "a real slurmrestd (with the three below)");
  app.add_option("--real-jwt-file", options.real_jwt_file, "its token file");
  app.add_option("--real-user", options.real_user, "its REST user");
  app.add_option("--real-partition", options.real_partition, "its partition");
  app.add_option("--set", options.settings, "KEY=VALUE for serve besides its defaults (repeatable)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    std::exit(app.exit(error));
  }
  const int real_flags = !options.real_url.empty() + !options.real_jwt_file.empty() + !options.real_user.empty() +
                         !options.real_partition.empty();
  if (real_flags != 0 && real_flags != 4) {
    die("--real-url, --real-jwt-file, --real-user and --real-partition go together; give all four");
  }
  if (options.no_sim && real_flags == 0) die("--no-sim leaves nothing to measure without the --real-* flags");
  for (const auto& binary : {options.sim, options.serve}) {
    if (!fs::exists(binary)) die(binary + " does not exist; build it or pass --sim / --serve");
  }
  return options;
}

// How long a real server is given to forget a baseline's jobs (the local Slurm's MinJobAge is 30 s).
constexpr std::chrono::seconds kClearLimit{120};

// One target: T_raw, then the sweep; on a real server, every job of the run cancelled after.
void measure(const Options& options, const Target& target) {
  std::string given;
  for (const auto& setting : target.settings) given += (given.empty() ? "" : ", ") + setting;
  std::printf("burst_bench: %d LaunchRequests from %d API clients through `serve` (%s), against\n", options.jobs,
              options.clients, given.empty() ? "its defaults" : given.c_str());
  std::printf("  %s; T_raw measured %s in the same run\n",
              target.real() ? ("the real slurmrestd at " + target.url + " (" + target.dialect + ")").c_str()
                            : "slurmrestd-sim 26.05.3 (v0.0.45)",
              target.real() ? "on the same server" : "on a fresh simulator");
  Target raw = target;
  raw.instance += "raw";
  const Site probe = make_site(target.real() ? target.url : "http://127.0.0.1:1", raw);
  const std::string body = held_submit_body(probe);
  std::error_code ignored;
  fs::remove_all(probe.dir, ignored);
  // On a real server each baseline's jobs are gone before the next part begins, so that each
  // part meets the server as T_raw did: with none of the run's jobs in it.
  const auto clear = [&](const std::string& what) {
    if (target.real()) RealClient(target).clear("tp-" + raw.instance, what, kClearLimit);
  };
  const double t_raw = raw_posts(options, target, body);
  clear("T_raw");
  const double t_held = raw_held_cycles(options, target, body);
  clear("T_held");
  Target swept = target;
  swept.instance += "api";
  const Sweep s = sweep(options, swept);
  print(options, target, t_raw, t_held, s);
  if (target.real()) {
    RealClient real(target);
    std::printf("     cancelled %zu jobs of this run\n", real.cancel_all("tp-" + target.instance));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::string instance = "bst" + std::to_string(::getpid());
  if (!options.no_sim) {
    measure(options, Target{"", "v0.0.45", "bench", "", "debug", instance + "s", 5, 10, options.settings});
  }
  if (!options.real_url.empty()) {
    measure(options, Target{options.real_url, "v0.0.38", options.real_user, options.real_jwt_file,
                            options.real_partition, instance + "r", 0.5, 2.5, options.settings});
  }
  return 0;
}
