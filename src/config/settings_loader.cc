#include "config/settings_loader.h"

#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>

#include "base/duration.h"
#include "base/file_system.h"
#include "base/secret_file.h"
#include "config/env_file.h"
#include "config/logging.h"
#include "config/setting_keys.h"
#include "config/setting_values.h"
#include "model/listen_address.h"
#include "model/names.h"
#include "model/rest_endpoint.h"
#include "model/runtime_path.h"

extern char** environ;

namespace tpslurm::config {
namespace {

using model::Problems;
using model::quote_value;

constexpr std::string_view kPrefix = "TUNEPLANE_";
constexpr std::string_view kOldPrefix = "FORGE_";
constexpr std::size_t kMaxConfigBytes = 1 << 20;

// Variables of the project's own tooling that share the prefix but are not settings.
constexpr std::string_view kToolingPrefixes[] = {"TUNEPLANE_LOCAL_SLURM_", "TUNEPLANE_TEST_", "TUNEPLANE_CRASH_AT",
                                                 "TUNEPLANE_INGEST_TOKEN_FILE"};

struct Value {
  std::string text;
  std::string source;  // "environment" or "FILE:LINE"
};

std::string old_name(std::string_view key) { return std::string(kOldPrefix) + std::string(key.substr(kPrefix.size())); }

// A setting that no longer exists and must not be ignored quietly (it limited what the daemon
// does): what replaced it. An error, so that a site's limit is never dropped unnoticed.
std::optional<std::string> retired_setting(std::string_view key) {
  if (key == "TUNEPLANE_SLURM_REQUEST_BUDGET") {
    return "is no longer read: the calls per poll cycle became TUNEPLANE_SLURM_REQUEST_RATE, calls per second; "
           "set that to this value divided by the poll interval in seconds, and remove this line";
  }
  return std::nullopt;
}

// Turns raw values into Settings, collecting problems.
class Applier {
 public:
  Applier(const std::map<std::string, Value>& values, const LoadOptions& options, LoadedSettings& out,
          Problems& problems)
      : m_values(values), m_options(options), m_out(out), m_problems(problems) {}

  // Calls `apply(value)` when the key is set; a returned string is "what is expected".
  void with(std::string_view key, const std::function<std::optional<std::string>(const std::string&)>& apply) {
    const auto it = m_values.find(std::string(key));
    if (it == m_values.end()) return;
    if (auto expected = apply(it->second.text)) bad(key, *expected);
  }

  void bad(std::string_view key, const std::string& expected) {
    const Value& value = m_values.at(std::string(key));
    std::string where = value.source == "environment" ? "" : " (set in " + value.source + ")";
    m_problems.add(std::string(key), quote_value(value.text), expected + where);
  }

  bool has(std::string_view key) const { return m_values.count(std::string(key)) != 0; }

  void secret_file(std::string_view key, std::string& target, Readers readers = Readers::owner_warned) {
    with(key, [&](const std::string& path) -> std::optional<std::string> {
      const SecretFileCheck check = check_secret_file(path, m_options.effective_uid, readers);
      if (check.refusal) return check.refusal;
      if (check.warning) m_out.warnings.push_back(std::string(key) + ": " + *check.warning);
      target = path;
      return std::nullopt;
    });
  }

