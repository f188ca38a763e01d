// api_bench: what the platform API answers per second, and how fast, under wrk (Debian's
// wrk, a child process), each figure next to a baseline measured in the same run: a trivial
// handler (a fixed small JSON reply) on the same api::Server class, so the ratio is what the
// routes, the token check and the journal cost on top of the HTTP server itself.
//
//   api_bench [--duration S] [--connections C] [--threads T] [--waiters W] [--commit-rate R]
//             [--wrk PATH]
//
// In this process, on loopback: the real API (api::ApiService: api::Server + api::Routes over
// a real SQLite journal in a temporary state directory, a tokens file) and the baseline
// server. wrk runs S seconds (default 8, at most 600) with T threads (default 2) against:
//   a) the baseline: GET of the fixed reply, C connections (default 16, at most 200);
//   b) GET /v1/jobs/{id} of an existing job, C connections;
//   c) POST /v1/jobs, C connections, each request a valid LaunchRequest
//      (etc/launch-request.cpu-only.example.json) under a new job_id built in wrk's Lua from
//      the thread and a counter; Lua counts the 201s and keeps their job ids;
//   d) the change feed with W waiting clients (default 200, at most 240: the server takes
//      256 connections): each long-polls GET /v1/events?after=<latest>&wait=5s, passing on
//      the newest `next` its thread has seen, while this process commits a new job through
//      its own journal connection, as the daemon or the CLI would, R times a second (default
//      20, at most 1000; keep it well below the commits per second c) shows). Each commit
//      should answer every waiter once: answers / (W x commits) is printed beside the
//      latency, which includes the wait for the next commit (1/R).
// Each prints requests/s, p50 and p99 latency (wrk's own, from its Lua done()) and the ratio
// to the baseline. Afterwards every job id answered 201 must be in the journal exactly once
// (its row and one job.created event) and no job id may have been answered 201 twice;
// api_bench exits 1 naming the first such job otherwise. Jobs journaled whose 201 wrk did not
// see (in flight when it stopped) are counted, not failed.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "api/api_service.h"
#include "api/server.h"
#include "base/clock.h"
#include "bench_support.h"
#include "config/logging.h"
#include "config/settings_loader.h"
#include "journal/journal.h"
#include "model/catalogs.h"
#include "model/launch_request.h"
#include "operations/submission.h"
#include "storage/secret_key.h"

namespace {

using namespace tpslurm;
using namespace tpslurm::bench;
namespace fs = std::filesystem;

const std::string kToken = "api-bench-token-0123456789abcdef";
constexpr const char* kJobPrefix = "bench-";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) die("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const std::string& path, const std::string& text,
                fs::perms mode = fs::perms::owner_read | fs::perms::owner_write) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) die("cannot write " + path);
  fs::permissions(path, mode);
}

struct Options {
  int duration_s = 8;
  int connections = 16;
  int threads = 2;
  int waiters = 200;
  int commit_rate = 20;
  std::string wrk = "/usr/bin/wrk";
};

Options parse_options(int argc, char** argv) {
  Options options;
  CLI::App app{"api_bench: the platform API under wrk, against a baseline server in the same run", "api_bench"};
  app.add_option("--duration", options.duration_s, "seconds per run")->check(CLI::Range(1, 600));
  app.add_option("--connections", options.connections, "wrk's connections")->check(CLI::Range(1, 200));
  app.add_option("--threads", options.threads, "wrk's threads")->check(CLI::Range(1, 16));
  app.add_option("--waiters", options.waiters, "change-feed waiters")->check(CLI::Range(1, 240));
  app.add_option("--commit-rate", options.commit_rate, "journal commits per second")->check(CLI::Range(1, 1000));
  app.add_option("--wrk", options.wrk, "the wrk binary");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    std::exit(app.exit(error));
  }
  options.threads = std::min({options.threads, options.connections, options.waiters});
  if (!fs::exists(options.wrk)) die(options.wrk + " does not exist; install wrk (tools/setup) or pass --wrk PATH");
  return options;
}

// The API as `serve` runs it, over a fresh journal, and what the bench needs beside it.
struct Api {
  std::string dir;
  model::Settings settings;
  std::unique_ptr<model::Catalogs> catalogs;
  SystemClock clock;
  std::unique_ptr<api::ApiService> service;
};

