// search_bench: what one search cycle for blocked attempts costs (SlurmClient::
// find_jobs_by_tags), the full listing next to the cheap way measured in the same run, against
// tools/slurmrestd-sim holding 10,000 and 100,000 live jobs, on 26.05.3 (v0.0.45) and on
// 22.05.8 (v0.0.38, which has no jobs/state and always lists in full). The whole run takes
// about half a minute on 2 shared cores (the 100,000-job v0.0.45 listing is 817 MB).
//
//   search_bench [--sim PATH] [--sizes 10000,100000] [--v38-sizes 10000,100000] [--tags T]
//                [--new K] [--quick]
//
// For each size N the simulator gets N bulk jobs (the journal's own: SearchOptions::known_ids)
// and T submitted jobs whose answers count as lost (the tags searched). Measured, each on its
// own client:
//   - full: SearchOptions::full, `GET jobs` (every record) and one slurmdbd call;
//   - cheap, cycle 1: a client that has read nothing yet; `jobs/state` lists every id and only
//     the T unknown ones are read by `GET job/{id}`;
//   - cheap, cycle 2: the same client after K new jobs appeared that nobody holds: the K new
//     ones and the T that carry the marks are read.
// Per row: REST calls (one GET diag on a client's first search included), records read one
// by one, bytes (request targets + bodies sent, response bodies received, client side), the
// client's peak resident set during the search above where it started (VmHWM), the
// client's CPU, the simulator's CPU (standing in for slurmrestd's; /proc, 10 ms ticks), wall
// time, and the ratios of time and bytes received against the full listing of the same N.
// --quick: N = 2,000 for both releases, K = 10 (seconds, for a smoke run). Prints numbers
// only; asserts nothing.
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_support.h"
#include "slurm/curl_transport.h"
#include "slurm/rest_client.h"

namespace {

using namespace tpslurm;
using namespace tpslurm::slurm;
using namespace tpslurm::bench;

std::vector<std::uint32_t> bulk(Simulator& sim, long long count) {
  std::vector<std::uint32_t> ids;
  while (count > 0) {
    const long long add = std::min<long long>(count, 100000);
    const std::string answer = sim.call(HttpMethod::post, "/sim/jobs/bulk",
                                        "{\"count\": " + std::to_string(add) + ", \"state\": \"PENDING\"}");
    const auto first = static_cast<std::uint32_t>(number_after(answer, "first_job_id"));
    const auto last = static_cast<std::uint32_t>(number_after(answer, "last_job_id"));
    for (std::uint32_t id = first; id <= last; ++id) ids.push_back(id);
    count -= add;
  }
  return ids;
}

model::SubmitDescription tagged(int i) {
  const std::string name = "tp-bench-search-" + std::to_string(i) + "-1";
  model::SubmitDescription description;
  description.tag = model::JobTag{name, "tuneplane:" + name + "-token", "/shared/tp/" + name};
  description.script = "#!/bin/bash\ntrue\n";
  description.environment = {{"PATH", "/usr/bin:/bin"}};
  description.components = {model::SubmitComponent{"debug", "", 1, 1, 1, 100, ""}};
  return description;
}

struct Run {
  Cost cost;
  BatchSearchResult result;
  double peak_growth = 0;  // the client's peak resident set during the search, above the start
};

class Bench {
 public:
  Bench(Simulator& sim, const std::string& dialect) : m_sim(sim), m_dialect(dialect) {
    CurlTransportOptions options;
    options.url = sim.url;
    options.total_timeout = std::chrono::minutes(10);
    auto curl = CurlTransport::create(options);
    if (!curl.ok()) die(curl.error().message());
    m_curl = std::move(curl).value();
    m_transport = std::make_unique<CountingTransport>(*m_curl);
  }

  std::unique_ptr<RestClient> client() {
    RestClientOptions options;
    options.request_timeout = std::chrono::minutes(1);
    auto made = RestClient::create(*m_transport, m_tokens, m_dialect, options);
    if (!made.ok()) die(made.error().message());
    return std::move(made).value();
  }

  Run search(RestClient& client, const std::vector<model::JobTag>& tags, const SearchOptions& options) {
    malloc_trim(0);
    reset_peak();
    const double resident_before = resident_bytes();
    Meter meter(*m_transport, m_sim.pid);
    Run run;
    run.result = client.find_jobs_by_tags(tags, m_intent, options);
    run.cost = meter.stop();
    run.peak_growth = std::max(0.0, peak_resident_bytes() - resident_before);
    if (!run.result.ok()) die("find_jobs_by_tags: " + run.result.message);
    for (std::size_t i = 0; i < tags.size(); ++i) {
      if (run.result.searches[i].matches.empty()) die("the search missed " + tags[i].name);
    }
    return run;
  }

  void set_intent(TimePoint intent) { m_intent = intent; }

