// submit_bench: what the crash-safe submit protocol costs (reconcile::Controller against a
// Slurm REST API), each figure next to a raw POST of the same submit body to the same server
// measured in the same run, in both submit modes (held: submit held, identify, release;
// direct: submit released).
//
//   submit_bench [--sim PATH] [--no-sim] [--latency-jobs N] [--jobs J] [--quick] [--log LEVEL]
//                [--real-url URL --real-jwt-file F --real-user U --real-partition P]
//
// Targets: tools/slurmrestd-sim started here (--no-auth --manual-clock --timing manual,
// release 26.05.3, dialect v0.0.45) unless --no-sim, and, when the four --real-* flags are
// given, a real slurmrestd (dialect v0.0.38, as the local Slurm 22.05 speaks it).
// Figures, per target and mode:
//   a) latency: N jobs one after the other (add the job, run_once()); per job the time from the
//      intent commit ("prepared->submitting") to the receipt commit ("submitting->submitted",
//      direct) or to the release commit ("released", held); median and p90, divided by the
//      median of N raw POSTs (the body and headers the client sent, a fresh connection each).
//      Goals: <= 1.2 direct, <= 1.5 held. Held also prints the median of N raw sequences of
//      its three Slurm calls (held POST, GET by id, release) without the journal, the floor
//      that no journal can lower, and the protocol's latency divided by it.
//   b) throughput: J jobs journaled, then Controller::run() (4 threads, poll interval 1 s, no
//      request budget, no sweep) until the observer has seen J receipts; jobs per second
//      divided by the rate of J raw POSTs one after the other. Goal: >= 0.8.
//   c) journal writes per submitted attempt: the observer's steps plus the add_attempt, from the
//      latency run (one job at a time: each write its own commit); the average and each distinct
//      sequence. The throughput run prints SQLite's own count of commits (the wal-index change
//      counter) per attempt, where writes that wait together share a group commit.
// --quick: N = J = 20. Defaults: N = 200; J = 1000 on the simulator, 200 on the real cluster
// (--jobs sets both). Every job this bench created on the real cluster (raw POSTs and the
// reconciler's) is cancelled at the end. Prints numbers only; asserts nothing.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/digest.h"
#include "bench_site.h"
#include "bench_support.h"
#include "cli/inputs.h"
#include "config/logging.h"
#include "journal/journal.h"
#include "reconcile/controller.h"
#include "render/render_request.h"
#include "slurm/curl_transport.h"
#include "slurm/dialect.h"
#include "slurm/jwt_source.h"
#include "slurm/rest_client.h"
#include "storage/job_credential.h"

namespace {

using namespace tpslurm;
using namespace tpslurm::bench;
using tpslurm::slurm::HttpExchange;
using tpslurm::slurm::HttpMethod;
using tpslurm::slurm::HttpRequest;

const std::string kHmacKey(32, 'k');

double ms_between(Steady::time_point from, Steady::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto at = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(at, values.size() - 1)];
}

struct Target {
  std::string name;  // "slurmrestd-sim 26.05.3"
  std::string url;
  std::string dialect;
  std::string partition;
  slurm::TokenSource* tokens = nullptr;
  bool real = false;
};

// Forwards to a CurlTransport; keeps the first submit request it saw (to replay it raw) and the
// job id of every submit answer (to cancel them on a real cluster). Thread-safe.
class RecordingTransport final : public slurm::Transport {
 public:
  RecordingTransport(slurm::Transport& inner, const slurm::Dialect& dialect) : m_inner(inner), m_dialect(dialect) {}

  HttpExchange perform(const HttpRequest& request) override {
    HttpExchange exchange = m_inner.perform(request);
    std::lock_guard lock(m_mutex);
    if (request.method == HttpMethod::post && request.target == m_dialect.submit_path()) {
      if (!m_submit) m_submit = request;
      note_answer(exchange);
    } else if (request.method == HttpMethod::post && !m_release) {
      m_release = request;  // the only other POST the protocol sends: job update (the release)
    }
    return exchange;
  }
  std::string endpoint() const override { return m_inner.endpoint(); }

  void note_answer(const HttpExchange& exchange) {
    if (exchange.delivery != slurm::Delivery::answered) return;
    auto reply = m_dialect.decode_submit(exchange.response.body);
    if (reply.ok() && reply->job_id) created.insert(*reply->job_id);
  }

  std::optional<HttpRequest> submit_request() {
    std::lock_guard lock(m_mutex);
    return m_submit;
  }
  std::optional<HttpRequest> release_request() {
    std::lock_guard lock(m_mutex);
    return m_release;
  }