void start_api(Api& api) {
  char pattern[] = "/tmp/api-bench-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) die("mkdtemp failed");
  api.dir = pattern;
  write_file(api.dir + "/api-tokens", "bench " + kToken + " read,submit\n");
  const std::string source = TP_SOURCE_DIR;
  config::Environment env{{"TUNEPLANE_STATE_DIR", api.dir + "/state"},
                          {"TUNEPLANE_STORAGE_ROOT", api.dir + "/storage"},
                          {"TUNEPLANE_GPU_SERIES_FILE", source + "/etc/gpu-series.example.json"},
                          {"TUNEPLANE_RUNTIME_REGISTRY_FILE", source + "/etc/runtime-registry.example.json"},
                          {"TUNEPLANE_INSTANCE", "bench"},
                          {"TUNEPLANE_API_LISTEN", "127.0.0.1:0"},
                          {"TUNEPLANE_API_TOKENS_FILE", api.dir + "/api-tokens"}};
  if (const char* home = std::getenv("HOME")) env.emplace("HOME", home);
  auto loaded = config::load_settings(env, std::nullopt, config::current_process_options());
  if (!loaded.ok()) die("settings: " + loaded.error().to_text());
  api.settings = loaded->settings;
  auto gpu = model::GpuSeriesCatalog::parse(read_file(api.settings.gpu_series_file), "gpu series");
  auto runtimes = model::RuntimeRegistry::parse(read_file(api.settings.runtime_registry_file), "runtimes");
  if (!gpu.ok() || !runtimes.ok()) die("the example catalogs do not parse");
  api.catalogs = std::make_unique<model::Catalogs>(model::Catalogs{std::move(*gpu), std::move(*runtimes)});
  fs::create_directories(api.settings.state_dir);
  fs::permissions(api.settings.state_dir, fs::perms::owner_all);
  auto service = api::ApiService::start(api.settings, *api.catalogs, api.clock);
  if (!service.ok()) die("the API did not start: " + service.error().message());
  api.service = std::move(*service);
}

std::unique_ptr<journal::Journal> open_journal(Api& api) {
  auto journal = journal::Journal::open(api.settings.journal_path, api.clock);
  if (!journal.ok()) die("journal: " + journal.error().message());
  return std::move(*journal);
}

std::string cpu_request_template() {
  std::string text = read_file(std::string(TP_SOURCE_DIR) + "/etc/launch-request.cpu-only.example.json");
  const std::string id = "\"prep-41d9e0\"";
  const auto at = text.find(id);
  if (at == std::string::npos) die("etc/launch-request.cpu-only.example.json has no job_id prep-41d9e0");
  return text.replace(at, id.size(), "\"JOBID\"");
}

// Journals one new job through the API's own logic on `journal`, as the CLI's submit does.
void submit(Api& api, journal::Journal& journal, const std::string& body) {
  auto request = model::parse_launch_request(
      body, {api.catalogs->gpu_series, api.catalogs->runtimes, api.settings.runtime_profile});
  if (!request.ok()) die("the bench's LaunchRequest is refused: " + request.error().to_text());
  static const std::string key = [&] {
    auto loaded = storage::load_state_key(api.settings.state_dir);
    if (!loaded.ok()) die("the local key: " + loaded.error().message());
    return *loaded;
  }();
  auto done = operations::submit_job(journal, api.settings, {*request, {}, "bench"}, key);
  if (!done.ok()) die("submit: " + done.error().message());
}

// What one wrk run reports through its Lua done().
struct WrkResult {
  double requests_per_s = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  long long requests = 0;
  long long non_2xx = 0;
  long long socket_errors = 0;
  long long created = 0;  // POST only: answers 201
};

// The Lua every run shares: the token header, per-thread counters summed in done(), which
// prints one RESULT line (latency in microseconds, wrk's own histogram).
std::string lua_common(const std::string& ids_file) {
  return R"LUA(
wrk.headers["Authorization"] = "Bearer )LUA" +
         kToken + R"LUA("
wrk.headers["Content-Type"] = "application/json"
local threads = {}
local next_id = 1
function setup(thread)
  thread:set("tid", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end
function init(args)
  counter = 0
  created = 0
  created_ids = ""
  after = tonumber(os.getenv("API_BENCH_AFTER") or "0")
end
function done(summary, latency, requests)
  local total_created = 0
  local ids = io.open(")LUA" +
         ids_file + R"LUA(", "w")
  for _, thread in ipairs(threads) do
    total_created = total_created + thread:get("created")
    ids:write(thread:get("created_ids"))
  end
  ids:close()
  local e = summary.errors
  io.write(string.format("RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d non2xx=%d socket=%d created=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status,
    e.connect + e.read + e.write + e.timeout, total_created))
end
)LUA";
}

