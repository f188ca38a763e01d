#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "base/digest.h"
#include "journal/components.h"
#include "model/job_tag.h"
#include "real_end_to_end_test.h"
#include "slurm/jwt_source.h"
#include "support/journal_reader.h"
#include "support/local_slurm.h"
#include "support/run_process.h"

namespace tpslurm::reconcile::testing {

std::string env_of(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

void EndToEndTest::SetUp() {
  for (const char* name : {"TUNEPLANE_SLURM_REST_URL", "TUNEPLANE_SLURM_REST_USER", "TUNEPLANE_SLURM_JWT_FILE",
                           "TUNEPLANE_SLURM_PARTITION", "TUNEPLANE_LOCAL_SLURM_CONF",
                           "TUNEPLANE_LOCAL_SLURM_GPU_CONSTRAINT", "TUNEPLANE_LOCAL_SLURM_CPU_CONSTRAINT"}) {
    ASSERT_FALSE(env_of(name).empty()) << "the local Slurm is not up: " << name
                                       << " is not set; run tools/local-slurm up and export tools/local-slurm env";
  }
  m_instance = "e2e" + std::to_string(::getpid());
  // A real image: a SIF that the nodes' apptainer runs, or a SQSH that Pyxis hands to enroot
  // (local-slurm's stand-ins where the real ones are not installed).
  const bool sqsh = m_profile == "enroot-pyxis";
  ASSERT_TRUE(sqsh || m_profile == "apptainer") << m_profile;
  const std::string kind = sqsh ? "sqsh" : "sif";
  std::filesystem::create_directories(m_dir.file("storage/runtimes"));
  const auto made = tpslurm::testing::run_process(
      {TP_SOURCE_DIR "/tools/make-test-" + kind, m_dir.file("storage/runtimes/e2e." + kind)},
      {{"PATH", "/usr/sbin:/usr/bin:/sbin:/bin"}});
  ASSERT_EQ(made.exit_code, 0) << made.out << made.err;
  const std::string image = tpslurm::testing::read_test_file(m_dir.file("storage/runtimes/e2e." + kind));
  tpslurm::testing::write_test_file(m_dir.file("registry.json"),
                                    R"({"runtimes": {"custom-e2e": {"framework": "custom", "launcher": "srun",
        ")" + kind + R"(": {"path": "runtimes/e2e.)" +
                                        kind + R"(", "sha256": ")" + sha256_hex(image) + R"("}}}})");
  // One GPU series per node: vm has the h100 feature, vm-emu the emu one; each a fake GPU.
  tpslurm::testing::write_test_file(m_dir.file("gpu.json"), R"({"series": {"local-a": {"slurm_constraint": ")" +
                                                                env_of("TUNEPLANE_LOCAL_SLURM_GPU_CONSTRAINT") +
                                                                R"(", "gres": "gpu", "gpus_per_node": 1},
        "local-b": {"slurm_constraint": ")" + env_of("TUNEPLANE_LOCAL_SLURM_CPU_CONSTRAINT") +
                                                                R"(", "gres": "gpu", "gpus_per_node": 1}}})");
  m_settings.rest_url = env_of("TUNEPLANE_SLURM_REST_URL");
  m_settings.rest_user = env_of("TUNEPLANE_SLURM_REST_USER");
  m_settings.jwt_file = env_of("TUNEPLANE_SLURM_JWT_FILE");
  auto transport = slurm::CurlTransport::create(slurm::transport_options(m_settings));
  ASSERT_TRUE(transport.ok());
  m_transport = std::move(*transport);
  m_tokens = std::make_unique<slurm::FileTokenSource>(m_settings.rest_user, m_settings.jwt_file, m_clock);
  auto client = slurm::RestClient::create(*m_transport, *m_tokens, tpslurm::testing::local_slurm_version());
  ASSERT_TRUE(client.ok());
  m_client = std::move(*client);
}

void EndToEndTest::TearDown() {
  if (m_serve) kill_serve();
  // Nothing of these tests stays queued on the shared cluster.
  slurm::JobsResult all = m_client ? m_client->jobs_changed_since(std::nullopt) : slurm::JobsResult{};
  for (const auto& record : all.jobs) {
    if (record.name.rfind("tp-" + m_instance + "-", 0) == 0 && !record.state.base_is_final()) {
      (void)m_client->cancel(slurm::JobRef{record.job_id});
    }
  }
}

