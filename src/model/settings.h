// Settings: the program's configuration as plain values, after loading and validation.
//
// src/config/ builds it from TUNEPLANE_* environment variables and an optional env file;
// every other layer only reads it. Secrets are not here: only the paths of the files that
// hold them (the token and the key are read by the Slurm client when needed).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "model/runtime_registry.h"

namespace tpslurm::model {

inline constexpr std::chrono::seconds kLongestInfraBackoff{1800};

enum class LogFormat { text, json };

// held: every job is submitted held and released after its identity check, so no copy can run
// before the journal holds it; direct: submitted runnable.
enum class SubmitMode { held, direct };

// one_user: every job runs as the job user (rest_user); per_user: each job runs as the Unix user
// the user map (model/user_map.h) gives its platform user.
enum class IdentityMode { one_user, per_user };

struct Settings {
  std::string rest_url = "http://127.0.0.1:6820";
  std::string rest_api_version = "auto";  // auto | v0.0.45 ... v0.0.40 | v0.0.38 (config/setting_keys.h)
  std::string rest_user;
  std::string jwt_file;      // a token file, re-read when it changes ...
  std::string jwt_key_file;  // ... or the HS256 key to mint tokens for rest_user (opt-in)
  std::chrono::seconds jwt_lifespan{1800};

  std::string partition;
  std::string cpu_partition;  // defaults to partition
  std::string account;
  std::string qos;
  std::string reservation;
  std::string wckey;
  std::string instance;  // goes into every job name: tp-<instance>-<job>-<attempt>

  RuntimeProfile runtime_profile = RuntimeProfile::enroot_pyxis;
  std::string storage_root;        // the shared filesystem as this host sees it
  std::string slurm_storage_root;  // the same storage as the compute nodes see it
  std::string storage_group;       // shared by the service account and the job user; empty = one user
  IdentityMode identity_mode = IdentityMode::one_user;
  std::string user_map_file;  // per-user mode: the platform users and their Unix users
  // The lowest uid a mapped Unix user may have: below it are the system's accounts.
  long first_user_id = 1000;
  // The PATH every job starts with (its batch script and its srun steps): the site's srun
  // must be the first one on it.
  std::string job_path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  bool tls_verify = true;
  std::string ca_file;
  // The connection to slurmrestd (curl_transport.h). A low-speed limit of 0 is off.
  std::chrono::seconds connect_timeout{5};
  std::chrono::seconds request_timeout{60};  // the whole exchange, connecting included
  long low_speed_limit = 0;                  // bytes/s below which ...
  std::chrono::seconds low_speed_time{30};   // ... for this long a transfer is abandoned
  std::string proxy;                         // empty: never a proxy (the environment's are ignored)
  bool allow_insecure_http = false;          // the JWT over http:// to a host that is not loopback

  std::string runtime_registry_file;
  std::string gpu_series_file;

  std::string state_dir;
  std::string journal_path;  // defaults to <state_dir>/journal.db
  std::chrono::seconds poll_interval{10};
  int pass_threads = 16;  // passes run at once: jobs prepared, submitted and released concurrently

  SubmitMode submit_mode = SubmitMode::held;
  int request_rate = 1000;                      // most calls to slurmrestd per second: the adaptive rate's ceiling
  int request_rate_floor = 10;                  // the adaptive rate is never halved below this
  std::chrono::milliseconds slow_answer{1000};  // an answer slower than this halves the rate
  int slow_factor = 8;  // an answer about one job this many times its kind's quickest is late (0: off)
  // Waiting after a failed call to slurmrestd: from the initial delay, growing up to the maximum.
  std::chrono::milliseconds backoff_initial{1000};
  std::chrono::milliseconds backoff_max{300000};
  std::size_t bulk_max_ids = 500;         // job ids in one bulk query ...
  std::size_t bulk_max_url_bytes = 8000;  // ... and the longest URL it may have
  // How long after a lost submit answer `resolve --absent` stays refused.
  std::chrono::seconds resolve_quiet_period{1800};
  // A job pending longer than this is cancelled and its attempt failed; 0: no limit.
  std::chrono::seconds max_pending{0};
  // Retries after the cluster ended an attempt (model/infra_failure.h), per job, at no cost to
  // its max_attempts; the first waits infra_retry_backoff after the attempt's cleanup closed,
  // each later one twice as long as the one before, at most kLongestInfraBackoff.
  int infra_retries = 5;
  std::chrono::seconds infra_retry_backoff{30};
  // A job that stays COMPLETING (or STAGE_OUT) longer than this raises a warning event; its
  // cleanup keeps waiting: nothing is released early.
  std::chrono::seconds completing_warn_after{1800};
  // Closed attempts' directories are removed this long after their cleanup closed (the
  // journal's record stays); 0: kept for ever.
  std::chrono::seconds attempt_retention{0};

  // The platform API (src/api/), served by `serve` when a tokens file is set: where it listens
  // (model/listen_address.h) and the file of `NAME TOKEN` lines (a secret file).
  std::string api_listen = "127.0.0.1:8740";
  std::string api_tokens_file;
  // HTTPS: the certificate chain and its private key (a secret file), both PEM; empty: HTTP.
  std::string api_tls_cert;
  std::string api_tls_key;

  std::string log_level = "info";
  LogFormat log_format = LogFormat::text;
};

// Whether the daemon mints its tokens from the key: a key is set and no token file (the
// settings refuse both at once; a token file, when set, is what every call uses).
inline bool mints_tokens(const Settings& settings) {
  return settings.jwt_file.empty() && !settings.jwt_key_file.empty();
}

}  // namespace tpslurm::model
