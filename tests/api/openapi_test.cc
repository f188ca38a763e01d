// The API's description (src/api/openapi.yaml) against the real answers: the in-process server
// over a real journal is asked every described operation, in as many of its statuses as the
// journal can produce here, and every exchange is recorded (method, path template, target,
// status, content type, the headers the description names, both bodies); then
// tests/api/openapi_check.py, run with the Debian python (python3-jsonschema, python3-yaml),
// checks the description itself and every exchange against it, and that no described
// operation went unexercised. The check is also fed exchanges made wrong on purpose, to show
// that it fails and names the route and the field.
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "api_fixture.h"
#include "journal/components.h"
#include "metrics/metrics.h"
#include "model/usage.h"
#include "support/journal_story.h"

namespace tpslurm::api::testing {
namespace {

namespace json = boost::json;
using model::AttemptState;
using model::CleanupStep;
using tpslurm::testing::write_test_file;

constexpr const char* kJob = "ft-7f3c2a";  // etc/launch-request.example.json
// Tokens with one scope each, for the 403s.
const std::string kReader = "tpcanary-reader-0123456789abcdef";
const std::string kSubmitter = "tpcanary-submitter-0123456789abcdef";
constexpr const char* kCpuJob = "prep-41d9e0";  // etc/launch-request.cpu-only.example.json

struct CheckRun {
  int exit_code = -1;
  std::string output;
};

class OpenApiTest : public ApiFixture {
 protected:
  void SetUp() override {
    metrics = &m_metrics;
    write_tokens("alice " + kAliceToken + " read,submit,operate\nbob " + kBobToken + " read,submit,operate\nreader " +
                 kReader + " read\nsubmitter " + kSubmitter + " submit\n");
    start();
  }

  // Asks the server and records the exchange under the path template it means.
  HttpAnswer ask(const std::string& method, const std::string& path_template, const std::string& target,
                 const std::string& token = kAliceToken, const std::string& body = "") {
    HttpAnswer answer = call(method, target, token, body);
    EXPECT_NE(answer.status, 0) << method << " " << target << ": " << answer.error;
    json::object headers;
    for (const char* name : {"allow", "location", "retry-after", "www-authenticate"}) {
      if (auto found = answer.headers.find(name); found != answer.headers.end()) headers[name] = found->second;
    }
    const auto type = answer.headers.find("content-type");
    m_exchanges.push_back(json::object{{"method", method},
                                       {"template", path_template},
                                       {"target", target},
                                       {"status", answer.status},
                                       {"content_type", type == answer.headers.end() ? "" : type->second},
                                       {"headers", std::move(headers)},
                                       {"request_body", body},
                                       {"body", answer.body}});
    return answer;
  }

  CheckRun check(const std::vector<json::object>& exchanges, std::vector<std::string> options) {
    const std::string file = dir.file("exchanges-" + std::to_string(m_runs++) + ".jsonl");
    std::string lines;
    for (const auto& exchange : exchanges) lines += json::serialize(exchange) + "\n";
    write_test_file(file, lines);
    std::vector<std::string> args{TP_PYTHON, TP_OPENAPI_CHECK, TP_OPENAPI_DOC, file};
    args.insert(args.end(), options.begin(), options.end());
    auto result = tpslurm::testing::run_process(args, tpslurm::testing::minimal_environment());
    return {result.exit_code, result.out + result.err};
  }

