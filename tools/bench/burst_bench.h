// The parts of burst_bench (burst_bench.cc) its other files share: the run's options, the
// slurmrestd it is measured against, a sweep's temporary site, and the clients that send one
// request (or a few) per item from C connections, with the raw baselines T_raw and T_held built
// on them (burst_raw.cc). Every function dies (bench_support.h's die()) on what it cannot do.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bench_support.h"
#include "slurm/curl_transport.h"

namespace tpslurm::bench::burst {

using tpslurm::slurm::HttpMethod;
using tpslurm::slurm::HttpRequest;
namespace fs = std::filesystem;

inline const std::string kApiToken = "burst-bench-token-0123456789abcdef";
// A well-formed token that never expires; the simulator runs with --no-auth.
inline const std::string kSlurmJwt =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjQxMDI0NDQ4MDAsImlhdCI6MTcwMDAwMDAwMCwic3VuIjoiYmVuY2gifQ."
    "c3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3M";

struct Options {
  std::string sim = default_simulator_path();
  std::string serve =
      (fs::read_symlink("/proc/self/exe").parent_path().parent_path().parent_path() / "src" / "tuneplane-slurm")
          .string();
  int jobs = 1000;
  int clients = 16;
  int timeout_s = 900;
  bool no_sim = false;
  std::string real_url, real_jwt_file, real_user, real_partition;
  std::vector<std::string> settings;  // --set KEY=VALUE: serve's environment besides its defaults
};

// The slurmrestd a run is measured against: the simulator, or a real one.
struct Target {
  std::string url;       // empty for the simulator: each part starts a fresh one
  std::string dialect;   // what the raw POSTs are encoded in
  std::string user;      // X-SLURM-USER-NAME
  std::string jwt_file;  // empty: the never-expiring token the simulator takes (--no-auth)
  std::string partition;
  std::string instance;  // TUNEPLANE_INSTANCE: jobs are named tp-<instance>-...
  double goal_201 = 5;   // in T_raw
  double goal_released = 10;
  std::vector<std::string> settings;  // KEY=VALUE for serve, besides its defaults
  bool real() const { return !url.empty(); }
};

inline double seconds_between(Steady::time_point from, Steady::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// The temporary directory of one sweep: catalogs, storage, state, secrets and serve's log.
struct Site {
  fs::path dir;
  std::string url;  // slurmrestd's
  Target target;

  std::string jwt_file() const { return target.jwt_file.empty() ? (dir / "slurm.jwt").string() : target.jwt_file; }
  // The environment `serve` runs with: its defaults but for where things are.
  std::vector<std::string> environment() const {
    std::vector<std::string> env = defaults();
    env.insert(env.end(), target.settings.begin(), target.settings.end());
    return env;
  }
  std::vector<std::string> defaults() const {
    return {"TUNEPLANE_STATE_DIR=" + (dir / "state").string(),
            "TUNEPLANE_STORAGE_ROOT=" + (dir / "storage").string(),
            "TUNEPLANE_RUNTIME_REGISTRY_FILE=" + (dir / "registry.json").string(),
            "TUNEPLANE_GPU_SERIES_FILE=" + (dir / "gpu-series.json").string(),
            "TUNEPLANE_INSTANCE=" + target.instance,
            "TUNEPLANE_SLURM_PARTITION=" + target.partition,
            "TUNEPLANE_SLURM_REST_URL=" + url,
            "TUNEPLANE_SLURM_REST_USER=" + target.user,
            "TUNEPLANE_SLURM_JWT_FILE=" + jwt_file(),
            "TUNEPLANE_API_LISTEN=unix:" + socket(),
            "TUNEPLANE_API_TOKENS_FILE=" + (dir / "api-tokens").string(),
            "TUNEPLANE_LOG_LEVEL=warn",
            "HOME=" + dir.string()};
  }
  std::string socket() const { return (dir / "api.sock").string(); }
  std::string journal() const { return (dir / "state/journal.db").string(); }
};

// A site under $TMPDIR for slurmrestd at `url`, with the token files serve reads.
Site make_site(const std::string& url, const Target& target);

// The held submit body `serve` would send for the sweep's first request, in the target's dialect.
std::string held_submit_body(const Site& site);

// What one client does with item i of a run, on its own connection: empty, or why it failed.
using ClientWork = std::function<std::string(slurm::CurlTransport&, int)>;

// C connections, each doing its share of `count` items one after the other; returns the seconds
// until the last is done. Dies when any item failed, naming the first failure.
double run_from_clients(const std::string& url, int clients, int count, const ClientWork& work);

// Sends `request`: its answer's body when it came with `expected`, else why not (in `failure`).
std::string exchange(slurm::CurlTransport& transport, const HttpRequest& request, int expected, std::string& failure);

// Each item one request, answered `expected`.
ClientWork one_request(int expected, std::function<HttpRequest(int)> request_of);

// A request to slurmrestd or to serve's API, with the headers each wants.
HttpRequest http_request(HttpMethod method, std::string target_path, std::string body,
                         const std::vector<std::pair<std::string, std::string>>& headers);

// T_raw: N raw POSTs of the held submit body.
double raw_posts(const Options& options, const Target& target, const std::string& body);

// T_held: held mode's own three calls for each of N jobs, raw — the held POST, a GET of the job
// its answer names, the hold's release — from C connections: what the server alone needs to
// take a sweep in held mode, with no journal, no files and no checks.
double raw_held_cycles(const Options& options, const Target& target, const std::string& body);

}  // namespace tpslurm::bench::burst