  std::set<std::uint32_t> created;  // guarded by m_mutex while the controller runs

 private:
  slurm::Transport& m_inner;
  const slurm::Dialect& m_dialect;
  std::mutex m_mutex;
  std::optional<HttpRequest> m_submit;
  std::optional<HttpRequest> m_release;
};

// What the observer saw of one attempt.
struct AttemptTrace {
  std::vector<std::string> steps;
  std::optional<Steady::time_point> intent, receipt, identified, release;
};

class Observer {
 public:
  void operator()(const journal::AttemptKey& key, std::string_view step) {
    const auto now = Steady::now();
    std::lock_guard lock(m_mutex);
    AttemptTrace& trace = m_traces[key.job_id + "/" + std::to_string(key.number)];
    trace.steps.emplace_back(step);
    if (step == "prepared->submitting") trace.intent = now;
    if (step == "submitting->submitted") {
      trace.receipt = now;
      ++receipts;
    }
    if (step == "identified") trace.identified = now;
    if (step == "released") trace.release = now;
  }
  std::map<std::string, AttemptTrace> traces() {
    std::lock_guard lock(m_mutex);
    return m_traces;
  }
  std::atomic<int> receipts = 0;

 private:
  std::mutex m_mutex;
  std::map<std::string, AttemptTrace> m_traces;
};

// One journal, attempt tree and client against one target, in a temporary directory; jobs are
// added as `submit` adds them (tests/reconcile/reconcile_fixture.cc).
class Bench {
 public:
  Bench(const Target& target, model::SubmitMode mode, const std::string& instance) : m_target(target) {
    m_dir = make_bench_site("submit_bench");
    settings.instance = instance;
    settings.storage_root = (m_dir / "storage").string();
    settings.state_dir = (m_dir / "state").string();
    settings.journal_path = (m_dir / "state/journal.db").string();
    settings.partition = target.partition;
    settings.cpu_partition = target.partition;
    settings.runtime_registry_file = (m_dir / "registry.json").string();
    settings.gpu_series_file = (m_dir / "gpu-series.json").string();
    settings.submit_mode = mode;
    settings.poll_interval = std::chrono::seconds(1);
    settings.resolve_quiet_period = std::chrono::seconds(1);
    auto catalogs = cli::load_catalogs(settings, "submit_bench");
    if (!catalogs.ok()) die(catalogs.error().to_text());
    m_catalogs = std::move(*catalogs);
    std::filesystem::create_directories(settings.state_dir);
    auto opened = journal::Journal::open(settings.journal_path, m_clock);
    if (!opened.ok()) die(opened.error().message());
    m_journal = std::move(*opened);

    m_dialect = slurm::make_dialect(target.dialect);
    if (!m_dialect) die("no dialect " + target.dialect);
    slurm::CurlTransportOptions options;
    options.url = target.url;
    options.total_timeout = std::chrono::minutes(1);
    auto curl = slurm::CurlTransport::create(options);
    if (!curl.ok()) die(curl.error().message());
    m_curl = std::move(*curl);
    m_transport = std::make_unique<RecordingTransport>(*m_curl, *m_dialect);
    slurm::RestClientOptions client_options;
    client_options.clock = &m_clock;
    auto client = slurm::RestClient::create(*m_transport, *target.tokens, target.dialect, client_options);
    if (!client.ok()) die(client.error().message());
    m_client = std::move(*client);
  }

  ~Bench() {
    std::error_code ignored;
    std::filesystem::remove_all(m_dir, ignored);
  }

  void add_job(const std::string& job_id) {
    const std::string request = bench_request(job_id, R"(["true"])", 5);
    const render::RenderCatalogs catalogs{m_catalogs.gpu_series, m_catalogs.runtimes};
    auto parsed = render::parse_request(request, catalogs, settings);
    if (!parsed.ok()) die(parsed.error().to_text());
    auto credential = storage::write_job_credential(settings.storage_root, job_id, *parsed->ingest_token, kHmacKey);
    if (!credential.ok()) die(credential.error().message());
    auto added = m_journal->add_job({job_id, parsed->canonical_json, sha256_hex(parsed->canonical_json),
                                     credential->path, credential->hmac, parsed->max_attempts});
    if (!added.ok()) die(added.error().message());
  }

  std::unique_ptr<reconcile::Controller> controller(Observer& observer, int threads) {
    return std::make_unique<reconcile::Controller>(reconcile::ControllerParts{
        *m_journal, *m_client, settings, m_catalogs, m_clock, kHmacKey, nullptr, threads, 0,
        [&observer](const journal::AttemptKey& key, std::string_view step) { observer(key, step); }});
  }

