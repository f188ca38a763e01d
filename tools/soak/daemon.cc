#include "daemon.h"

#include <filesystem>
#include <fstream>

#include "base/digest.h"

namespace tpslurm::soak {
namespace {

constexpr const char* kImage = "soak runtime image\n";

bool write_file(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

std::string request_json(const std::string& job_id, int max_attempts) {
  const std::string retry =
      max_attempts > 1 ? R"("retry": {"max_attempts": )" + std::to_string(max_attempts) + "}, " : std::string();
  return R"({"job_id": ")" + job_id + R"(", "type": "custom", "spec": {)" + retry +
         R"("framework": {"name": "custom", "runtime_id": "custom-soak"},
  "command": ["python", "train.py"], "pools": [{"name": "main", "nodes": 1, "gpus_per_node": 0, "cpus": 1,
  "memory_gb": 1}], "time_limit_minutes": 600}, "credentials": {"ingest_token": "soak-ingest-token"}})";
}

}  // namespace

std::optional<Deployment> Deployment::create(const DeploymentConfig& config, std::string& error) {
  Deployment d;
  d.m_config = config;
  const std::string& root = config.root;
  const bool written =
      write_file(root + "/storage/runtimes/soak.sqsh", kImage) &&
      write_file(root + "/registry.json", R"({"runtimes": {"custom-soak": {"framework": "custom", "launcher": "srun",
        "sqsh": {"path": "runtimes/soak.sqsh", "sha256": ")" +
                                              sha256_hex(kImage) + R"("}}}})") &&
      write_file(root + "/gpu.json",
                 R"({"series": {"h100-80g": {"slurm_constraint": "h100", "gres": "gpu", "gpus_per_node": 8}}})");
  std::filesystem::create_directories(root + "/state");
  std::filesystem::create_directories(root + "/requests");
  if (!written) {
    error = "cannot write the deployment's files under " + root;
    return std::nullopt;
  }
  d.m_journal = root + "/state/journal.db";
  const char* path = std::getenv("PATH");
  d.m_env = {
      {"PATH", path ? path : "/usr/bin:/bin"},
      {"HOME", root},
      {"LANG", "C.UTF-8"},
      {"TUNEPLANE_STATE_DIR", root + "/state"},
      {"TUNEPLANE_STORAGE_ROOT", root + "/storage"},
      {"TUNEPLANE_GPU_SERIES_FILE", root + "/gpu.json"},
      {"TUNEPLANE_RUNTIME_REGISTRY_FILE", root + "/registry.json"},
      {"TUNEPLANE_INSTANCE", config.instance},
      {"TUNEPLANE_SLURM_PARTITION", "gpu"},
      {"TUNEPLANE_SLURM_CPU_PARTITION", "cpu"},
      {"TUNEPLANE_SLURM_REST_URL", config.slurm_url},
      {"TUNEPLANE_SLURM_REST_API_VERSION", "v0.0.45"},
      {"TUNEPLANE_SLURM_REST_USER", "root"},
      {config.token_file.empty() ? "TUNEPLANE_SLURM_JWT_KEY_FILE" : "TUNEPLANE_SLURM_JWT_FILE",
       config.token_file.empty() ? config.key_file : config.token_file},
      {"TUNEPLANE_SLURM_CONNECT_TIMEOUT", "2s"},
      {"TUNEPLANE_SLURM_REQUEST_TIMEOUT", "5s"},
      {"TUNEPLANE_SLURM_REQUEST_RATE", "5000"},
      {"TUNEPLANE_SLURM_REQUEST_RATE_FLOOR", "1000"},
      {"TUNEPLANE_SLURM_BACKOFF_MAX", "5s"},
      {"TUNEPLANE_INFRA_RETRY_BACKOFF", "1s"},
      {"TUNEPLANE_RESOLVE_QUIET_PERIOD", config.quiet_period},
      {"TUNEPLANE_POLL_INTERVAL", config.poll_interval},
      {"TUNEPLANE_LOG_LEVEL", "warn"},
  };
  if (!config.api_tokens_file.empty()) {
    d.m_env["TUNEPLANE_API_TOKENS_FILE"] = config.api_tokens_file;
    d.m_env["TUNEPLANE_API_LISTEN"] = config.api_listen;
  }
  return d;
}

int Deployment::submit(const std::string& job_id) const {
  const std::string file = m_config.root + "/requests/" + job_id + ".json";
  if (!write_file(file, request_json(job_id, m_config.max_attempts))) return 1;
  const int code = run({m_config.binary, "submit", file}, m_env, m_config.root + "/cli.log");
  std::filesystem::remove(file);
  return code;
}

int Deployment::resolve_absent(const std::string& attempt) const {
  return run({m_config.binary, "resolve", attempt, "--absent", "--reason",
              "soak: the simulator never had a job with this attempt's name"},
             m_env, m_config.root + "/cli.log");
}

int Deployment::command(const std::vector<std::string>& args) const {
  std::vector<std::string> argv{m_config.binary};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, m_env, m_config.root + "/cli.log");
}

void Deployment::set_instance(const std::string& instance) {
  m_config.instance = instance;
  m_env["TUNEPLANE_INSTANCE"] = instance;
}

std::optional<Process> Deployment::serve(std::string& error) const {
  Environment env = m_env;
  for (const auto& [name, value] : m_serve_env) env[name] = value;
  return Process::start({m_config.binary, "serve"}, env, m_config.root + "/serve.log", error);
}

}  // namespace tpslurm::soak
