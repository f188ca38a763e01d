// Deployment and Daemon: one tuneplane-slurm deployment under a root directory (state, storage
// with a test image, catalogs; the daemon mints its tokens from the simulator's HS256 key file,
// so no token is ever written by the soak, or, with `token_file` set, reads the token the caller
// keeps in that file) and the `serve` process on it, which the soak SIGKILLs and restarts; with
// `api_tokens_file` set, serve answers the platform API too. Every
// process's output is appended to <root>/serve.log or <root>/cli.log. The daemon polls every
// `poll_interval`. Not thread-safe, except submit() and command(), which may run on several
// threads at once (but not beside set_instance()).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "process.h"

namespace tpslurm::soak {

struct DeploymentConfig {
  std::string binary;     // tuneplane-slurm
  std::string root;       // an empty directory of the soak's
  std::string slurm_url;  // the simulator
  std::string key_file;   // the simulator's HS256 key
  std::string poll_interval = "5s";
  std::string instance = "soak";     // TUNEPLANE_INSTANCE: job names are tp-<instance>-<job>-<n>
  std::string token_file;            // set: TUNEPLANE_SLURM_JWT_FILE instead of minting from key_file
  std::string quiet_period = "20s";  // TUNEPLANE_RESOLVE_QUIET_PERIOD
  int max_attempts = 1;              // each request's spec.retry.max_attempts
  std::string api_tokens_file;       // set: serve answers the platform API (TUNEPLANE_API_TOKENS_FILE)
  std::string api_listen;            // TUNEPLANE_API_LISTEN, with the tokens file
};

class Deployment {
 public:
  // Writes the catalogs, the image and the request template; false with `error` set if not.
  static std::optional<Deployment> create(const DeploymentConfig& config, std::string& error);

  const std::string& journal_path() const { return m_journal; }
  const std::string& root() const { return m_config.root; }
  const std::string& instance() const { return m_config.instance; }
  const Environment& environment() const { return m_env; }

  // `tuneplane-slurm submit` of a CPU-only job `job_id`; its exit code.
  int submit(const std::string& job_id) const;
  // `tuneplane-slurm resolve JOB/N --absent`, as the operator who checked that Slurm never had
  // it; its exit code (refused while the quiet period runs or no complete search followed it).
  int resolve_absent(const std::string& attempt) const;
  // `tuneplane-slurm ARGS...` run to its end (output in cli.log); its exit code.
  int command(const std::vector<std::string>& args) const;
  // Another TUNEPLANE_INSTANCE for every process started from now on.
  void set_instance(const std::string& instance);
  // `tuneplane-slurm serve` started; nothing when it could not be.
  std::optional<Process> serve(std::string& error) const;
  // Variables given to serve alone, over the deployment's own (the commands never get them).
  void set_serve_environment(Environment extra) { m_serve_env = std::move(extra); }

 private:
  DeploymentConfig m_config;
  Environment m_env;
  Environment m_serve_env;
  std::string m_journal;
};

}  // namespace tpslurm::soak