  // `count` POSTs of the submit request the client sent, one after the other, each on a fresh
  // connection; the time of each in ms.
  std::vector<double> raw_posts(int count) {
    auto request = m_transport->submit_request();
    if (!request) die("the reconciler sent no submit to replay");
    request->reuse = slurm::Reuse::forbidden;
    std::vector<double> times;
    for (int i = 0; i < count; ++i) {
      const auto start = Steady::now();
      const HttpExchange exchange = m_curl->perform(*request);
      times.push_back(ms_between(start, Steady::now()));
      if (exchange.delivery != slurm::Delivery::answered || exchange.response.status >= 300) {
        die("raw POST " + request->target + ": " + exchange.detail + " HTTP " +
            std::to_string(exchange.response.status) + " " + exchange.response.body);
      }
      m_transport->note_answer(exchange);
    }
    return times;
  }

  // `count` times the Slurm calls of a held submit without the journal: the submit POST (held)
  // on a fresh connection, GET of the job by its id and the release POST (both on one reused
  // connection, as the client sends them); the time of each sequence in ms.
  std::vector<double> raw_held_sequences(int count) {
    auto submit = m_transport->submit_request();
    auto release = m_transport->release_request();
    if (!submit || !release) die("the reconciler sent no held submit and release to replay");
    submit->reuse = slurm::Reuse::forbidden;
    std::vector<double> times;
    for (int i = 0; i < count; ++i) {
      const auto start = Steady::now();
      const HttpExchange answer = m_curl->perform(*submit);
      auto reply = m_dialect->decode_submit(answer.response.body);
      if (answer.delivery != slurm::Delivery::answered || !reply.ok() || !reply->job_id) {
        die("raw held POST: " + answer.detail + " HTTP " + std::to_string(answer.response.status));
      }
      m_transport->note_answer(answer);
      HttpRequest get = *submit;
      get.method = HttpMethod::get;
      get.target = m_dialect->job_path(std::to_string(*reply->job_id));
      get.body.clear();
      get.reuse = release->reuse;
      HttpRequest update = *release;
      update.target = m_dialect->update_path(*reply->job_id);
      for (const HttpRequest* request : {&get, &update}) {
        const HttpExchange exchange = m_curl->perform(*request);
        if (exchange.delivery != slurm::Delivery::answered || exchange.response.status >= 300) {
          die("raw " + request->target + ": " + exchange.detail + " HTTP " + std::to_string(exchange.response.status) +
              " " + exchange.response.body);
        }
      }
      times.push_back(ms_between(start, Steady::now()));
    }
    return times;
  }

  // Cancels every job a submit answer named, and anything else carrying this instance's name.
  int cancel_everything() {
    std::set<std::uint32_t> ids = m_transport->created;
    const std::string prefix = "tp-" + settings.instance + "-";
    slurm::JobsResult all = m_client->jobs_changed_since(std::nullopt);
    for (const auto& record : all.jobs) {
      if (record.name.rfind(prefix, 0) == 0) ids.insert(record.het_job_id.value_or(record.job_id));
    }
    int failed = 0;
    for (const std::uint32_t id : ids) {
      if (!cancelled_or_gone(m_client->cancel(slurm::JobRef{id}))) ++failed;
    }
    if (failed > 0) std::printf("  WARNING: %d of %zu cancels failed; check squeue\n", failed, ids.size());
    return static_cast<int>(ids.size());
  }

  model::Settings settings;

 private:
  const Target& m_target;
  std::filesystem::path m_dir;
  SystemClock m_clock;
  model::Catalogs m_catalogs;
  std::unique_ptr<journal::Journal> m_journal;
  std::unique_ptr<slurm::Dialect> m_dialect;
  std::unique_ptr<slurm::CurlTransport> m_curl;
  std::unique_ptr<RecordingTransport> m_transport;
  std::unique_ptr<slurm::RestClient> m_client;
};

std::string_view mode_name(model::SubmitMode mode) { return mode == model::SubmitMode::held ? "held" : "direct"; }

std::string instance_name(const Target& target, model::SubmitMode mode, std::string_view figure) {
  return std::string("sb") + std::to_string(::getpid()) + (target.real ? "r" : "s") + std::string(mode_name(mode)) +
         std::string(figure);
}