  // Attempt 1 of kJob through a lost answer, adoption, a run and its whole cleanup, with an
  // attempt directory whose manifest names a log that is there, one that is missing and one
  // that is a symbolic link (unreadable). Written on another connection, as the daemon does.
  void live_attempt() {
    auto j = open_journal();
    const journal::AttemptKey key{kJob, 1};
    prepared_attempt_with_logs(*j, kJob);
    write_test_file(dir.file("attempts/1/logs/batch.out"), "step 1\nstep 2\n");
    ASSERT_EQ(::symlink("/etc/hostname", dir.file("attempts/1/logs/component-0.out").c_str()), 0);

    journal::AttemptChanges submitting;
    submitting.submit_mode = "held";
    ASSERT_TRUE(j->transition(key, AttemptState::prepared, AttemptState::submitting, submitting, {}).ok());
    ASSERT_TRUE(j->transition(key, AttemptState::submitting, AttemptState::submit_unknown, {}, {}).ok());
    model::JobSnapshot snapshot;
    snapshot.job_id = 4242;
    snapshot.sluid = "s0123456789abc";
    snapshot.nodes = "vm";
    snapshot.state = model::SlurmState::from_text("RUNNING");
    snapshot.state_reason = "None";
    snapshot.start_time = std::chrono::system_clock::now();
    journal::AttemptChanges found;
    found.slurm_job_id = 4242;
    found.sluid = "s0123456789abc";
    found.components = journal::components_json({snapshot});
    found.found_by = "search";
    found.identified = true;
    found.released = true;
    ASSERT_TRUE(j->transition(key, AttemptState::submit_unknown, AttemptState::submitted, found,
                              {{"reason", "found by its tag"}})
                    .ok());
    ASSERT_TRUE(j->record_event(kJob, 1, "anomaly", {{"reason", "requeued by Slurm"}}).ok());
    journal::AttemptChanges observed;
    observed.observed = true;
    observed.slurm_state = "RUNNING";
    ASSERT_TRUE(j->transition(key, AttemptState::submitted, AttemptState::running, observed, {}).ok());
    journal::AttemptChanges ended;
    ended.exit_code = 0;
    ended.slurm_state = "COMPLETED";
    ASSERT_TRUE(j->transition(key, AttemptState::running, AttemptState::succeeded, ended, {}).ok());
    ASSERT_TRUE(j->advance_cleanup(key, CleanupStep::none, CleanupStep::staging_pending, {}).ok());
    ASSERT_TRUE(j->advance_cleanup(key, CleanupStep::staging_pending, CleanupStep::sealing, {}).ok());
    model::AttemptUsage usage;
    usage.components.push_back({0, "gpu", "h100-80g", model::Allocation{3600, 16, 65536, 1, 2}});
    journal::AttemptChanges used;
    used.usage = model::usage_json(usage);
    ASSERT_TRUE(
        j->update_attempt(key, AttemptState::succeeded, used, "usage", {{"reason", model::usage_words(usage)}}).ok());
    // The shape reconcile/cleanup_steps.cc's seal_logs journals.
    const std::string sealed = json::serialize(json::object{
        {"files", json::object{{"batch.out", std::string(64, 'b')}}},
        {"partly", json::object{{"huge.log", json::object{{"size", 107374182400},
                                                          {"first", 8388608},
                                                          {"last", 8388608},
                                                          {"sha256", std::string(64, 'c')}}}}},
        {"notes", json::array{"batch.err: missing"}}});
    ASSERT_TRUE(j->advance_cleanup(key, CleanupStep::sealing, CleanupStep::closed, {}, sealed).ok());
  }

  // Attempt 1 of kCpuJob pending in Slurm for Resources, with an expected start and a change of
  // its wait journaled (the job's `pending` view and a `pending` feed item).
  void pending_attempt() {
    auto j = open_journal();
    const journal::AttemptKey key{kCpuJob, 1};
    ASSERT_TRUE(j->add_attempt(kCpuJob, 1, "token-cpu-1", "input").ok());
    ASSERT_TRUE(j->transition(key, AttemptState::preparing, AttemptState::prepared, {}, {}).ok());
    ASSERT_TRUE(j->transition(key, AttemptState::prepared, AttemptState::submitting, {}, {}).ok());
    model::JobSnapshot snapshot;
    snapshot.job_id = 4250;
    snapshot.state = model::SlurmState::from_text("PENDING");
    snapshot.state_reason = "Resources";
    snapshot.start_time = std::chrono::system_clock::now() + std::chrono::hours(3);
    journal::AttemptChanges receipt;
    receipt.slurm_job_id = 4250;
    receipt.components = journal::components_json({snapshot});
    ASSERT_TRUE(j->transition(key, AttemptState::submitting, AttemptState::submitted, receipt, {}).ok());
    ASSERT_TRUE(j->transition(key, AttemptState::submitted, AttemptState::pending, {}, {{"reason", "Priority"}}).ok());
    ASSERT_TRUE(j->update_attempt(key, AttemptState::pending, {}, "attempt.pending",
                                  {{"reason", "Resources"}, {"expected_start", "2026-12-24T18:00:00Z"}})
                    .ok());
  }

