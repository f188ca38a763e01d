#include "config/setting_keys.h"

#include <algorithm>
#include <vector>

namespace tpslurm::config {
namespace {

constexpr SettingKey kKeys[] = {
    {"TUNEPLANE_SLURM_REST_URL", "http://127.0.0.1:6820", "slurmrestd's address: http(s)://HOST:PORT or unix:/PATH"},
    {"TUNEPLANE_SLURM_REST_API_VERSION", "auto",
     "REST version: auto (the newest the server offers, chosen at start) or one of v0.0.45, v0.0.44, v0.0.43, v0.0.42, "
     "v0.0.41, v0.0.40, v0.0.38"},
    {"TUNEPLANE_SLURM_REST_USER", "", "the Slurm user jobs run as (the JWT's `sun`)"},
    {"TUNEPLANE_SLURM_JWT_FILE", "", "file holding the JWT (`SLURM_JWT=<token>` or the bare token); re-read on change",
     true},
    {"TUNEPLANE_SLURM_JWT_KEY_FILE", "",
     "opt-in instead of a token file: the cluster's HS256 key, to mint tokens for the REST user only", true},
    {"TUNEPLANE_SLURM_JWT_LIFESPAN", "1800s", "lifespan of minted tokens (refreshed at 80 %)"},
    {"TUNEPLANE_SLURM_PARTITION", "", "partition for GPU jobs (a request's spec.partition overrides it)"},
    {"TUNEPLANE_SLURM_CPU_PARTITION", "the partition", "partition for CPU-only jobs"},
    {"TUNEPLANE_SLURM_ACCOUNT", "", "default Slurm account (spec.slurm.account overrides it)"},
    {"TUNEPLANE_SLURM_QOS", "", "default QoS"},
    {"TUNEPLANE_SLURM_RESERVATION", "", "default reservation"},
    {"TUNEPLANE_SLURM_WCKEY", "", "default wckey"},
    {"TUNEPLANE_INSTANCE", "the journal's, else derived from the host name",
     "short id in every job name (tp-<instance>-<job>-<attempt>); keeps two deployments on one cluster apart"},
    {"TUNEPLANE_SLURM_RUNTIME_PROFILE", "enroot-pyxis",
     "container runtime on the compute nodes: enroot-pyxis or apptainer"},
    {"TUNEPLANE_STORAGE_ROOT", "", "the shared filesystem root as this host sees it (attempt directories, artifacts)"},
    {"TUNEPLANE_SLURM_STORAGE_ROOT", "the storage root",
     "the same storage as the compute nodes see it, if mounted elsewhere"},
    {"TUNEPLANE_SLURM_JOB_PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
     "the PATH every job starts with: put the directory of the site's srun first when Slurm is not installed under "
     "/usr (e.g. /opt/slurm/bin:/usr/local/bin:/usr/bin:/bin)"},
    {"TUNEPLANE_STORAGE_GROUP", "",
     "group shared by the service account and the job user: attempts are created with it (empty: one user)"},
    {"TUNEPLANE_IDENTITY_MODE", "one-user",
     "one-user: every job runs as TUNEPLANE_SLURM_REST_USER; per-user: each job runs as the Unix user "
     "TUNEPLANE_USER_MAP_FILE gives its request's user"},
    {"TUNEPLANE_USER_MAP_FILE", "",
     "per-user mode: the user map (JSON): each platform user's Unix user, accounts, QoS, partitions and live-job limit"},
    {"TUNEPLANE_FIRST_USER_ID", "1000",
     "per-user mode: the lowest uid a mapped Unix user may have (below it are system accounts)"},
    {"TUNEPLANE_SLURM_TLS_VERIFY", "1", "verify slurmrestd's TLS certificate (1 or 0)"},
    {"TUNEPLANE_SLURM_CA_FILE", "", "CA bundle for slurmrestd's certificate"},
    {"TUNEPLANE_SLURM_CONNECT_TIMEOUT", "5s", "time to establish the connection to slurmrestd"},
    {"TUNEPLANE_SLURM_REQUEST_TIMEOUT", "60s",
     "longest one REST exchange may take, connecting included; minted tokens are refreshed this much early"},
    {"TUNEPLANE_SLURM_LOW_SPEED_LIMIT", "0",
     "bytes/s below which a transfer is abandoned after TUNEPLANE_SLURM_LOW_SPEED_TIME (0 = off)"},
    {"TUNEPLANE_SLURM_LOW_SPEED_TIME", "30s", "how long a transfer may stay below TUNEPLANE_SLURM_LOW_SPEED_LIMIT"},
    {"TUNEPLANE_SLURM_PROXY", "",
     "explicit proxy for slurmrestd (http://HOST:PORT, ...); *_proxy variables are never used"},
    {"TUNEPLANE_SLURM_ALLOW_INSECURE_HTTP", "0",
     "1 allows sending the JWT over plain http:// to a host that is not loopback"},
    {"TUNEPLANE_RUNTIME_REGISTRY_FILE", "", "the runtime registry (JSON): SQSH/SIF artifacts with SHA-256"},
    {"TUNEPLANE_GPU_SERIES_FILE", "", "the GPU series catalog (JSON): slurm_constraint and GRES per series"},
    {"TUNEPLANE_JOURNAL", "<state dir>/journal.db", "the SQLite journal (must be on a local filesystem)"},
    {"TUNEPLANE_STATE_DIR", "/var/lib/tuneplane-slurm (root) or ~/.local/state/tuneplane-slurm",
     "local state: journal, lock, local key"},
    {"TUNEPLANE_POLL_INTERVAL", "10s", "how often Slurm is polled"},
    {"TUNEPLANE_PASS_THREADS", "16",
     "passes `serve` runs at once (1 to 64): how many jobs are prepared, submitted and released concurrently"},
    {"TUNEPLANE_SUBMIT_MODE", "held",
     "held: every job is submitted held and released after its identity check (no copy can run before the journal "
     "holds it); direct: submitted runnable"},
    {"TUNEPLANE_SLURM_REQUEST_RATE", "1000",
     "most calls to slurmrestd per second: the ceiling of the adaptive call rate (1 to 100000)"},
    {"TUNEPLANE_SLURM_REQUEST_RATE_FLOOR", "10",
     "calls per second below which slow or failed answers never halve the rate (1 to 100000; at most the "
     "ceiling)"},
    {"TUNEPLANE_SLURM_SLOW_ANSWER", "1s",
     "an answer from slurmrestd slower than this halves the call rate (1s to 10m)"},
    {"TUNEPLANE_SLURM_SLOW_FACTOR", "8",
     "an answer about one job (submit, read, release, cancel) that takes this many times the quickest of its "
     "kind in the last 10 to 20 s, and over 10 ms, is late; a second with half of them late halves the call "
     "rate too (2 to 1000; 0: off)"},
    {"TUNEPLANE_SLURM_BACKOFF_INITIAL", "1s",
     "after two calls in a row that find slurmrestd struggling or unreachable, the wait before the next "
     "one; doubled after each further failure"},
    {"TUNEPLANE_SLURM_BACKOFF_MAX", "5m", "the longest such wait (at least TUNEPLANE_SLURM_BACKOFF_INITIAL)"},
    {"TUNEPLANE_SLURM_BULK_MAX_IDS", "500", "job ids in one bulk state query (1 to 5000)"},
    {"TUNEPLANE_SLURM_BULK_MAX_URL_BYTES", "8000",
     "longest request target (path and query) of one bulk state query, in bytes (1000 to 65536)"},
    {"TUNEPLANE_RESOLVE_QUIET_PERIOD", "30m", "how long after a lost submit answer `resolve --absent` stays refused"},
    {"TUNEPLANE_MAX_PENDING", "0s",
     "a job pending longer than this is cancelled and fails with the time it waited; 0s: no limit (up to 30d)"},
    {"TUNEPLANE_INFRA_RETRIES", "5",
     "attempts retried after the cluster ended them (PREEMPTED, NODE_FAIL, BOOT_FAIL), per job, beside the "
     "request's own max_attempts, which they do not use (0 to 100)"},
    {"TUNEPLANE_INFRA_RETRY_BACKOFF", "30s",
     "the wait before the first such retry, from the end of the attempt's cleanup; doubled for each later one, at "
     "most 30m (0s to 30m)"},
    {"TUNEPLANE_COMPLETING_WARN_AFTER", "30m",
     "a job still COMPLETING (or STAGE_OUT) after this raises a warning event; its cleanup keeps waiting (1m to 7d)"},
    {"TUNEPLANE_ATTEMPT_RETENTION", "0s",
     "closed attempts' directories are removed this long after their cleanup closed; the journal keeps their "
     "record; 0s: kept for ever (up to 3650d)"},
    {"TUNEPLANE_API_LISTEN", "127.0.0.1:8740",
     "where `serve` answers the platform API: IPV4:PORT, [IPV6]:PORT or unix:/PATH (the socket is made 0660)"},
    {"TUNEPLANE_API_TOKENS_FILE", "",
     "the platform API's bearer tokens, one `NAME TOKEN` line each; re-read on change; unset: no API", true},
    {"TUNEPLANE_API_TLS_CERT", "",
     "the API's TLS certificate chain (PEM); with TUNEPLANE_API_TLS_KEY the API answers HTTPS only; unset: HTTP"},
    {"TUNEPLANE_API_TLS_KEY", "", "the private key of TUNEPLANE_API_TLS_CERT (PEM)", true},
    {"TUNEPLANE_LOG_LEVEL", "info", "trace, debug, info, warn, error or off"},
    {"TUNEPLANE_LOG_FORMAT", "text", "text or json"},
};

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

constexpr std::string_view kRestApiVersions[] = {"v0.0.45", "v0.0.44", "v0.0.43", "v0.0.42",
                                                 "v0.0.41", "v0.0.40", "v0.0.38"};

std::span<const std::string_view> rest_api_versions() { return kRestApiVersions; }

std::span<const SettingKey> setting_keys() { return kKeys; }

const SettingKey* find_setting_key(std::string_view name) {
  for (const auto& key : kKeys) {
    if (key.name == name) return &key;
  }
  return nullptr;
}

std::optional<std::string_view> closest_setting_key(std::string_view name) {
  std::optional<std::string_view> best;
  std::size_t best_distance = 4;  // more edits than this is not a typo
  for (const auto& key : kKeys) {
    const std::size_t distance = edit_distance(name, key.name);
    if (distance < best_distance) {
      best_distance = distance;
      best = key.name;
    }
  }
  return best;
}

}  // namespace tpslurm::config