void latency_and_commits(const Target& target, model::SubmitMode mode, int jobs) {
  Bench bench(target, mode, instance_name(target, mode, "l"));
  Observer observer;
  auto controller = bench.controller(observer, 4);
  for (int i = 0; i < jobs; ++i) {
    bench.add_job("lat-" + std::to_string(i));
    controller->run_once();
  }
  const bool held = mode == model::SubmitMode::held;
  std::vector<double> protocol, to_receipt, to_identified, to_release;
  std::map<std::vector<std::string>, int> sequences;
  double commits = 0;
  int missing = 0;
  const auto traces = observer.traces();
  for (const auto& [key, trace] : traces) {
    const auto& end = held ? trace.release : trace.receipt;
    if (trace.intent && end) {
      protocol.push_back(ms_between(*trace.intent, *end));
      if (held && trace.receipt && trace.identified) {
        to_receipt.push_back(ms_between(*trace.intent, *trace.receipt));
        to_identified.push_back(ms_between(*trace.receipt, *trace.identified));
        to_release.push_back(ms_between(*trace.identified, *end));
      }
    } else {
      ++missing;
    }
    ++sequences[trace.steps];
    commits += static_cast<double>(trace.steps.size() + 1);  // + the add_attempt
  }
  const std::vector<double> raw = bench.raw_posts(jobs);
  const double raw_median = quantile(raw, 0.5);
  const double median = quantile(protocol, 0.5);
  const double p90 = quantile(protocol, 0.9);
  const double goal = held ? 1.5 : 1.2;
  const double ratio = raw_median > 0 ? median / raw_median : 0;
  std::printf(
      "  %-6s a) latency, intent -> %-7s  median %8.2f ms  p90 %8.2f ms | raw POST median %7.2f ms p90 %7.2f ms"
      " | ratio %5.2f (p90 %5.2f)  goal <= %.1f  %s\n",
      std::string(mode_name(mode)).c_str(), held ? "release" : "receipt", median, p90, raw_median, quantile(raw, 0.9),
      ratio, raw_median > 0 ? p90 / raw_median : 0, goal, ratio <= goal ? "met" : "MISSED");
  if (held) {
    // The protocol's own Slurm calls, which no journal can make cheaper: what the rest costs.
    const std::vector<double> calls = bench.raw_held_sequences(jobs);
    const double calls_median = quantile(calls, 0.5);
    std::printf(
        "  %-6s a') the same three Slurm calls without the journal (held POST, GET, release) median %7.2f ms"
        " = %5.2f raw POSTs | protocol / these calls %5.2f\n",
        "held", calls_median, raw_median > 0 ? calls_median / raw_median : 0,
        calls_median > 0 ? median / calls_median : 0);
    std::printf(
        "         medians of its parts: intent -> receipt %.2f ms, -> identified %.2f ms, -> released %.2f ms\n",
        quantile(to_receipt, 0.5), quantile(to_identified, 0.5), quantile(to_release, 0.5));
  }
  if (missing > 0) std::printf("         %d of %zu attempts did not reach that commit\n", missing, traces.size());
  std::printf(
      "  %-6s c) journal writes per submitted attempt (each a commit of its own when it waits alone; "
      "writes that wait together share one): %.2f on average over %zu attempts\n",
      std::string(mode_name(mode)).c_str(), traces.empty() ? 0.0 : commits / static_cast<double>(traces.size()),
      traces.size());
  for (const auto& [steps, count] : sequences) {
    std::string text = "add_attempt";
    for (const auto& step : steps) text += ", " + step;
    std::printf("         %zu writes x %d attempts: %s\n", steps.size() + 1, count, text.c_str());
  }
  if (target.real) std::printf("         cancelled %d jobs of this run\n", bench.cancel_everything());
  std::fflush(stdout);
}

void throughput(const Target& target, model::SubmitMode mode, int jobs) {
  Bench bench(target, mode, instance_name(target, mode, "t"));
  for (int i = 0; i < jobs; ++i) bench.add_job("thr-" + std::to_string(i));
  Observer observer;
  auto controller = bench.controller(observer, 4);
  const long long commits_before = journal_commits(bench.settings.journal_path);
  const auto start = Steady::now();
  std::thread daemon([&] { controller->run(); });
  const auto limit = start + std::chrono::seconds(30) + std::chrono::milliseconds(200) * jobs;
  while (observer.receipts < jobs && Steady::now() < limit) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const auto done = Steady::now();
  const int seen = observer.receipts;
  const long long commits = journal_commits(bench.settings.journal_path) - commits_before;
  controller->request_stop();
  daemon.join();
  const double seconds = ms_between(start, done) / 1000;
  const double rate = seconds > 0 ? seen / seconds : 0;
  const std::vector<double> raw = bench.raw_posts(jobs);
  double raw_ms = 0;
  for (const double t : raw) raw_ms += t;
  const double raw_rate = raw_ms > 0 ? jobs / (raw_ms / 1000) : 0;
  const double ratio = raw_rate > 0 ? rate / raw_rate : 0;
  std::printf(
      "  %-6s b) throughput, %d jobs: %5d receipts in %7.2f s = %7.1f jobs/s | %d raw POSTs in sequence"
      " %7.1f /s | ratio %5.2f  goal >= 0.8  %s\n",
      std::string(mode_name(mode)).c_str(), jobs, seen, seconds, rate, jobs, raw_rate, ratio,
      ratio >= 0.8 ? "met" : "MISSED");
  std::printf("         %lld journal commits (SQLite's count) until the last receipt: %.2f per attempt\n", commits,
              seen > 0 ? static_cast<double>(commits) / seen : 0.0);
  if (seen < jobs) std::printf("         stopped after the time limit with %d of %d receipts\n", seen, jobs);
  if (target.real) std::printf("         cancelled %d jobs of this run\n", bench.cancel_everything());
  std::fflush(stdout);
}

