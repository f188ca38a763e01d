#include "reconcile_fixture.h"

#include <set>

#include "base/digest.h"
#include "cli/inputs.h"
#include "config/logging.h"
#include "model/launch_request.h"
#include "reconcile/attempt_tag.h"
#include "render/render_request.h"
#include "slurm/jwt_source.h"
#include "storage/job_credential.h"

namespace tpslurm::reconcile::testing {
namespace {

const std::string kImage = "image bytes of the test runtime\n";

std::string pools_of(Shape shape) {
  switch (shape) {
    case Shape::gpu_single:
      return R"([{"name": "main", "gpu_series": "h100-80g", "nodes": 1, "gpus_per_node": 1, "cpus": 1, "memory_gb": 1}])";
    case Shape::three_pools:
      return R"([{"name": "a", "gpu_series": "h100-80g", "nodes": 1, "gpus_per_node": 1, "cpus": 1, "memory_gb": 1},
                 {"name": "b", "gpu_series": "h100-80g", "nodes": 1, "gpus_per_node": 1, "cpus": 1, "memory_gb": 1},
                 {"name": "c", "gpu_series": "h100-80g", "nodes": 1, "gpus_per_node": 1, "cpus": 1, "memory_gb": 1}])";
    case Shape::cpu_only: return R"([{"name": "main", "nodes": 1, "gpus_per_node": 0, "cpus": 1, "memory_gb": 1}])";
  }
  return "[]";
}

}  // namespace

std::string release_test_name(const ::testing::TestParamInfo<const char*>& param_info) {
  std::string name = param_info.param;
  std::replace(name.begin(), name.end(), '.', '_');
  return "Slurm" + name;
}

std::string_view to_string(Shape shape) {
  switch (shape) {
    case Shape::gpu_single: return "single-pool";
    case Shape::three_pools: return "three-pool hetjob";
    case Shape::cpu_only: return "CPU-only";
  }
  return "?";
}

Result<slurm::Credentials> TurningTokens::credentials() {
  auto good = m_good->credentials();
  if (!good.ok()) return good;
  int left = m_good_left.load();
  while (left > 0 && !m_good_left.compare_exchange_weak(left, left - 1)) {
  }
  if (left != 0) return good;
  // The signature's first character changed: the token no longer verifies.
  const std::size_t signature = good->token.rfind('.') + 1;
  if (signature < good->token.size()) good->token[signature] = good->token[signature] == 'A' ? 'B' : 'A';
  return good;
}

ReconcileTest::ReconcileTest() {
  (void)config::configure_logging("warn", model::LogFormat::text);
  tpslurm::testing::write_test_file(dir.file("storage/runtimes/test.sqsh"), kImage);
  tpslurm::testing::write_test_file(dir.file("registry.json"),
                                    R"({"runtimes": {"custom-test": {"framework": "custom", "launcher": "srun",
          "sqsh": {"path": "runtimes/test.sqsh", "sha256": ")" +
                                        sha256_hex(kImage) + R"("}}}})");
  tpslurm::testing::write_test_file(
      dir.file("gpu-series.json"),
      R"({"series": {"h100-80g": {"slurm_constraint": "h100", "gres": "gpu", "gpus_per_node": 8}}})");
  settings.instance = "t";
  settings.storage_root = dir.file("storage");
  settings.state_dir = dir.file("state");
  settings.journal_path = dir.file("state/journal.db");
  settings.partition = "gpu";
  settings.cpu_partition = "cpu";
  settings.runtime_registry_file = dir.file("registry.json");
  settings.gpu_series_file = dir.file("gpu-series.json");
  settings.resolve_quiet_period = std::chrono::seconds(1);
  auto catalogs = cli::load_catalogs(settings, "test");
  EXPECT_TRUE(catalogs.ok()) << (catalogs.ok() ? "" : catalogs.error().to_text());
  if (catalogs.ok()) m_catalogs = std::move(*catalogs);
  std::filesystem::create_directories(settings.state_dir);
  auto opened = journal::Journal::open(settings.journal_path, m_clock);
  EXPECT_TRUE(opened.ok()) << (opened.ok() ? "" : opened.error().message());
  if (opened.ok()) m_journal = std::move(*opened);
}

ReconcileTest::~ReconcileTest() { (void)stop_daemon(); }