tpslurm::testing::EnvironmentMap EndToEndTest::daemon_env() {
  auto e = tpslurm::testing::minimal_environment();
  e["TUNEPLANE_STATE_DIR"] = m_dir.file("state");
  e["TUNEPLANE_STORAGE_ROOT"] = m_dir.file("storage");
  e["TUNEPLANE_GPU_SERIES_FILE"] = m_dir.file("gpu.json");
  e["TUNEPLANE_RUNTIME_REGISTRY_FILE"] = m_dir.file("registry.json");
  e["TUNEPLANE_SLURM_RUNTIME_PROFILE"] = m_profile;
  e["TUNEPLANE_INSTANCE"] = m_instance;
  e["TUNEPLANE_SLURM_PARTITION"] = env_of("TUNEPLANE_SLURM_PARTITION");
  e["TUNEPLANE_SLURM_REST_URL"] = m_settings.rest_url;
  e["TUNEPLANE_SLURM_REST_API_VERSION"] = "auto";
  // A release built from source (tools/slurm-release) is not under /usr: its srun comes first.
  if (const std::string prefix = env_of("TUNEPLANE_LOCAL_SLURM_PREFIX"); !prefix.empty()) {
    e["TUNEPLANE_SLURM_JOB_PATH"] = prefix + "/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  }
  e["TUNEPLANE_SLURM_REST_USER"] = m_settings.rest_user;
  e["TUNEPLANE_SLURM_JWT_FILE"] = m_settings.jwt_file;
  e["TUNEPLANE_POLL_INTERVAL"] = "1s";
  e["TUNEPLANE_LOG_LEVEL"] = "info";
  for (const auto& [key, value] : m_extra_env) e[key] = value;
  for (const auto& key : m_unset_env) e.erase(key);
  return e;
}

tpslurm::testing::ProcessResult EndToEndTest::cli(std::vector<std::string> args) {
  args.insert(args.begin(), TP_BINARY);
  return tpslurm::testing::run_process(args, daemon_env());
}

namespace {

// A LaunchRequest of the registry's one runtime, with the ingest token the secrets scan knows.
std::string request_json(const std::string& job_id, const std::string& command, const std::string& pools,
                         int max_attempts, const std::string& spec_fields, const std::string& user) {
  const std::string pool_json =
      pools.empty() ? R"([{"name": "main", "nodes": 1, "gpus_per_node": 0, "cpus": 1, "memory_gb": 1}])" : pools;
  const std::string user_json = user.empty() ? "" : R"(, "user": ")" + user + "\"";
  return R"({"job_id": ")" + job_id + "\"" + user_json + R"(, "type": "custom", "spec": {
      "framework": {"name": "custom", "runtime_id": "custom-e2e"}, "command": )" +
         command + R"(, "pools": )" + pool_json + R"(, "time_limit_minutes": 5, "retry": {"max_attempts": )" +
         std::to_string(max_attempts) + "}" + (spec_fields.empty() ? "" : ", " + spec_fields) +
         R"(}, "credentials": {"ingest_token": "tpcanary-e2e-ingest-token"}})";
}

}  // namespace

void EndToEndTest::submit(const std::string& job_id, const std::string& command, const std::string& pools,
                          int max_attempts, const std::string& working_dir) {
  // Under requests/, where the secrets scan expects a LaunchRequest and its ingest token.
  const std::string path = m_dir.file("requests/" + job_id + ".json");
  const std::string directory = working_dir.empty() ? "" : R"("working_dir": ")" + working_dir + "\"";
  tpslurm::testing::write_test_file(path, request_json(job_id, command, pools, max_attempts, directory, m_user));
  const auto added = cli({"submit", path});
  ASSERT_EQ(added.exit_code, 0) << added.err;
}

tpslurm::testing::ProcessResult EndToEndTest::try_submit(const std::string& job_id, const std::string& command,
                                                         const std::string& spec_fields) {
  const std::string path = m_dir.file("requests/" + job_id + ".json");
  tpslurm::testing::write_test_file(path, request_json(job_id, command, {}, 1, spec_fields, m_user));
  return cli({"submit", path});
}

void EndToEndTest::start_serve() {
  std::string error;
  m_serve =
      tpslurm::testing::BackgroundProcess::start({TP_BINARY, "serve"}, daemon_env(), m_dir.file("serve.log"), error);
  ASSERT_TRUE(m_serve) << error;
}

void EndToEndTest::kill_serve() {
  m_serve->signal(SIGKILL);
  m_serve->wait();
  m_serve.reset();
}

bool EndToEndTest::eventually(const std::string& job_id,
                              const std::function<bool(const journal::JobRecord&, const journal::AttemptRecord&)>& done,
                              std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    const auto list = attempts(job_id);
    if (!list.empty() && done(job(job_id), list.back())) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return false;
}

bool EndToEndTest::closed_in(const std::string& job_id, model::JobPhase phase, std::chrono::seconds limit) {
  return eventually(
      job_id,
      [&](const journal::JobRecord& j, const journal::AttemptRecord& a) {
        return j.phase == phase && a.cleanup == model::CleanupStep::closed;
      },
      limit);
}