std::string lua_submit(const std::string& body_template) {
  return R"LUA(
local template = [==[)LUA" +
         body_template + R"LUA(]==]
function request()
  counter = counter + 1
  local id = string.format(")LUA" +
         kJobPrefix + R"LUA(%d-%d", tid, counter)
  return wrk.format("POST", "/v1/jobs", nil, (template:gsub("JOBID", id)))
end
function response(status, headers, body)
  if status == 201 then
    created = created + 1
    created_ids = created_ids .. body:match('"job_id":"([^"]+)"') .. "\n"
  end
end
)LUA";
}

std::string lua_feed() {
  return R"LUA(
function request()
  return wrk.format("GET", "/v1/events?after=" .. after .. "&wait=5s")
end
function response(status, headers, body)
  local next_seq = tonumber(body:match('"next":(%d+)}%s*$') or "0")
  if next_seq > after then after = next_seq end
end
)LUA";
}

long long field(const std::string& line, const std::string& key) {
  const auto at = line.find(key + "=");
  if (at == std::string::npos) die("wrk's RESULT line has no " + key + ": " + line);
  return std::atoll(line.c_str() + at + key.size() + 1);
}

WrkResult run_wrk(const Options& options, const Api& api, const std::string& name, const std::string& url,
                  const std::string& lua, int connections, long long after = 0) {
  const std::string script = api.dir + "/" + name + ".lua";
  const std::string out = api.dir + "/" + name + ".out";
  write_file(script, lua);
  const std::string threads = std::to_string(std::min(options.threads, connections));
  std::vector<std::string> args{options.wrk,
                                "-t",
                                threads,
                                "-c",
                                std::to_string(connections),
                                "-d",
                                std::to_string(options.duration_s) + "s",
                                "--timeout",
                                "10s",
                                "--latency",
                                "-s",
                                script,
                                url};
  std::fflush(nullptr);  // or the child inherits this process's unwritten output
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ::dup2(fd, STDOUT_FILENO) < 0) _exit(127);
    ::setenv("API_BENCH_AFTER", std::to_string(after).c_str(), 1);
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    die("wrk (" + name + ") failed; its output: " + read_file(out));
  }
  const std::string text = read_file(out);
  const auto at = text.find("RESULT ");
  if (at == std::string::npos) die("wrk (" + name + ") printed no RESULT line: " + text);
  const std::string line = text.substr(at, text.find('\n', at) - at);
  WrkResult result;
  result.requests = field(line, "requests");
  const double seconds = static_cast<double>(field(line, "duration_us")) / 1e6;
  result.requests_per_s = seconds > 0 ? static_cast<double>(result.requests) / seconds : 0;
  result.p50_ms = static_cast<double>(field(line, "p50_us")) / 1000.0;
  result.p99_ms = static_cast<double>(field(line, "p99_us")) / 1000.0;
  result.non_2xx = field(line, "non2xx");
  result.socket_errors = field(line, "socket");
  result.created = field(line, "created");
  return result;
}

void print(const std::string& what, const WrkResult& r, const WrkResult& baseline) {
  std::printf(
      "%-34s %9.0f req/s (x%.2f)  p50 %7.2f ms (x%.1f)  p99 %7.2f ms (x%.1f)  non-2xx %lld  socket errors %lld\n",
      what.c_str(), r.requests_per_s, r.requests_per_s / baseline.requests_per_s, r.p50_ms, r.p50_ms / baseline.p50_ms,
      r.p99_ms, r.p99_ms / baseline.p99_ms, r.non_2xx, r.socket_errors);
}

// The journal's end, for the feed's first `after`.
long long latest_seq(journal::Journal& journal) {
  long long after = 0;
  while (true) {
    auto events = journal.events_after(after, 1000);
    if (!events.ok()) die("journal: " + events.error().message());
    if (events->empty()) return after;
    after = events->back().seq;
  }
}

// Commits a new job `rate` times a second on a connection of its own until `stop`.
long long commit_steadily(Api& api, int rate, const std::atomic<bool>& stop) {
  auto journal = open_journal(api);
  const std::string body = cpu_request_template();
  const auto interval = std::chrono::microseconds(1'000'000 / rate);
  auto next = Steady::now();
  long long commits = 0;
  while (!stop) {
    std::string text = body;
    text.replace(text.find("JOBID"), 5, "feed-" + std::to_string(commits));
    submit(api, *journal, text);
    ++commits;
    next += interval;
    std::this_thread::sleep_until(next);
  }
  return commits;
}