void run_target(const Target& target, int latency_jobs, int jobs) {
  std::printf("\n%s (%s, %s, partition %s): latency over %d jobs, throughput over %d\n", target.name.c_str(),
              target.url.c_str(), target.dialect.c_str(), target.partition.c_str(), latency_jobs, jobs);
  for (const auto mode : {model::SubmitMode::direct, model::SubmitMode::held}) {
    latency_and_commits(target, mode, latency_jobs);
    throughput(target, mode, jobs);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string sim_binary = default_simulator_path();
  bool use_sim = true;
  bool quick = false;
  int latency_jobs = 200;
  int jobs = 0;  // 0: the target's default
  std::string log_level = "error";
  std::string real_url, real_jwt_file, real_user, real_partition;
  CLI::App app{"submit_bench: jobs reaching Slurm, against a baseline measured in the same run", "submit_bench"};
  app.add_option("--sim", sim_binary, "the slurmrestd-sim binary");
  bool no_sim = false;
  app.add_flag("--no-sim", no_sim, "skip the simulator (only a real server)");
  app.add_option("--latency-jobs", latency_jobs, "jobs for the latency run")->check(CLI::Range(1, 1 << 30));
  app.add_option("--jobs", jobs, "jobs per run (default: the target's)")->check(CLI::Range(1, 1 << 30));
  app.add_flag("--quick", quick, "small runs, for a quick look");
  app.add_option("--log", log_level, "the daemon's log level");
  app.add_option("--real-url", real_url, "a real slurmrestd (with the three below)");
  app.add_option("--real-jwt-file", real_jwt_file, "its token file");
  app.add_option("--real-user", real_user, "its REST user");
  app.add_option("--real-partition", real_partition, "its partition");
  CLI11_PARSE(app, argc, argv);
  use_sim = !no_sim;
  if (quick) {
    latency_jobs = 20;
    jobs = 20;
  }
  const bool use_real = !real_url.empty() || !real_jwt_file.empty() || !real_user.empty() || !real_partition.empty();
  if (use_real && (real_url.empty() || real_jwt_file.empty() || real_user.empty() || real_partition.empty())) {
    die("--real-url, --real-jwt-file, --real-user and --real-partition go together; give all four");
  }
  if (Status logging = config::configure_logging(log_level, model::LogFormat::text); !logging.ok()) {
    die("--log " + log_level + ": " + logging.error().message());
  }

  std::printf("submit_bench: the submit protocol (reconcile::Controller, sqlite journal, sweep off, no request\n");
  std::printf("  budget) next to raw POSTs of the same body on fresh connections, same server, same run\n");
  std::printf("  a) ratio = median protocol latency / median raw POST; b) ratio = jobs/s / raw POSTs/s\n");
  if (use_sim) {
    if (!std::filesystem::exists(sim_binary)) {
      die(sim_binary +
          " does not exist; build it (cmake --build <build dir> --target slurmrestd-sim) or pass --sim PATH");
    }
    Simulator sim;
    start_simulator(sim, sim_binary, "26.05.3");
    AnyToken tokens;
    const Target target{"slurmrestd-sim 26.05.3", sim.url, "v0.0.45", "debug", &tokens, false};
    run_target(target, latency_jobs, jobs > 0 ? jobs : 1000);
  }
  if (use_real) {
    SystemClock clock;
    slurm::FileTokenSource tokens(real_user, real_jwt_file, clock);
    const Target target{"real Slurm", real_url, "v0.0.38", real_partition, &tokens, true};
    run_target(target, latency_jobs, jobs > 0 ? jobs : 200);
  }
  return 0;
}