void ReconcileTest::start(std::vector<std::string> args, std::string dialect) {
  args.insert(args.begin(), {"--manual-clock", "--timing", "manual"});
  auto started = slurm::testing::SimProcess::start(args);
  ASSERT_TRUE(started.ok()) << started.error().message();
  sim = std::move(*started);
  std::unique_ptr<slurm::TokenSource> good = sim->tokens();
  if (!minting_service_user.empty()) {
    good = std::make_unique<slurm::MintingTokenSource>(minting_service_user, "(the simulator's key)",
                                                       std::chrono::hours(24), m_clock, nullptr,
                                                       [key = sim->key()]() -> Result<std::string> { return key; });
  }
  auto turning = std::make_unique<TurningTokens>(std::move(good));
  m_turning = turning.get();
  m_tokens = std::move(turning);
  slurm::CurlTransportOptions options;
  options.url = sim->url();
  options.connect_timeout = std::chrono::milliseconds(1000);
  options.total_timeout = std::chrono::milliseconds(3000);
  auto transport = slurm::CurlTransport::create(options);
  ASSERT_TRUE(transport.ok()) << transport.error().message();
  m_transport = std::move(*transport);
  m_budget = std::make_unique<slurm::RequestBudget>(m_clock, budget_limits);
  slurm::RestClientOptions client_options;
  client_options.clock = &m_clock;
  if (client_asks_budget) client_options.budget = m_budget.get();
  auto client = slurm::RestClient::create(*m_transport, *m_tokens, std::move(dialect), client_options);
  ASSERT_TRUE(client.ok()) << client.error().message();
  m_client = std::move(*client);
}

journal::NewJob ReconcileTest::new_job(const std::string& job_id, Shape shape, int max_attempts,
                                       const std::string& unix_user) {
  const std::string request = R"({"job_id": ")" + job_id + R"(", "type": "custom", "spec": {
      "framework": {"name": "custom", "runtime_id": "custom-test"},
      "command": ["python", "train.py"], "pools": )" +
                              pools_of(shape) + R"(, "time_limit_minutes": 10,
      "retry": {"max_attempts": )" +
                              std::to_string(max_attempts) +
                              R"(}}, "credentials": {"ingest_token": "tpcanary-ingest-)" + job_id + R"("}})";
  const render::RenderCatalogs catalogs{m_catalogs.gpu_series, m_catalogs.runtimes};
  auto parsed = render::parse_request(request, catalogs, settings);
  if (!parsed.ok()) {
    ADD_FAILURE() << parsed.error().to_text();
    return {};
  }
  auto credential = storage::write_job_credential(settings.storage_root, job_id, *parsed->ingest_token, m_key);
  if (!credential.ok()) {
    ADD_FAILURE() << credential.error().message();
    return {};
  }
  return {job_id,           parsed->canonical_json, sha256_hex(parsed->canonical_json),
          credential->path, credential->hmac,       parsed->max_attempts,
          unix_user,        unix_user,              unix_user.empty() ? "" : "acct-" + unix_user,
          std::nullopt};
}

void ReconcileTest::add_job(const std::string& job_id, Shape shape, int max_attempts, const std::string& unix_user) {
  auto added = m_journal->add_job(new_job(job_id, shape, max_attempts, unix_user));
  ASSERT_TRUE(added.ok()) << added.error().message();
}

void ReconcileTest::add_sweep(const std::string& sweep_id, const std::vector<std::string>& job_ids, Shape shape,
                              std::optional<int> max_running) {
  journal::NewSweep sweep;
  sweep.sweep_id = sweep_id;
  sweep.request_sha256 = sha256_hex(sweep_id);
  sweep.max_running = max_running;
  for (const std::string& job_id : job_ids) sweep.jobs.push_back(new_job(job_id, shape, 1));
  auto added = m_journal->add_sweep(sweep);
  ASSERT_TRUE(added.ok()) << added.error().message();
}

void ReconcileTest::add_job_through_daemon(const std::string& job_id, Shape shape) {
  ASSERT_TRUE(m_daemon) << "the daemon is not running";
  const journal::NewJob job = new_job(job_id, shape, 1);
  const Status added = m_daemon->commit_from_outside(
      [&job](journal::Journal& j) -> Status {
        auto outcome = j.add_job(job);
        return outcome.ok() ? ok_status() : Status(outcome.error());
      },
      {job_id});
  ASSERT_TRUE(added.ok()) << added.error().message();
}

CycleReport ReconcileTest::once() {
  if (!m_controller) {
    m_controller = std::make_unique<Controller>(ControllerParts{
        *m_journal, *m_client, settings, m_catalogs, m_clock, m_key, m_budget.get(), 2, kSweepEvery, {}});
  }
  return m_controller->run_once();
}

void ReconcileTest::restart() { m_controller.reset(); }

void ReconcileTest::start_daemon(StepObserver observer, int threads) {
  ASSERT_FALSE(m_daemon) << "the daemon runs already";
  m_daemon = std::make_unique<Controller>(ControllerParts{*m_journal, *m_client, settings, m_catalogs, m_clock, m_key,
                                                          m_budget.get(), threads, kSweepEvery, std::move(observer)});
  m_daemon_thread = std::thread([this] { m_daemon->run(); });
}

Controller::JournalCounts ReconcileTest::stop_daemon() {
  if (!m_daemon) return {};
  m_daemon->request_stop();
  m_daemon_thread.join();
  const Controller::JournalCounts counts = m_daemon->journal_counts();
  m_daemon.reset();
  return counts;
}

journal::AttemptRecord ReconcileTest::attempt(const std::string& job_id, int number) {
  auto attempts = m_journal->attempts(job_id);
  EXPECT_TRUE(attempts.ok());
  if (attempts.ok()) {
    for (const auto& a : *attempts) {
      if (a.number == number) return a;
    }
  }
  ADD_FAILURE() << "no attempt " << job_id << "/" << number;
  return {};
}