// Every id answered 201 in the journal exactly once; returns the jobs journaled without one.
long long check_journal(Api& api, const std::string& ids_file, long long created) {
  std::map<std::string, int> answered;
  std::istringstream lines(read_file(ids_file));
  for (std::string id; std::getline(lines, id);) {
    if (!id.empty()) ++answered[id];
  }
  long long listed = 0;
  for (const auto& [id, times] : answered) {
    listed += times;
    if (times != 1) die("job " + id + " was answered 201 " + std::to_string(times) + " times");
  }
  if (listed != created) die("wrk counted " + std::to_string(created) + " 201s but kept " + std::to_string(listed));
  auto journal = open_journal(api);
  std::map<std::string, int> journaled;
  for (long long after = 0;;) {
    auto events = journal->events_after(after, 10000);
    if (!events.ok()) die("journal: " + events.error().message());
    if (events->empty()) break;
    for (const auto& e : *events) {
      if (e.kind == "job.created" && e.job_id.starts_with(kJobPrefix)) ++journaled[e.job_id];
    }
    after = events->back().seq;
  }
  for (const auto& [id, times] : answered) {
    auto job = journal->job(id);
    if (!job.ok() || !job->has_value()) die("job " + id + " was answered 201 but is not in the journal");
    if (journaled[id] != 1) die("job " + id + " has " + std::to_string(journaled[id]) + " job.created events");
  }
  long long unseen = 0;
  for (const auto& [id, times] : journaled) {
    if (times != 1) die("job " + id + " has " + std::to_string(times) + " job.created events");
    if (!answered.contains(id)) ++unseen;
  }
  return unseen;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  if (Status logging = config::configure_logging("error", model::LogFormat::text); !logging.ok()) {
    die("logging: " + logging.error().message());
  }
  Api api;
  start_api(api);
  auto baseline_server =
      api::Server::start(*model::parse_listen_address("127.0.0.1:0"), {}, [](const api::ApiRequest&) {
        return api::json_reply(200, boost::json::object{{"job_id", "j1"}, {"phase", "running"}});
      });
  if (!baseline_server.ok()) die("the baseline server did not start: " + baseline_server.error().message());
  const std::string api_url = "http://127.0.0.1:" + std::to_string(api.service->server().port());
  const std::string base_url = "http://127.0.0.1:" + std::to_string((*baseline_server)->port());
  const std::string ids_file = api.dir + "/created-ids";
  const std::string common = lua_common(ids_file);
  {
    auto journal = open_journal(api);
    std::string body = cpu_request_template();
    submit(api, *journal, body.replace(body.find("JOBID"), 5, "existing-job"));
  }
  std::printf("api_bench: wrk %d s per run, %d threads; the baseline is a fixed JSON reply from the same api::Server\n",
              options.duration_s, options.threads);

  const WrkResult baseline = run_wrk(options, api, "baseline", base_url + "/", common, options.connections);
  print("baseline (fixed reply), c=" + std::to_string(options.connections), baseline, baseline);
  const WrkResult show = run_wrk(options, api, "show", api_url + "/v1/jobs/existing-job", common, options.connections);
  print("GET /v1/jobs/{id}, c=" + std::to_string(options.connections), show, baseline);
  const WrkResult post = run_wrk(options, api, "submit", api_url + "/v1/jobs",
                                 common + lua_submit(cpu_request_template()), options.connections);
  print("POST /v1/jobs, c=" + std::to_string(options.connections), post, baseline);
  const long long unseen = check_journal(api, ids_file, post.created);
  std::printf(
      "%-34s %lld answered 201 (of %lld), each in the journal once; %lld more journaled while in flight at the end\n",
      "", post.created, post.requests, unseen);

  std::atomic<bool> stop = false;
  long long commits = 0;
  long long after = 0;
  {
    auto journal = open_journal(api);
    after = latest_seq(*journal);
  }
  std::thread committer([&] { commits = commit_steadily(api, options.commit_rate, stop); });
  const WrkResult feed =
      run_wrk(options, api, "feed", api_url + "/v1/events", common + lua_feed(), options.waiters, after);
  stop = true;
  committer.join();
  print("GET /v1/events?wait, " + std::to_string(options.waiters) + " waiters", feed, baseline);
  const double ideal = static_cast<double>(options.waiters) * static_cast<double>(commits);
  std::printf("%-34s %lld commits at %d/s (one every %.1f ms): %lld answers = x%.2f of waiters x commits\n", "",
              commits, options.commit_rate, 1000.0 / options.commit_rate, feed.requests,
              ideal > 0 ? static_cast<double>(feed.requests) / ideal : 0.0);
  (*baseline_server)->stop();
  api.service.reset();
  std::error_code ignored;
  fs::remove_all(api.dir, ignored);
  return 0;
}