 private:
  const std::map<std::string, Value>& m_values;
  const LoadOptions& m_options;
  LoadedSettings& m_out;
  Problems& m_problems;
};

using namespace setting_values;

// How fast the call rate may be, and how it adapts (slurm/request_budget.h).
void apply_rate(Applier& apply, model::Settings& s, Problems& problems) {
  const std::size_t before = problems.size();
  apply.with("TUNEPLANE_SLURM_REQUEST_RATE",
             [&](const std::string& v) { return integer_between(v, s.request_rate, "calls per second", 1, 100'000); });
  apply.with("TUNEPLANE_SLURM_REQUEST_RATE_FLOOR", [&](const std::string& v) {
    return integer_between(v, s.request_rate_floor, "calls per second", 1, 100'000);
  });
  // A ceiling set below the default floor lowers the floor with it; a floor set above the
  // ceiling is a contradiction.
  if (problems.size() == before && s.request_rate_floor > s.request_rate) {
    if (apply.has("TUNEPLANE_SLURM_REQUEST_RATE_FLOOR")) {
      apply.bad("TUNEPLANE_SLURM_REQUEST_RATE_FLOOR", "the floor is above the ceiling (TUNEPLANE_SLURM_REQUEST_RATE " +
                                                          std::to_string(s.request_rate) +
                                                          "); lower it or raise the ceiling");
    } else {
      s.request_rate_floor = s.request_rate;
    }
  }
  apply.with("TUNEPLANE_SLURM_SLOW_ANSWER", [&](const std::string& v) {
    return duration_between(v, s.slow_answer, std::chrono::seconds(1), std::chrono::minutes(10));
  });
  apply.with("TUNEPLANE_SLURM_SLOW_FACTOR", [&](const std::string& v) -> std::optional<std::string> {
    int factor = 0;
    if (integer_between(v, factor, "", 0, 1000) || factor == 1) return "expected 0 (off) or a factor from 2 to 1000";
    s.slow_factor = factor;
    return std::nullopt;
  });
}

// How hard the daemon may press slurmrestd: the call rate, back-off after failures, the size
// of bulk queries (slurm/request_budget.h, slurm/bulk_state.h).
void apply_limits(Applier& apply, model::Settings& s, Problems& problems) {
  apply_rate(apply, s, problems);
  const std::size_t before = problems.size();
  apply.with("TUNEPLANE_SLURM_BACKOFF_INITIAL", [&](const std::string& v) {
    return duration_between(v, s.backoff_initial, std::chrono::seconds(1), std::chrono::minutes(10));
  });
  apply.with("TUNEPLANE_SLURM_BACKOFF_MAX", [&](const std::string& v) {
    return duration_between(v, s.backoff_max, std::chrono::seconds(1), std::chrono::hours(1));
  });
  // Only between two valid values: a refused one already has its line.
  if (problems.size() == before && s.backoff_max < s.backoff_initial) {
    const std::string key =
        apply.has("TUNEPLANE_SLURM_BACKOFF_MAX") ? "TUNEPLANE_SLURM_BACKOFF_MAX" : "TUNEPLANE_SLURM_BACKOFF_INITIAL";
    const auto in_seconds = [](std::chrono::milliseconds d) {
      return format_duration(std::chrono::duration_cast<std::chrono::seconds>(d));
    };
    apply.bad(key, "the maximum back-off (" + in_seconds(s.backoff_max) +
                       ") must not be shorter than the initial one (" + in_seconds(s.backoff_initial) +
                       "); raise TUNEPLANE_SLURM_BACKOFF_MAX or lower TUNEPLANE_SLURM_BACKOFF_INITIAL");
  }
  apply.with("TUNEPLANE_SLURM_BULK_MAX_IDS", [&](const std::string& v) {
    return integer_between(v, s.bulk_max_ids, "job ids per bulk query", 1, 5000);
  });
  apply.with("TUNEPLANE_SLURM_BULK_MAX_URL_BYTES", [&](const std::string& v) {
    return integer_between(v, s.bulk_max_url_bytes, "bytes per bulk query target", 1000, 65536);
  });
}

// The connection to slurmrestd: timeouts, the low-speed limit, the proxy, and whether the
// token may travel in clear text (model/rest_endpoint.h).
// TUNEPLANE_API_TLS_CERT and TUNEPLANE_API_TLS_KEY: both or neither, and only for a TCP address.
void apply_api_tls(Applier& apply, model::Settings& s) {
  apply.with("TUNEPLANE_API_TLS_CERT", [&](const std::string& v) -> std::optional<std::string> {
    if (auto why = absolute_path(v, s.api_tls_cert)) return why;
    if (::access(v.c_str(), R_OK) != 0) return std::string("cannot be read: ") + std::strerror(errno);
    return std::nullopt;
  });
  apply.secret_file("TUNEPLANE_API_TLS_KEY", s.api_tls_key);
  const bool cert = apply.has("TUNEPLANE_API_TLS_CERT");
  const bool key = apply.has("TUNEPLANE_API_TLS_KEY");
  if (cert != key) {
    apply.bad(cert ? "TUNEPLANE_API_TLS_CERT" : "TUNEPLANE_API_TLS_KEY",
              "needs " + std::string(cert ? "TUNEPLANE_API_TLS_KEY" : "TUNEPLANE_API_TLS_CERT") +
                  " too: TLS takes the certificate and its private key");
  } else if (cert && s.api_listen.rfind("unix:", 0) == 0) {
    apply.bad("TUNEPLANE_API_TLS_CERT", "TLS is for a TCP address; a unix socket is guarded by its mode (0660)");
  }
}

void apply_connection(Applier& apply, model::Settings& s) {
  apply.with("TUNEPLANE_SLURM_CONNECT_TIMEOUT", [&](const std::string& v) {
    return duration_between(v, s.connect_timeout, std::chrono::seconds(1), std::chrono::minutes(5));
  });
  apply.with("TUNEPLANE_SLURM_REQUEST_TIMEOUT", [&](const std::string& v) {
    return duration_between(v, s.request_timeout, std::chrono::seconds(1), std::chrono::hours(1));
  });
  if (s.connect_timeout > s.request_timeout) {
    const std::string key = apply.has("TUNEPLANE_SLURM_CONNECT_TIMEOUT") ? "TUNEPLANE_SLURM_CONNECT_TIMEOUT"
                                                                         : "TUNEPLANE_SLURM_REQUEST_TIMEOUT";
    apply.bad(key, "the connect timeout (" + format_duration(s.connect_timeout) +
                       ") must not exceed the request timeout (" + format_duration(s.request_timeout) +
                       "), which includes connecting");
  }
  apply.with("TUNEPLANE_SLURM_LOW_SPEED_LIMIT", [&](const std::string& v) -> std::optional<std::string> {
    if (v.empty() || v.size() > 10 || v.find_first_not_of("0123456789") != std::string::npos ||
        std::stoll(v) > 1'000'000'000) {
      return "expected bytes per second from 0 (off) to 1000000000";
    }
    s.low_speed_limit = static_cast<long>(std::stoll(v));
    return std::nullopt;
  });
  apply.with("TUNEPLANE_SLURM_LOW_SPEED_TIME", [&](const std::string& v) {
    return duration_between(v, s.low_speed_time, std::chrono::seconds(1), std::chrono::hours(1));
  });
  apply.with("TUNEPLANE_SLURM_PROXY", [&](const std::string& v) { return proxy_url(v, s.proxy); });
  apply.with("TUNEPLANE_SLURM_ALLOW_INSECURE_HTTP",
             [&](const std::string& v) { return flag(v, s.allow_insecure_http); });
  if (auto host = model::cleartext_token_host(s.rest_url, s.proxy); host && !s.allow_insecure_http) {
    const bool via_proxy = !s.proxy.empty() && !model::cleartext_token_host(s.rest_url, {});
    const std::string key = via_proxy ? "TUNEPLANE_SLURM_PROXY" : "TUNEPLANE_SLURM_REST_URL";
    if (apply.has(key)) {
      apply.bad(key, "would send the JWT unencrypted over http:// to " + *host +
                         "; use https:// or a unix: socket, or set TUNEPLANE_SLURM_ALLOW_INSECURE_HTTP=1 to allow it");
    }
  }
}

}  // namespace

Environment process_environment() {
  Environment environment;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    environment.emplace(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
  }
  return environment;
}

LoadOptions current_process_options() {
  LoadOptions options{::geteuid(), "", ""};
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) options.host_name = host;
  if (const char* home = std::getenv("HOME")) options.home = home;
  return options;
}

std::string instance_from_host(std::string_view host_name) {
  std::string id;
  for (const char c : host_name.substr(0, host_name.find('.'))) {
    if (id.size() == 20) break;
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    id += ((lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9')) ? lower : '-';
  }
  while (!id.empty() && id.front() == '-') id.erase(id.begin());
  while (!id.empty() && id.back() == '-') id.pop_back();
  return id.empty() ? "tp" : id;
}

namespace {

// slurmrestd, the token, where jobs go and as what: the REST settings, the partitions, the
// site's submission settings, the instance and the runtime profile.
void apply_slurm_access(Applier& apply, model::Settings& s, const LoadOptions& options) {
  apply.with("TUNEPLANE_SLURM_REST_URL", [&](const std::string& v) { return rest_url(v, s.rest_url); });
  apply.with("TUNEPLANE_SLURM_REST_API_VERSION", [&](const std::string& v) -> std::optional<std::string> {
    const auto& known = rest_api_versions();
    if (v != "auto" && std::find(known.begin(), known.end(), v) == known.end()) {
      std::string expected = "expected auto (the newest the server offers) or one of";
      for (auto version : known) expected += " " + std::string(version);
      return expected;
    }
    s.rest_api_version = v;
    return std::nullopt;
  });
  apply.with("TUNEPLANE_SLURM_REST_USER", [&](const std::string& v) { return slurm_name(v, s.rest_user); });
  apply.secret_file("TUNEPLANE_SLURM_JWT_FILE", s.jwt_file);
  apply.secret_file("TUNEPLANE_SLURM_JWT_KEY_FILE", s.jwt_key_file, Readers::owner_only);
  if (apply.has("TUNEPLANE_SLURM_JWT_FILE") && apply.has("TUNEPLANE_SLURM_JWT_KEY_FILE")) {
    apply.bad("TUNEPLANE_SLURM_JWT_KEY_FILE",
              "cannot be combined with TUNEPLANE_SLURM_JWT_FILE; set one of them (a token file is the default, "
              "minting from the key is opt-in)");
  }
  apply.with("TUNEPLANE_SLURM_JWT_LIFESPAN", [&](const std::string& v) {
    return duration_between(v, s.jwt_lifespan, std::chrono::seconds(60), std::chrono::hours(24 * 7));
  });
  apply.with("TUNEPLANE_SLURM_PARTITION", [&](const std::string& v) { return slurm_name(v, s.partition); });
  apply.with("TUNEPLANE_SLURM_CPU_PARTITION", [&](const std::string& v) { return slurm_name(v, s.cpu_partition); });
  apply.with("TUNEPLANE_SLURM_ACCOUNT", [&](const std::string& v) { return slurm_name(v, s.account); });
  apply.with("TUNEPLANE_SLURM_QOS", [&](const std::string& v) { return slurm_name(v, s.qos); });
  apply.with("TUNEPLANE_SLURM_RESERVATION", [&](const std::string& v) { return slurm_name(v, s.reservation); });
  apply.with("TUNEPLANE_SLURM_WCKEY", [&](const std::string& v) { return slurm_name(v, s.wckey); });
  if (s.cpu_partition.empty()) s.cpu_partition = s.partition;
  s.instance = instance_from_host(options.host_name);
  apply.with("TUNEPLANE_INSTANCE", [&](const std::string& v) -> std::optional<std::string> {
    if (v.empty() || v.size() > 20 || v.front() == '-' ||
        v.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos) {
      return "expected 1-20 lower-case letters, digits or '-', not starting with '-'";
    }
    s.instance = v;
    return std::nullopt;
  });
  apply.with("TUNEPLANE_SLURM_RUNTIME_PROFILE", [&](const std::string& v) -> std::optional<std::string> {
    auto profile = model::parse_runtime_profile(v);
    if (!profile) return "expected enroot-pyxis or apptainer";
    s.runtime_profile = *profile;
    return std::nullopt;
  });
}

// Whose identity jobs run as: one user, or each request's user through the user map.
void apply_identity(Applier& apply, model::Settings& s, Problems& problems) {
  apply.with("TUNEPLANE_IDENTITY_MODE", [&](const std::string& v) -> std::optional<std::string> {
    if (v == "one-user") {
      s.identity_mode = model::IdentityMode::one_user;
    } else if (v == "per-user") {
      s.identity_mode = model::IdentityMode::per_user;
    } else {
      return "expected one-user or per-user";
    }
    return std::nullopt;
  });
  apply.with("TUNEPLANE_USER_MAP_FILE", [&](const std::string& v) { return absolute_path(v, s.user_map_file); });
  apply.with("TUNEPLANE_FIRST_USER_ID", [&](const std::string& v) -> std::optional<std::string> {
    return integer_between(v, s.first_user_id, "a uid", 1, 2147483647LL);
  });
  if (s.identity_mode == model::IdentityMode::per_user && s.user_map_file.empty()) {
    problems.add("TUNEPLANE_USER_MAP_FILE",
                 "is not set; per-user mode (TUNEPLANE_IDENTITY_MODE=per-user) needs the user map: the JSON file of "
                 "platform users and their Unix users (docs/operators-guide.md, \"Running jobs as their users\")");
  }
  // apply_storage() ran first.
  if (s.identity_mode == model::IdentityMode::per_user && !s.storage_group.empty()) {
    problems.add("TUNEPLANE_STORAGE_GROUP",
                 "is set (\"" + s.storage_group +
                     "\"); per-user mode gives each job's files to its own user by ACL, and a group shared by "
                     "every user would let one user's job read another's: leave the setting out");
  }
}

// The shared filesystem as this host and the nodes see it, its group, and the jobs' PATH; the
// TLS settings for slurmrestd.
void apply_storage(Applier& apply, model::Settings& s) {
  // This host's view of the storage reaches the runtimes only when the nodes share it.
  const bool seen_elsewhere = apply.has("TUNEPLANE_SLURM_STORAGE_ROOT");
  apply.with("TUNEPLANE_STORAGE_ROOT", [&](const std::string& v) {
    return seen_elsewhere ? absolute_path(v, s.storage_root) : runtime_root(v, s.storage_root);
  });
  apply.with("TUNEPLANE_SLURM_STORAGE_ROOT",
             [&](const std::string& v) { return runtime_root(v, s.slurm_storage_root); });
  if (s.slurm_storage_root.empty()) s.slurm_storage_root = s.storage_root;
  apply.with("TUNEPLANE_STORAGE_GROUP", [&](const std::string& v) -> std::optional<std::string> {
    if (v.empty()) return std::nullopt;
    if (::getgrnam(v.c_str()) == nullptr) {
      return "is not a group on this host; create the group the service account and "
             "TUNEPLANE_SLURM_REST_USER share, or leave the setting out when both are one user";
    }
    s.storage_group = v;
    return std::nullopt;
  });
  apply.with("TUNEPLANE_SLURM_JOB_PATH", [&](const std::string& v) { return job_path(v, s.job_path); });
  apply.with("TUNEPLANE_SLURM_TLS_VERIFY", [&](const std::string& v) { return flag(v, s.tls_verify); });
  apply.with("TUNEPLANE_SLURM_CA_FILE", [&](const std::string& v) -> std::optional<std::string> {
    if (auto why = absolute_path(v, s.ca_file)) return why;
    if (::access(v.c_str(), R_OK) != 0) return std::string("cannot be read: ") + std::strerror(errno);
    return std::nullopt;
  });
}

// The local state: the state directory (by user) and the journal.
void apply_local_files(Applier& apply, model::Settings& s, const Environment& environment, const LoadOptions& options) {
  if (options.effective_uid == 0) {
    s.state_dir = "/var/lib/tuneplane-slurm";
  } else if (auto xdg = environment.find("XDG_STATE_HOME"); xdg != environment.end() && !xdg->second.empty()) {
    s.state_dir = xdg->second + "/tuneplane-slurm";
  } else {
    s.state_dir = options.home + "/.local/state/tuneplane-slurm";
  }
  apply.with("TUNEPLANE_STATE_DIR", [&](const std::string& v) { return absolute_path(v, s.state_dir); });
  s.journal_path = s.state_dir + "/journal.db";
  apply.with("TUNEPLANE_JOURNAL", [&](const std::string& v) { return absolute_path(v, s.journal_path); });
}

// The daemon's rhythm and its patience: the cycle, the submit mode and the time limits.
void apply_daemon(Applier& apply, model::Settings& s) {
  apply.with("TUNEPLANE_POLL_INTERVAL", [&](const std::string& v) {
    return duration_between(v, s.poll_interval, std::chrono::seconds(1), std::chrono::hours(1));
  });
  apply.with("TUNEPLANE_PASS_THREADS",
             [&](const std::string& v) { return integer_between(v, s.pass_threads, "passes at once", 1, 64); });
  apply.with("TUNEPLANE_SUBMIT_MODE", [&](const std::string& v) -> std::optional<std::string> {
    if (v == "held") {
      s.submit_mode = model::SubmitMode::held;
    } else if (v == "direct") {
      s.submit_mode = model::SubmitMode::direct;
    } else {
      return "expected held (every job is released only after its identity check) or direct";
    }
    return std::nullopt;
  });
  apply.with("TUNEPLANE_RESOLVE_QUIET_PERIOD", [&](const std::string& v) {
    return duration_between(v, s.resolve_quiet_period, std::chrono::seconds(1), std::chrono::hours(24 * 7));
  });
  apply.with("TUNEPLANE_MAX_PENDING", [&](const std::string& v) {
    return duration_between(v, s.max_pending, std::chrono::seconds(0), std::chrono::hours(24 * 30));
  });
  apply.with("TUNEPLANE_INFRA_RETRIES", [&](const std::string& v) {
    return integer_between(v, s.infra_retries, "retries after the cluster's failures", 0, 100);
  });
  apply.with("TUNEPLANE_INFRA_RETRY_BACKOFF", [&](const std::string& v) {
    return duration_between(v, s.infra_retry_backoff, std::chrono::seconds(0), model::kLongestInfraBackoff);
  });
  apply.with("TUNEPLANE_COMPLETING_WARN_AFTER", [&](const std::string& v) {
    return duration_between(v, s.completing_warn_after, std::chrono::minutes(1), std::chrono::hours(24 * 7));
  });
  apply.with("TUNEPLANE_ATTEMPT_RETENTION", [&](const std::string& v) {
    return duration_between(v, s.attempt_retention, std::chrono::seconds(0), std::chrono::hours(24 * 3650));
  });
}

// The platform API and the log.
void apply_api_and_log(Applier& apply, model::Settings& s) {
  apply.with("TUNEPLANE_API_LISTEN", [&](const std::string& v) -> std::optional<std::string> {
    std::string expected;
    if (!model::parse_listen_address(v, &expected)) return expected;
    s.api_listen = v;
    return std::nullopt;
  });
  apply.secret_file("TUNEPLANE_API_TOKENS_FILE", s.api_tokens_file);
  apply_api_tls(apply, s);
  apply.with("TUNEPLANE_LOG_LEVEL", [&](const std::string& v) -> std::optional<std::string> {
    if (!parse_log_level(v)) return "expected trace, debug, info, warn, error or off";
    s.log_level = v;
    return std::nullopt;
  });
  apply.with("TUNEPLANE_LOG_FORMAT", [&](const std::string& v) -> std::optional<std::string> {
    if (v == "text") {
      s.log_format = model::LogFormat::text;
    } else if (v == "json") {
      s.log_format = model::LogFormat::json;
    } else {
      return "expected text or json";
    }
    return std::nullopt;
  });
}

}  // namespace

Result<LoadedSettings, Problems> load_settings(const Environment& environment,
                                               const std::optional<std::string>& config_file,
                                               const LoadOptions& options) {
  LoadedSettings out;
  Problems problems;

  std::map<std::string, Value> file_values;
  if (config_file) {
    auto text = read_file(*config_file, kMaxConfigBytes);
    if (!text.ok()) {
      problems.add("--config", quote_value(*config_file), "cannot be read: " + text.error().message());
      return problems;
    }
    auto entries = parse_env_file(*text, *config_file);
    if (!entries.ok()) return entries.error();
    for (auto& entry : *entries) {
      file_values[entry.key] = {std::move(entry.value), *config_file + ":" + std::to_string(entry.line)};
    }
  }

  // Unknown keys, retired ones and deprecated names, in both sources.
  const auto refuse_retired = [&](const std::string& key, const std::string& name, const std::string& value,
                                  const std::string& where) {
    auto retired = retired_setting(name);
    if (retired)
      problems.add(key, quote_value(value), *retired + (where == "environment" ? "" : " (set in " + where + ")"));
    return retired.has_value();
  };
  const auto look_at = [&](const std::string& key, const std::string& value, const std::string& where) {
    if (key.starts_with(kPrefix)) {
      if (find_setting_key(key) != nullptr || refuse_retired(key, key, value, where)) return;
      for (const auto tooling : kToolingPrefixes) {
        if (key.starts_with(tooling)) return;
      }
      std::string warning = key + " (" + where + ") is not a tuneplane-slurm setting";
      if (auto near = closest_setting_key(key)) warning += "; did you mean " + std::string(*near) + "?";
      out.warnings.push_back(std::move(warning));
    } else if (key.starts_with(kOldPrefix)) {
      const std::string new_name = std::string(kPrefix) + key.substr(kOldPrefix.size());
      if (refuse_retired(key, new_name, value, where)) return;
      if (find_setting_key(new_name) != nullptr) {
        out.warnings.push_back(key + " (" + where + ") is deprecated; use " + new_name);
      } else if (key.starts_with("FORGE_SLURM_")) {
        out.warnings.push_back(key + " (" + where + ") is not a tuneplane-slurm setting");
      }
    } else if (where != "environment") {
      out.warnings.push_back(key + " (" + where + ") is not a tuneplane-slurm setting");
    }
  };
  for (const auto& [key, value] : environment) look_at(key, value, "environment");
  for (const auto& [key, value] : file_values) look_at(key, value.text, value.source);

  std::map<std::string, Value> values;
  for (const auto& key : setting_keys()) {
    const std::string name(key.name);
    const std::string old = old_name(key.name);
    if (auto it = environment.find(name); it != environment.end()) {
      values[name] = {it->second, "environment"};
    } else if (auto it_old = environment.find(old); it_old != environment.end()) {
      values[name] = {it_old->second, "environment"};
    } else if (auto f = file_values.find(name); f != file_values.end()) {
      values[name] = f->second;
    } else if (auto f_old = file_values.find(old); f_old != file_values.end()) {
      values[name] = f_old->second;
    }
    out.sources[name] = values.count(name) ? values[name].source : "default";
    if (values.count(name)) out.given[name] = values[name].text;
  }

  model::Settings& s = out.settings;
  Applier apply(values, options, out, problems);
  apply_slurm_access(apply, s, options);
  apply_storage(apply, s);
  apply_identity(apply, s, problems);
  apply_connection(apply, s);
  apply_limits(apply, s, problems);
  apply.with("TUNEPLANE_RUNTIME_REGISTRY_FILE",
             [&](const std::string& v) { return absolute_path(v, s.runtime_registry_file); });
  apply.with("TUNEPLANE_GPU_SERIES_FILE", [&](const std::string& v) { return absolute_path(v, s.gpu_series_file); });
  apply_local_files(apply, s, environment, options);
  apply_daemon(apply, s);
  apply_api_and_log(apply, s);

  if (!problems.empty()) return problems;
  return out;
}

}  // namespace tpslurm::config