journal::JobRecord ReconcileTest::job(const std::string& job_id) {
  auto job = m_journal->job(job_id);
  EXPECT_TRUE(job.ok() && job->has_value()) << job_id;
  return job.ok() && job->has_value() ? **job : journal::JobRecord{};
}

std::vector<std::string> ReconcileTest::story(const std::string& job_id) {
  std::vector<std::string> out;
  auto timeline = m_journal->timeline(job_id);
  EXPECT_TRUE(timeline.ok());
  if (!timeline.ok()) return out;
  for (const auto& e : *timeline) {
    out.push_back(e.from_state.empty() && e.to_state.empty() ? e.kind
                                                             : e.kind + ":" + e.from_state + "->" + e.to_state);
  }
  return out;
}

std::vector<model::JobSnapshot> ReconcileTest::slurm_jobs(const std::string& job_id, int number) {
  std::vector<model::JobSnapshot> out;
  const std::string name = model::job_name(settings.instance, job_id, number);
  slurm::JobsResult all = m_client->jobs_changed_since(std::nullopt);
  EXPECT_TRUE(all.ok()) << all.message;
  for (const auto& record : all.jobs) {
    if (record.name == name) out.push_back(record);
  }
  return out;
}

int ReconcileTest::slurm_job_count(const std::string& job_id, int number) {
  std::set<std::uint32_t> leaders;
  for (const auto& record : slurm_jobs(job_id, number)) leaders.insert(record.het_job_id.value_or(record.job_id));
  return static_cast<int>(leaders.size());
}

boost::json::value ReconcileTest::sim_view(std::uint32_t id) {
  auto view = sim->control(slurm::HttpMethod::get, "/sim/jobs/" + std::to_string(id));
  EXPECT_TRUE(view.ok()) << (view.ok() ? "" : view.error().message());
  return view.ok() ? *view : boost::json::value{};
}

std::uint32_t ReconcileTest::submit_copy(const model::JobSnapshot& original) {
  model::SubmitDescription copy;
  copy.tag = original.tag();
  copy.script = "#!/bin/bash\ntrue\n";
  copy.environment = {{"PATH", "/usr/bin:/bin"}};
  copy.hold = true;
  copy.time_limit_minutes = 10;
  copy.components = {model::SubmitComponent{"cpu", "", 1, 1, 1, 100, ""}};
  slurm::SubmitResult answer = m_client->submit(copy);
  EXPECT_TRUE(answer.ok()) << answer.message;
  return answer.job_id.value_or(0);
}

void ReconcileTest::fault(const std::string& rule) {
  auto id = sim->add_fault(rule);
  ASSERT_TRUE(id.ok()) << id.error().message();
}

void ReconcileTest::step(std::uint32_t id, const std::string& body) {
  auto answer = sim->control(slurm::HttpMethod::post, "/sim/jobs/" + std::to_string(id) + "/state", body);
  ASSERT_TRUE(answer.ok()) << answer.error().message();
}

void ReconcileTest::advance_sim(int seconds) {
  auto answer =
      sim->control(slurm::HttpMethod::post, "/sim/clock/advance", R"({"seconds": )" + std::to_string(seconds) + "}");
  ASSERT_TRUE(answer.ok()) << answer.error().message();
}

void ReconcileTest::advance_slurm(const std::string& job_id) {
  for (const auto& record : slurm_jobs(job_id)) {
    std::string body;
    const model::SlurmBaseState state = record.state.base;
    if (state == model::SlurmBaseState::pending && record.state_reason != "JobHeldUser") {
      body = R"({"state": "RUNNING"})";
    } else if (state == model::SlurmBaseState::running) {
      body = R"({"state": "COMPLETED", "completing": true})";
    } else if (state == model::SlurmBaseState::completed && record.state.has(model::SlurmStateFlag::completing)) {
      body = R"({"completing": false})";
    }
    if (!body.empty()) step(record.job_id, body);
  }
}

void ReconcileTest::forget_slurm_jobs() {
  auto answer = sim->control(slurm::HttpMethod::post, "/sim/ids/reset", R"({"next_id": 5000, "forget_jobs": true})");
  ASSERT_TRUE(answer.ok()) << answer.error().message();
}

std::string ReconcileTest::event_detail(const std::string& job_id, const std::string& to_state) {
  auto timeline = journal().timeline(job_id);
  if (!timeline.ok()) return "";
  std::string out;
  for (const auto& e : *timeline) {
    if (e.kind == "attempt.state" && e.to_state == to_state) out = e.detail;
  }
  return out;
}

int ReconcileTest::count_events(const std::string& job_id, const std::string& kind) {
  int n = 0;
  for (const auto& e : story(job_id)) n += e == kind ? 1 : 0;
  return n;
}

void ReconcileTest::set_desire_cancel(const std::string& job_id, const std::string& reason) {
  const journal::JobRecord record = job(job_id);
  ASSERT_TRUE(m_journal->set_desire(job_id, model::Desire::cancel, reason, record.version).ok());
}

}  // namespace tpslurm::reconcile::testing