  std::vector<json::object> m_exchanges;

 private:
  SystemClock m_metrics_clock;
  metrics::Metrics m_metrics{m_metrics_clock};
  int m_runs = 0;
};

TEST_F(OpenApiTest, EveryAnswerMatchesTheDescription) {
  ask("GET", "/healthz", "/healthz", "");
  ask("POST", "/healthz", "/healthz", "");
  ask("GET", "/v1/jobs", "/v1/jobs", "");
  ask("GET", "/v1/jobs", "/v1/jobs", "not-a-known-token-at-all");

  const std::string request = example_request();
  const std::string cpu_request = tpslurm::testing::read_test_file(source("etc/launch-request.cpu-only.example.json"));
  ASSERT_EQ(ask("POST", "/v1/jobs", "/v1/jobs", kAliceToken, request).status, 201);
  ASSERT_EQ(ask("POST", "/v1/jobs", "/v1/jobs", kBobToken, request).status, 200);
  ASSERT_EQ(ask("POST", "/v1/jobs", "/v1/jobs", kAliceToken, cpu_request).status, 201);
  EXPECT_EQ(ask("POST", "/v1/jobs", "/v1/jobs", kAliceToken, replaced(request, "3e-4", "1e-3")).status, 409);
  EXPECT_EQ(ask("POST", "/v1/jobs", "/v1/jobs", kAliceToken, replaced(request, "\"nodes\": 2", "\"nodes\": 0")).status,
            422);
  EXPECT_EQ(ask("POST", "/v1/jobs", "/v1/jobs", kAliceToken, "{\"job_id\": ").status, 400);
  ask("PUT", "/v1/jobs", "/v1/jobs");
  const std::string sweep = tpslurm::testing::read_test_file(source("etc/sweep.example.json"));
  ASSERT_EQ(ask("POST", "/v1/sweeps", "/v1/sweeps", kAliceToken, sweep).status, 201);
  ASSERT_EQ(ask("POST", "/v1/sweeps", "/v1/sweeps", kBobToken, sweep).status, 200);
  EXPECT_EQ(ask("POST", "/v1/sweeps", "/v1/sweeps", kAliceToken, replaced(sweep, "3e-4", "5e-4")).status, 409);
  EXPECT_EQ(ask("POST", "/v1/sweeps", "/v1/sweeps", kAliceToken, replaced(sweep, "\"max_running\": 2", "\"max_running\": 4"))
                .status,
            422);
  EXPECT_EQ(ask("POST", "/v1/sweeps", "/v1/sweeps", kAliceToken, "{\"sweep_id\": ").status, 400);
  ask("GET", "/v1/sweeps", "/v1/sweeps");
  EXPECT_EQ(ask("GET", "/v1/sweeps/{id}", "/v1/sweeps/lr-sweep-3").status, 200);
  EXPECT_EQ(ask("GET", "/v1/sweeps/{id}", "/v1/sweeps/no-such-sweep").status, 404);
  ask("POST", "/v1/sweeps/{id}", "/v1/sweeps/lr-sweep-3");
  live_attempt();
  pending_attempt();

  ask("GET", "/v1/jobs", "/v1/jobs");
  EXPECT_EQ(json::parse(ask("GET", "/v1/jobs", "/v1/jobs?limit=1").body).at("next"), kJob);
  ask("GET", "/v1/jobs", "/v1/jobs?phase=queued&after=a");
  EXPECT_EQ(ask("GET", "/v1/jobs", "/v1/jobs?phase=done&limit=0").status, 422);

  const std::string job = std::string("/v1/jobs/") + kJob;
  EXPECT_EQ(ask("GET", "/v1/jobs/{id}", job).status, 200);
  EXPECT_EQ(ask("GET", "/v1/jobs/{id}", std::string("/v1/jobs/") + kCpuJob).status, 200);
  EXPECT_EQ(ask("GET", "/v1/jobs/{id}", "/v1/jobs/no-such-job").status, 404);
  ask("DELETE", "/v1/jobs/{id}", job);
  EXPECT_EQ(ask("GET", "/v1/jobs/{id}/audit", job + "/audit").status, 200);
  EXPECT_EQ(ask("GET", "/v1/jobs/{id}/audit", "/v1/jobs/no-such-job/audit").status, 404);

  const auto logs = ask("GET", "/v1/jobs/{id}/logs", job + "/logs");
  ASSERT_EQ(logs.status, 200) << logs.body;
  EXPECT_EQ(json::parse(logs.body).at("logs").as_array().size(), 2u);
  EXPECT_EQ(ask("GET", "/v1/jobs/{id}/logs", job + "/logs?attempt=1&component=0&stream=stdout").status, 200);
  EXPECT_EQ(ask("GET", "/v1/jobs/{id}/logs", job + "/logs?component=-1&stream=stderr&offset=0").status, 200);
  EXPECT_EQ(ask("GET", "/v1/jobs/{id}/logs", std::string("/v1/jobs/") + kCpuJob + "/logs").status, 200);
  EXPECT_EQ(ask("GET", "/v1/jobs/{id}/logs", job + "/logs?attempt=7").status, 404);
  EXPECT_EQ(ask("GET", "/v1/jobs/{id}/logs", job + "/logs?component=5").status, 422);
  ask("POST", "/v1/jobs/{id}/logs", job + "/logs");

  const std::string cancel = std::string("/v1/jobs/") + kCpuJob + "/cancel";
  EXPECT_EQ(
      ask("POST", "/v1/jobs/{id}/cancel", cancel, kAliceToken, "{\"reason\": \"x\", \"grace_seconds\": 30}").status,
      200);
  EXPECT_EQ(ask("POST", "/v1/jobs/{id}/cancel", cancel, kBobToken).status, 200);
  EXPECT_EQ(ask("POST", "/v1/jobs/{id}/cancel", job + "/cancel").status, 200);
  EXPECT_EQ(ask("POST", "/v1/jobs/{id}/cancel", "/v1/jobs/no-such-job/cancel").status, 404);
  EXPECT_EQ(ask("POST", "/v1/jobs/{id}/cancel", cancel, kAliceToken, "{\"grace_seconds\": -1}").status, 422);
  EXPECT_EQ(ask("POST", "/v1/jobs/{id}/cancel", cancel, kAliceToken, "[1,").status, 400);
  ask("GET", "/v1/jobs/{id}/cancel", cancel);

  EXPECT_EQ(ask("POST", "/v1/pause", "/v1/pause", kAliceToken, "{}").status, 422);
  EXPECT_EQ(ask("POST", "/v1/pause", "/v1/pause", kAliceToken, "{\"reason\": \"maintenance\"}").status, 200);
  EXPECT_TRUE(json::parse(ask("POST", "/v1/pause", "/v1/pause", kBobToken, "{\"reason\": \"x\"}").body)
                  .as_object()
                  .contains("since"));
  EXPECT_EQ(ask("POST", "/v1/pause", "/v1/pause", kAliceToken, "nope").status, 400);
  ask("GET", "/v1/pause", "/v1/pause");
  EXPECT_EQ(ask("POST", "/v1/resume", "/v1/resume", kBobToken, "{\"reason\": \"done\"}").status, 200);
  EXPECT_EQ(ask("POST", "/v1/resume", "/v1/resume", kBobToken).status, 200);
  EXPECT_EQ(ask("POST", "/v1/resume", "/v1/resume", kBobToken, "{\"why\": 1}").status, 422);

  const auto feed = ask("GET", "/v1/events", "/v1/events");
  ASSERT_EQ(feed.status, 200);
  const json::value page = json::parse(feed.body);
  EXPECT_GE(page.at("events").as_array().size(), 8u);
  const auto& items = page.at("events").as_array();
  EXPECT_EQ(std::count_if(items.begin(), items.end(), [](const auto& i) { return i.at("change") == "pending"; }), 2)
      << "a wait's items (the move to pending, and a change) are checked against the description";
  const std::string next = std::to_string(page.at("next").as_int64());
  ask("GET", "/v1/events", "/v1/events?after=2&limit=3");
  ask("GET", "/v1/events", "/v1/events?after=" + next + "&wait=1s");
  EXPECT_EQ(ask("GET", "/v1/events", "/v1/events?after=-1&wait=61s").status, 422);
  ask("POST", "/v1/events", "/v1/events");
  // A submit whose answer was lost, resolved absent once a complete search ran after the
  // quiet period; this server has no Slurm client, so an adoption is 503.
  const TimePoint intent = SystemClock().now() - std::chrono::hours(1);
  ASSERT_TRUE(tpslurm::testing::add_blocked_job(settings.journal_path, "b1", intent).ok());
  const std::string resolve = "/v1/attempts/b1%2F1/resolve";
  const std::string path = "/v1/attempts/{attempt}/resolve";
  EXPECT_EQ(ask("POST", path, resolve, kAliceToken, "{\"absent\": true, \"reason\": \"gone\"}").status, 409);
  EXPECT_EQ(ask("POST", path, resolve, kAliceToken, "{\"absent\": true}").status, 422);
  EXPECT_EQ(ask("POST", path, resolve, kAliceToken, "[").status, 400);
  EXPECT_EQ(ask("POST", path, resolve, kAliceToken, "{\"adopt\": \"7\"}").status, 503);
  EXPECT_EQ(ask("POST", path, "/v1/attempts/b1%2F4/resolve", kAliceToken, "{\"adopt\": \"7\"}").status, 404);
  ask("POST", path, resolve, "", "{\"adopt\": \"7\"}");
  ask("GET", path, resolve);
  ASSERT_TRUE(
      tpslurm::testing::record_search(settings.journal_path, "b1", intent + std::chrono::minutes(40), true).ok());
  EXPECT_EQ(ask("POST", path, resolve, kAliceToken, "{\"absent\": true, \"reason\": \"gone\"}").status, 200);
  EXPECT_EQ(ask("POST", path, resolve, kAliceToken, "{\"absent\": true, \"reason\": \"gone\"}").status, 409);

  // Not ready here: no Slurm client to ask.
  EXPECT_EQ(ask("GET", "/readyz", "/readyz").status, 503);
  ask("GET", "/readyz", "/readyz", "");
  ask("POST", "/readyz", "/readyz");
  EXPECT_EQ(ask("GET", "/metrics", "/metrics").status, 200);
  ask("GET", "/metrics", "/metrics", "");
  ask("POST", "/metrics", "/metrics");

  // Each operation asked with a token that lacks its scope.
  const std::pair<std::string, std::string> forbidden[] = {
      {"GET /readyz", "/readyz"},
      {"GET /metrics", "/metrics"},
      {"GET /v1/jobs", "/v1/jobs"},
      {"POST /v1/jobs", "/v1/jobs"},
      {"POST /v1/sweeps", "/v1/sweeps"},
      {"GET /v1/sweeps/{id}", "/v1/sweeps/lr-sweep-3"},
      {"GET /v1/jobs/{id}", job},
      {"GET /v1/jobs/{id}/audit", job + "/audit"},
      {"GET /v1/jobs/{id}/logs", job + "/logs"},
      {"POST /v1/jobs/{id}/cancel", job + "/cancel"},
      {"POST /v1/attempts/{attempt}/resolve", resolve},
      {"POST /v1/pause", "/v1/pause"},
      {"POST /v1/resume", "/v1/resume"},
      {"GET /v1/events", "/v1/events"},
  };
  for (const auto& [operation, target] : forbidden) {
    const std::string method = operation.substr(0, operation.find(' '));
    const std::string token = method == "GET" ? kSubmitter : kReader;
    const std::string body = method == "POST" ? "{}" : "";
    EXPECT_EQ(ask(method, operation.substr(operation.find(' ') + 1), target, token, body).status, 403) << operation;
  }

  EXPECT_EQ(ask("GET", "", "/v2/jobs").status, 404);
  EXPECT_EQ(ask("GET", "", "/v1/jobs/a/b/c").status, 404);

  const CheckRun run = check(m_exchanges, {});
  EXPECT_EQ(run.exit_code, 0) << run.output;
}

// A real answer made wrong in one way, checked alone: the check fails and names the route and
// what is wrong.
TEST_F(OpenApiTest, TheCheckFailsOnAnAnswerThatDriftedNamingTheRouteAndTheField) {
  ask("GET", "/healthz", "/healthz", "");
  ASSERT_EQ(ask("POST", "/v1/jobs", "/v1/jobs", kAliceToken, example_request()).status, 201);
  ASSERT_EQ(ask("GET", "/v1/jobs/{id}", std::string("/v1/jobs/") + kJob).status, 200);
  ASSERT_EQ(check(m_exchanges, {"--no-coverage"}).exit_code, 0) << check(m_exchanges, {"--no-coverage"}).output;

  json::object health = m_exchanges[0];
  health["status"] = 418;
  json::object submitted = m_exchanges[1];
  json::object extra = json::parse(submitted["body"].as_string()).as_object();
  extra["colour"] = "blue";
  submitted["body"] = json::serialize(extra);
  json::object status = m_exchanges[2];
  json::object missing = json::parse(status["body"].as_string()).as_object();
  missing.erase("phase");
  status["body"] = json::serialize(missing);
  json::object typed = m_exchanges[2];
  typed["content_type"] = "text/html";
  ASSERT_EQ(ask("GET", "/v1/jobs/{id}", std::string("/v1/jobs/") + kJob, kSubmitter).status, 403);
  json::object scope = m_exchanges.back();
  json::object named = json::parse(scope["body"].as_string()).as_object();
  named["message"] = "this route needs the scope `submit`";
  scope["body"] = json::serialize(named);

  const std::pair<json::object, std::vector<std::string>> cases[] = {
      {health, {"GET /healthz 418", "status 418 is not described"}},
      {submitted, {"POST /v1/jobs 201", "'colour' was unexpected"}},
      {status, {"GET /v1/jobs/{id} 200", "'phase' is a required property"}},
      {typed, {"GET /v1/jobs/{id} 200", "content type 'text/html' is not described"}},
      {scope, {"GET /v1/jobs/{id} 403", "the message does not name the scope `read` the operation needs"}},
  };
  for (const auto& [exchange, words] : cases) {
    const CheckRun run = check({exchange}, {"--no-coverage"});
    EXPECT_EQ(run.exit_code, 1) << run.output;
    for (const auto& word : words) EXPECT_NE(run.output.find(word), std::string::npos) << word << " in " << run.output;
  }
}

TEST_F(OpenApiTest, TheCheckFailsWhenADescribedOperationWasNeverExercised) {
  ask("GET", "/healthz", "/healthz", "");
  const CheckRun run = check(m_exchanges, {"--not-served", "GET /readyz"});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("GET /v1/events: described but never exercised"), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("GET /readyz"), std::string::npos) << "exempted, yet reported: " << run.output;
  EXPECT_EQ(run.output.find("GET /healthz"), std::string::npos) << run.output;
  const CheckRun unlisted = check(m_exchanges, {"--not-served", "GET /v1/nothing"});
  EXPECT_NE(unlisted.output.find("GET /v1/nothing: exempted from coverage but not described"), std::string::npos)
      << unlisted.output;
}

}  // namespace
}  // namespace tpslurm::api::testing
