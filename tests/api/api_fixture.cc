#include "api_fixture.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "base/file_system.h"
#include "config/settings_loader.h"
#include "storage/manifest.h"
#include "storage/unix_user.h"
#include "support/exposition.h"

namespace tpslurm::api::testing {

ApiFixture::ApiFixture() {
  env = tpslurm::testing::minimal_environment();
  env["TUNEPLANE_STATE_DIR"] = dir.file("state");
  env["TUNEPLANE_STORAGE_ROOT"] = dir.file("storage");
  env["TUNEPLANE_GPU_SERIES_FILE"] = source("etc/gpu-series.example.json");
  env["TUNEPLANE_RUNTIME_REGISTRY_FILE"] = source("etc/runtime-registry.example.json");
  env["TUNEPLANE_INSTANCE"] = "test";
  tokens_path = dir.file("api-tokens");
  write_tokens("# the platform's clients\nalice " + kAliceToken + " read,submit,operate\n\nbob " + kBobToken +
               " read,submit,operate\n");
  env["TUNEPLANE_API_TOKENS_FILE"] = tokens_path;
}

ApiFixture::~ApiFixture() = default;

ServerLimits ApiFixture::test_limits() {
  ServerLimits limits;
  limits.header_bytes = 8 * 1024;
  limits.connections = 16;
  limits.request_time = std::chrono::milliseconds(1000);
  return limits;
}

void ApiFixture::start(ServerLimits limits, const std::string& listen) {
  const std::string error = try_start(limits, listen);
  ASSERT_EQ(error, "");
}

std::string ApiFixture::try_start(ServerLimits limits, const std::string& listen) {
  env["TUNEPLANE_API_LISTEN"] = listen;
  auto loaded = config::load_settings(config::Environment(env.begin(), env.end()), std::nullopt,
                                      config::current_process_options());
  if (!loaded.ok()) return loaded.error().to_text();
  settings = loaded->settings;
  auto gpu = model::GpuSeriesCatalog::parse(tpslurm::testing::read_test_file(settings.gpu_series_file), "gpu");
  auto runtimes =
      model::RuntimeRegistry::parse(tpslurm::testing::read_test_file(settings.runtime_registry_file), "runtimes");
  if (!gpu.ok() || !runtimes.ok()) return "the example catalogs do not parse";
  m_catalogs = std::make_unique<model::Catalogs>(model::Catalogs{std::move(*gpu), std::move(*runtimes)});
  if (settings.identity_mode == model::IdentityMode::per_user) {
    auto users = model::UserMap::parse(tpslurm::testing::read_test_file(settings.user_map_file), "users");
    if (!users.ok()) return users.error().to_text();
    m_catalogs->users = storage::judge_users(std::move(*users), settings.first_user_id, ::geteuid());
  }
  if (!make_directories(settings.state_dir, 0700).ok()) return "cannot create the state directory";
  auto service = ApiService::start(settings, *m_catalogs, m_clock, limits, nullptr, metrics);
  if (!service.ok()) return service.error().message();
  m_service = std::move(*service);
  return "";
}

Endpoint ApiFixture::endpoint() const {
  if (settings.api_listen.starts_with("unix:")) return {0, settings.api_listen.substr(5)};
  return {m_service->server().port(), "", settings.api_tls_cert};
}

HttpAnswer ApiFixture::call(const std::string& method, const std::string& target, const std::string& token,
                            const std::string& body) {
  std::vector<std::string> headers;
  if (!token.empty()) headers.push_back("Authorization: Bearer " + token);
  return http(endpoint(), method, target, body, headers);
}

double ApiFixture::metric(const std::string& name, const std::map<std::string, std::string>& labels) {
  auto text = m_own_metrics.render({});
  if (!text.ok()) return -1;
  return tpslurm::testing::parse_exposition(*text).value(name, labels).value_or(-1);
}

void ApiFixture::write_tokens(const std::string& content) {
  const std::string staged = tokens_path + ".new";
  tpslurm::testing::write_test_file(staged, content);
  ::chmod(staged.c_str(), 0600);
  ASSERT_EQ(std::rename(staged.c_str(), tokens_path.c_str()), 0);
}

std::unique_ptr<journal::Journal> ApiFixture::open_journal() {
  auto journal = journal::Journal::open(settings.journal_path, m_clock);
  EXPECT_TRUE(journal.ok()) << journal.error().message();
  return journal.ok() ? std::move(*journal) : nullptr;
}

tpslurm::testing::ProcessResult ApiFixture::cli(std::vector<std::string> args) {
  args.insert(args.begin(), TP_BINARY);
  return tpslurm::testing::run_process(args, env);
}

void ApiFixture::prepared_attempt_with_logs(journal::Journal& journal, const std::string& job_id) {
  ASSERT_TRUE(journal.add_attempt(job_id, 1, "token-1", "in").ok());
  journal::AttemptChanges changes;
  changes.attempt_dir = dir.file("attempts/1");
  ASSERT_TRUE(
      journal.transition({job_id, 1}, model::AttemptState::preparing, model::AttemptState::prepared, changes, {}).ok());
  storage::Manifest manifest;
  manifest.job_id = job_id;
  manifest.attempt = 1;
  manifest.submit_token = "token-1";
  manifest.image_path = "runtimes/x.sif";
  manifest.image_sha256 = std::string(64, 'a');
  manifest.logs = {{"batch", -1, "logs/batch.out", "logs/batch.err"},
                   {"component-0", 0, "logs/component-0.out", "logs/component-0.err"}};
  tpslurm::testing::write_test_file(dir.file("attempts/1/manifest.json"), storage::manifest_json(manifest));
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

}  // namespace tpslurm::api::testing