journal::JobRecord EndToEndTest::job(const std::string& job_id) {
  auto journal = tpslurm::testing::open_read_only(m_dir.file("state/journal.db"));
  if (!journal) return {};
  auto found = journal->job(job_id);
  return found.ok() && found->has_value() ? **found : journal::JobRecord{};
}

std::vector<journal::AttemptRecord> EndToEndTest::attempts(const std::string& job_id) {
  auto journal = tpslurm::testing::open_read_only(m_dir.file("state/journal.db"));
  if (!journal) return {};
  auto list = journal->attempts(job_id);
  return list.ok() ? *list : std::vector<journal::AttemptRecord>{};
}

std::vector<std::string> EndToEndTest::event_kinds(const std::string& job_id) {
  std::vector<std::string> out;
  auto journal = tpslurm::testing::open_read_only(m_dir.file("state/journal.db"));
  if (!journal) return out;
  auto timeline = journal->timeline(job_id);
  if (!timeline.ok()) return out;
  for (const auto& e : *timeline) out.push_back(e.kind);
  return out;
}

bool EndToEndTest::an_event_detail_has(const std::string& job_id, const std::string& key) {
  auto journal = tpslurm::testing::open_read_only(m_dir.file("state/journal.db"));
  if (!journal) return false;
  auto timeline = journal->timeline(job_id);
  if (!timeline.ok()) return false;
  return std::any_of(timeline->begin(), timeline->end(), [&](const journal::TimelineEntry& e) {
    if (e.detail.empty()) return false;
    boost::system::error_code error;
    const auto detail = boost::json::parse(e.detail, error);
    return !error && detail.is_object() && detail.as_object().contains(key);
  });
}

std::string EndToEndTest::last_state_detail(const std::string& job_id) {
  auto journal = tpslurm::testing::open_read_only(m_dir.file("state/journal.db"));
  if (!journal) return {};
  auto timeline = journal->timeline(job_id);
  std::string out;
  if (!timeline.ok()) return out;
  for (const auto& e : *timeline) {
    if (e.kind == "attempt.state") out = e.detail;
  }
  return out;
}

int EndToEndTest::slurm_jobs_named(const std::string& job_id, int number) {
  const std::string name = model::job_name(m_instance, job_id, number);
  slurm::JobsResult all = m_client->jobs_changed_since(std::nullopt);
  EXPECT_TRUE(all.ok()) << all.message;
  std::set<std::uint32_t> leaders;
  for (const auto& record : all.jobs) {
    if (record.name == name) leaders.insert(record.het_job_id.value_or(record.job_id));
  }
  return static_cast<int>(leaders.size());
}

void EndToEndTest::expect_two_pool_hetjob_on_both_nodes(const std::string& command, const std::string& marker) {
  submit("het", command, R"([
    {"name": "trainer", "gpu_series": "local-a", "nodes": 1, "gpus_per_node": 1, "cpus": 1, "memory_gb": 1},
    {"name": "rollout", "gpu_series": "local-b", "nodes": 1, "gpus_per_node": 1, "cpus": 1, "memory_gb": 1}])");
  start_serve();
  ASSERT_TRUE(closed_in("het", model::JobPhase::succeeded)) << "phase " << model::to_string(job("het").phase);
  const auto components = journal::parse_components(attempts("het").back().components);
  ASSERT_EQ(components.size(), 2u);
  EXPECT_EQ(components[0].nodes, "vm");
  EXPECT_EQ(components[1].nodes, "vm-emu");
  for (const auto& c : components) EXPECT_EQ(c.state, "COMPLETED") << c.offset;
  for (const char* component : {"0", "1"}) {
    const auto logs = cli({"logs", "het", "--component", component});
    EXPECT_EQ(logs.exit_code, 0) << logs.err;
    EXPECT_NE(logs.out.find(marker), std::string::npos) << "component " << component << ": " << logs.out;
  }
}

tpslurm::testing::ProcessResult EndToEndTest::slurm_control(const std::vector<std::string>& args) {
  // The cluster's own scontrol: a release built from source is not the one on PATH.
  const std::string prefix = env_of("TUNEPLANE_LOCAL_SLURM_PREFIX");
  std::vector<std::string> argv{prefix.empty() ? std::string("scontrol") : prefix + "/bin/scontrol"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto e = tpslurm::testing::minimal_environment();
  e["SLURM_CONF"] = env_of("TUNEPLANE_LOCAL_SLURM_CONF");
  return tpslurm::testing::run_process(argv, e);
}

}  // namespace tpslurm::reconcile::testing