 private:
  Simulator& m_sim;
  std::string m_dialect;
  std::unique_ptr<CurlTransport> m_curl;
  std::unique_ptr<CountingTransport> m_transport;
  AnyToken m_tokens;
  TimePoint m_intent;
};

void print_header() {
  std::printf("%8s  %-8s  %-30s %6s %6s %10s %11s %11s %10s %10s %10s %7s %7s  %s\n", "jobs", "version", "approach",
              "calls", "gets", "sent", "received", "client peak", "client CPU", "sim CPU", "wall ms", "time x",
              "bytes x", "note");
}

void print_row(long long n, const std::string& version, const std::string& approach, const Run& run, const Run* full,
               const std::string& note) {
  char time_ratio[16] = "-";
  char bytes_ratio[16] = "-";
  if (full != nullptr && full->cost.wall_ms > 0 && full->cost.bytes_received > 0) {
    std::snprintf(time_ratio, sizeof time_ratio, "%.4f", run.cost.wall_ms / full->cost.wall_ms);
    std::snprintf(bytes_ratio, sizeof bytes_ratio, "%.4f", run.cost.bytes_received / full->cost.bytes_received);
  }
  const bool complete = !run.result.searches.empty() && run.result.searches.front().complete();
  std::printf("%8lld  %-8s  %-30s %6.0f %6d %10s %11s %11s %10.1f %10.1f %10.1f %7s %7s  %s%s\n", n, version.c_str(),
              approach.c_str(), run.cost.calls, run.result.record_gets, human_bytes(run.cost.bytes_sent).c_str(),
              human_bytes(run.cost.bytes_received).c_str(), human_bytes(run.peak_growth).c_str(),
              run.cost.client_cpu_ms, run.cost.sim_cpu_ms, run.cost.wall_ms, time_ratio, bytes_ratio,
              complete ? "complete" : "not proof of absence", note.empty() ? "" : ("; " + note).c_str());
  std::fflush(stdout);
}

void bench_size(const std::string& binary, const std::string& release, const std::string& dialect, long long n,
                int tag_count, int new_jobs, bool cheap) {
  Simulator sim;
  start_simulator(sim, binary, release);
  Bench bench(sim, dialect);
  SearchOptions cheap_options;
  cheap_options.known_ids = bulk(sim, n);
  auto submitter = bench.client();
  std::vector<model::JobTag> tags;
  for (int i = 0; i < tag_count; ++i) {
    const auto description = tagged(i);
    const SubmitResult submitted = submitter->submit(description);
    if (!submitted.ok()) die("submit: " + submitted.message);
    tags.push_back(description.tag);
  }
  // The intent: an hour before the local now; the window (a day earlier) covers the jobs.
  bench.set_intent(std::chrono::system_clock::now() - std::chrono::hours(1));

  auto full_client = bench.client();
  SearchOptions full_options;
  full_options.full = true;
  const Run full = bench.search(*full_client, tags, full_options);
  print_row(n, dialect, "full listing (GET jobs)", full, nullptr, "");
  if (!cheap) {
    std::printf("%8s  %-8s  %-30s 22.05 has no jobs/state: every search is the full listing\n", "", dialect.c_str(),
                "cheap way");
    return;
  }
  auto cheap_client = bench.client();
  const Run first = bench.search(*cheap_client, tags, cheap_options);
  print_row(n, dialect, "cheap, cycle 1 (cache cold)", first, &full, std::to_string(n) + " ids known to the caller");
  bulk(sim, new_jobs);
  const Run second = bench.search(*cheap_client, tags, cheap_options);
  print_row(n, dialect, "cheap, cycle 2 (cache warm)", second, &full,
            std::to_string(new_jobs) + " new jobs nobody holds");
}

}  // namespace

int main(int argc, char** argv) {
  std::string sim_binary = default_simulator_path();
  std::string sizes_text = "10000,100000";
  std::string v38_text = "10000,100000";
  int tag_count = 3;
  int new_jobs = 50;
  bool quick = false;
  CLI::App app{"search_bench: the batch search by tag against per-tag searches", "search_bench"};
  app.add_option("--sim", sim_binary, "the slurmrestd-sim binary");
  app.add_option("--sizes", sizes_text, "job counts (v0.0.45), comma-separated");
  app.add_option("--v38-sizes", v38_text, "job counts (v0.0.38), comma-separated");
  app.add_option("--tags", tag_count, "tags searched at once")->check(CLI::Range(1, 1 << 30));
  app.add_option("--new", new_jobs, "jobs added between searches")->check(CLI::Range(0, 1 << 30));
  app.add_flag("--quick", quick, "small sizes, for a quick look");
  CLI11_PARSE(app, argc, argv);
  if (quick) {
    sizes_text = "2000";
    v38_text = "2000";
    new_jobs = 10;
  }
  if (!std::filesystem::exists(sim_binary)) {
    die(sim_binary +
        " does not exist; build it (cmake --build <build dir> --target slurmrestd-sim) or pass --sim PATH");
  }
  const std::vector<long long> sizes = parse_sizes("--sizes", sizes_text);
  const std::vector<long long> v38_sizes = parse_sizes("--v38-sizes", v38_text);

  std::printf("search_bench: slurmrestd-sim, %d tags searched, each size on a fresh simulator\n", tag_count);
  std::printf("  bytes sent = request targets + bodies, received = response bodies (client side); CPU in ms\n");
  std::printf("  (client: this process; sim: the simulator standing in for slurmrestd, 10 ms ticks)\n");
  std::printf("  calls include one GET diag (server clock) on each client's first search and one slurmdbd call\n");
  std::printf("  time x / bytes x: wall time and bytes received relative to the full listing of the same N\n\n");
  print_header();
  for (const long long n : sizes) bench_size(sim_binary, "26.05.3", "v0.0.45", n, tag_count, new_jobs, true);
  for (const long long n : v38_sizes) bench_size(sim_binary, "22.05.8", "v0.0.38", n, tag_count, new_jobs, false);
  return 0;
}
