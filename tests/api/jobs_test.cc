// The job routes against the real journal: submit (201, 200, 409, 422, 400), and that what
// the API shows is byte for byte what the CLI prints from the same journal.
#include <sys/stat.h>

#include <boost/json.hpp>
#include <filesystem>
#include <chrono>
#include <cstdio>
#include <map>
#include <thread>

#include "api_fixture.h"
#include "support/exposition.h"
#include "storage/job_credential.h"
#include "storage/secret_key.h"

namespace tpslurm::api::testing {
namespace {

namespace json = boost::json;

class ApiJobsTest : public ApiFixture {
 protected:
  void SetUp() override { start(); }
};

TEST_F(ApiJobsTest, SubmitIsCreatedThenUnchangedAndAnotherBodyIsAConflict) {
  const auto created = call("POST", "/v1/jobs", kAliceToken, example_request());
  ASSERT_EQ(created.status, 201) << created.body << created.error;
  const auto body = json::parse(created.body).as_object();
  EXPECT_EQ(body.at("job_id"), "ft-7f3c2a");
  EXPECT_EQ(body.at("outcome"), "created");
  EXPECT_EQ(created.headers.at("location"), "/v1/jobs/ft-7f3c2a");

  const auto again = call("POST", "/v1/jobs", kBobToken, example_request());
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(json::parse(again.body).at("outcome"), "unchanged");
  EXPECT_EQ(json::parse(again.body).at("request_sha256"), body.at("request_sha256"));

  const auto conflict = call("POST", "/v1/jobs", kAliceToken, replaced(example_request(), "3e-4", "1e-3"));
  EXPECT_EQ(conflict.status, 409);
  const auto refusal = json::parse(conflict.body).as_object();
  EXPECT_EQ(refusal.at("error"), "conflict");
  EXPECT_NE(std::string(refusal.at("message").as_string()).find("was already submitted with a different request"),
            std::string::npos);

  auto journal = open_journal();
  auto jobs = journal->jobs();
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 1u);
  auto timeline = journal->timeline("ft-7f3c2a");
  ASSERT_TRUE(timeline.ok());
  ASSERT_EQ(timeline->size(), 1u);
  EXPECT_EQ((*timeline)[0].kind, "job.created");
  EXPECT_EQ(json::parse((*timeline)[0].detail).at("by"), "alice");
  // The credential went to its 0400 file, never to the journal.
  EXPECT_EQ((*jobs)[0].request_json.find("example-ingest-token-replace-me"), std::string::npos);
  struct stat info {};
  ASSERT_EQ(::stat((*jobs)[0].credential_path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0400u);
}

// The local key is read once, when the API starts, not for every POST: a key file gone or
// replaced afterwards changes nothing until the next start, and each credential's HMAC is
// taken under the key of that start.
TEST_F(ApiJobsTest, TheLocalKeyIsReadOnceAtStartNotForEveryPost) {
  const std::string key_path = settings.state_dir + "/hmac.key";
  auto key = storage::load_or_create_secret_key(key_path);
  ASSERT_TRUE(key.ok()) << "the API created it at start: " << key.error().message();
  std::filesystem::remove(key_path);
  const auto created = call("POST", "/v1/jobs", kAliceToken, example_request());
  ASSERT_EQ(created.status, 201) << created.body << created.error;
  EXPECT_FALSE(std::filesystem::exists(key_path)) << "a POST read or created the key file";
  auto job = open_journal()->job("ft-7f3c2a");
  ASSERT_TRUE(job.ok() && job->has_value());
  EXPECT_TRUE(storage::verify_job_credential({(*job)->credential_path, (*job)->credential_hmac}, *key).ok());
}

TEST_F(ApiJobsTest, AnInvalidRequestIs422WithEveryProblem) {
  std::string request = replaced(example_request(), "\"nodes\": 2", "\"nodes\": 0");
  request = replaced(request, "\"working_dir\"", "\"colour\": \"blue\", \"working_dir\"");
  const auto answer = call("POST", "/v1/jobs", kAliceToken, request);
  ASSERT_EQ(answer.status, 422) << answer.body;
  const auto body = json::parse(answer.body).as_object();
  EXPECT_EQ(body.at("error"), "invalid_request");
  std::vector<std::string> fields;
  for (const auto& problem : body.at("problems").as_array()) {
    fields.emplace_back(problem.at("field").as_string());
    EXPECT_FALSE(problem.at("fix").as_string().empty());
    EXPECT_TRUE(problem.as_object().contains("value"));
  }
  EXPECT_NE(std::find(fields.begin(), fields.end(), "spec.pools[0].nodes"), fields.end()) << answer.body;
  EXPECT_NE(std::find(fields.begin(), fields.end(), "spec.colour"), fields.end()) << answer.body;
  auto jobs = open_journal()->jobs();
  ASSERT_TRUE(jobs.ok());
  EXPECT_TRUE(jobs->empty());
}

// Per-user mode: a request's user must be in the user map, with a Unix account that may run
// jobs, and ask only for what the map lets it; a refused request is a 422 naming `user` (or
// the field) and journals nothing.
TEST_F(ApiJobsTest, InPerUserModeAUserOutsideTheMapOrMappedToRootIs422AndJournalsNothing) {
  stop();
  // Accounts every Debian system has, let in by a first uid of 1: daemon (1) and root (0).
  tpslurm::testing::write_test_file(dir.file("users.json"), R"({"users": {
      "alice": {"unix_user": "daemon", "accounts": ["ml-team"], "qos": ["normal"]},
      "carol": {"unix_user": "root", "accounts": ["ml-team"], "qos": ["normal"]}}})");
  env["TUNEPLANE_IDENTITY_MODE"] = "per-user";
  env["TUNEPLANE_USER_MAP_FILE"] = dir.file("users.json");
  env["TUNEPLANE_FIRST_USER_ID"] = "1";
  start();
  const auto as = [&](const std::string& user) {
    return replaced(example_request(), "\"job_id\": \"ft-7f3c2a\",", "\"job_id\": \"ft-7f3c2a\", \"user\": \"" + user + "\",");
  };
  for (const std::string user : {"mallory", "carol"}) {
    const auto answer = call("POST", "/v1/jobs", kAliceToken, as(user));
    ASSERT_EQ(answer.status, 422) << user << ": " << answer.body;
    const auto problems = json::parse(answer.body).at("problems").as_array();
    ASSERT_EQ(problems.size(), 1u) << answer.body;
    EXPECT_EQ(problems.at(0).at("field"), "user") << answer.body;
  }
  const auto missing = call("POST", "/v1/jobs", kAliceToken, example_request());
  EXPECT_EQ(missing.status, 422) << missing.body;
  auto jobs = open_journal()->jobs();
  ASSERT_TRUE(jobs.ok());
  EXPECT_TRUE(jobs->empty());

  const auto created = call("POST", "/v1/jobs", kAliceToken, as("alice"));
  EXPECT_EQ(created.status, 201) << created.body;
}

// A user's jobs not yet ended are held to its max_live_jobs: the next new one is 429 and
// journals nothing (no credential either), the same request again is still 200, and a job
// that has ended makes room. The job view, the change feed and /metrics name the user.
TEST_F(ApiJobsTest, InPerUserModeAUsersLiveJobsAreHeldToItsLimitAndEveryViewNamesIt) {
  stop();
  tpslurm::testing::write_test_file(dir.file("users.json"), R"({"users": {
      "alice": {"unix_user": "daemon", "accounts": ["ml-team"], "qos": ["normal"], "max_live_jobs": 2},
      "bob": {"unix_user": "bin", "accounts": ["ml-team"], "qos": ["normal"]}}})");
  env["TUNEPLANE_IDENTITY_MODE"] = "per-user";
  env["TUNEPLANE_USER_MAP_FILE"] = dir.file("users.json");
  env["TUNEPLANE_FIRST_USER_ID"] = "1";
  keep_metrics();
  start();
  const auto live_jobs = [&](const std::string& user) {
    const auto scraped = tpslurm::testing::parse_exposition(call("GET", "/metrics", kAliceToken).body);
    return scraped.value("tuneplane_live_jobs", {{"user", user}}).value_or(-1);
  };
  const auto job = [&](const std::string& id, const std::string& user) {
    return replaced(example_request(), "\"job_id\": \"ft-7f3c2a\",", "\"job_id\": \"" + id + "\", \"user\": \"" + user + "\",");
  };
  ASSERT_EQ(call("POST", "/v1/jobs", kAliceToken, job("a1", "alice")).status, 201);
  ASSERT_EQ(call("POST", "/v1/jobs", kAliceToken, job("a2", "alice")).status, 201);
  const auto refused = call("POST", "/v1/jobs", kAliceToken, job("a3", "alice"));
  ASSERT_EQ(refused.status, 429) << refused.body;
  EXPECT_EQ(json::parse(refused.body).at("error"), "too_many_live_jobs");
  EXPECT_NE(refused.body.find("user alice has 2 or more jobs not yet ended"), std::string::npos) << refused.body;
  EXPECT_FALSE(std::filesystem::exists(env["TUNEPLANE_STORAGE_ROOT"] + "/slurm/jobs/a3")) << "no credential written";
  EXPECT_EQ(call("POST", "/v1/jobs", kAliceToken, job("a1", "alice")).status, 200) << "the same request again";
  EXPECT_EQ(call("POST", "/v1/jobs", kAliceToken, job("b1", "bob")).status, 201) << "another user's limit";

  const json::value a1 = json::parse(call("GET", "/v1/jobs/a1", kAliceToken).body);
  EXPECT_EQ(a1.at("user"), "alice");
  EXPECT_EQ(a1.at("unix_user"), "daemon");
  EXPECT_EQ((*open_journal()->job("a1"))->default_account, "ml-team") << "the user's first account, fixed now";
  const auto events = json::parse(call("GET", "/v1/events", kAliceToken).body).at("events").as_array();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front().at("user"), "alice") << events.front();
  EXPECT_EQ(live_jobs("alice"), 2);
  EXPECT_EQ(live_jobs("bob"), 1);

  auto journal = open_journal();
  ASSERT_TRUE(journal->set_phase("a2", model::JobPhase::queued, model::JobPhase::cancelled, "cancelled").ok());
  EXPECT_EQ(call("POST", "/v1/jobs", kAliceToken, job("a3", "alice")).status, 201) << "an ended job makes room";
  EXPECT_EQ(live_jobs("alice"), 2);
}

// The map is read again when it changes (looked at once a second): a user added is accepted,
// and a version with a problem leaves the last good map in force.
TEST_F(ApiJobsTest, InPerUserModeTheUserMapIsReadAgainWhenItChanges) {
  stop();
  const auto write_map = [&](const std::string& text) {
    tpslurm::testing::write_test_file(dir.file("users.json.new"), text);
    ASSERT_EQ(std::rename(dir.file("users.json.new").c_str(), dir.file("users.json").c_str()), 0);
  };
  write_map(R"({"users": {"alice": {"unix_user": "daemon", "accounts": ["ml-team"], "qos": ["normal"]}}})");
  env["TUNEPLANE_IDENTITY_MODE"] = "per-user";
  env["TUNEPLANE_USER_MAP_FILE"] = dir.file("users.json");
  env["TUNEPLANE_FIRST_USER_ID"] = "1";
  start();
  const auto job = [&](const std::string& id, const std::string& user) {
    return replaced(example_request(), "\"job_id\": \"ft-7f3c2a\",", "\"job_id\": \"" + id + "\", \"user\": \"" + user + "\",");
  };
  ASSERT_EQ(call("POST", "/v1/jobs", kAliceToken, job("b1", "bob")).status, 422);

  write_map(R"({"users": {"alice": {"unix_user": "daemon", "accounts": ["ml-team"], "qos": ["normal"]},
                          "bob": {"unix_user": "bin", "accounts": ["ml-team"], "qos": ["normal"]}}})");
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ASSERT_EQ(call("POST", "/v1/jobs", kAliceToken, job("b1", "bob")).status, 201) << "bob is in the map now";
  EXPECT_EQ((*open_journal()->job("b1"))->unix_user, "bin");

  write_map(R"({"users": {"bob": {"unix_user": "bin"}}})");  // no accounts: refused
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_EQ(call("POST", "/v1/jobs", kAliceToken, job("a1", "alice")).status, 201) << "the last good map stands";
  EXPECT_EQ(call("POST", "/v1/jobs", kAliceToken, job("b2", "bob")).status, 201);

  // A version others may write is refused like one with a problem (base/operator_file.h).
  write_map(R"({"users": {"carol": {"unix_user": "sys", "accounts": ["ml-team"], "qos": ["normal"]}}})");
  ASSERT_EQ(::chmod(dir.file("users.json").c_str(), 0666), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_EQ(call("POST", "/v1/jobs", kAliceToken, job("c1", "carol")).status, 422) << "a map others may write";
  EXPECT_EQ(call("POST", "/v1/jobs", kAliceToken, job("b3", "bob")).status, 201) << "the last good map stands";
}

TEST_F(ApiJobsTest, ABodyThatIsNotJsonIs400) {
  const auto answer = call("POST", "/v1/jobs", kAliceToken, "{\"job_id\": ");
  EXPECT_EQ(answer.status, 400);
  EXPECT_EQ(json::parse(answer.body).at("error"), "malformed_body");
  EXPECT_EQ(call("POST", "/v1/jobs/ft-7f3c2a/cancel", kAliceToken, "[1,").status, 400);
}

TEST_F(ApiJobsTest, StatusAndAuditAreWhatTheCliPrints) {
  ASSERT_EQ(call("POST", "/v1/jobs", kAliceToken, example_request()).status, 201);
  ASSERT_EQ(call("POST", "/v1/jobs/ft-7f3c2a/cancel", kAliceToken, "{\"reason\": \"not needed\"}").status, 200);
  const auto status = call("GET", "/v1/jobs/ft-7f3c2a", kBobToken);
  ASSERT_EQ(status.status, 200);
  const auto cli_status = cli({"status", "ft-7f3c2a", "--json"});
  ASSERT_EQ(cli_status.exit_code, 0) << cli_status.err;
  EXPECT_EQ(status.body, cli_status.out);

  const auto audit = call("GET", "/v1/jobs/ft-7f3c2a/audit", kBobToken);
  ASSERT_EQ(audit.status, 200);
  const auto cli_audit = cli({"audit", "ft-7f3c2a", "--json"});
  ASSERT_EQ(cli_audit.exit_code, 0) << cli_audit.err;
  EXPECT_EQ(audit.body, cli_audit.out);
  EXPECT_EQ(json::parse(audit.body).as_array().size(), 2u);

  const auto missing = call("GET", "/v1/jobs/no-such-job", kBobToken);
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(json::parse(missing.body).at("error"), "not_found");
  EXPECT_EQ(call("GET", "/v1/jobs/no-such-job/audit", kBobToken).status, 404);
  // An id that is not UTF-8 once decoded is quoted back as valid JSON (found by fuzzing).
  const auto bytes = call("GET", "/v1/jobs/%FF%9Dx", kBobToken);
  EXPECT_EQ(bytes.status, 404);
  boost::system::error_code error;
  (void)json::parse(bytes.body, error);
  EXPECT_FALSE(error) << "not valid JSON: " << bytes.body;
}

TEST_F(ApiJobsTest, CancelIsJournaledWithTheTokensName) {
  ASSERT_EQ(call("POST", "/v1/jobs", kAliceToken, example_request()).status, 201);
  const auto cancelled = call("POST", "/v1/jobs/ft-7f3c2a/cancel", kBobToken, "{\"grace_seconds\": 30}");
  ASSERT_EQ(cancelled.status, 200) << cancelled.body;
  EXPECT_EQ(json::parse(cancelled.body).at("outcome"), "requested");
  EXPECT_EQ(json::parse(cancelled.body).at("phase"), "queued");
  auto job = open_journal()->job("ft-7f3c2a");
  ASSERT_TRUE(job.ok() && job->has_value());
  EXPECT_EQ(model::to_string((*job)->desire), "cancel");
  EXPECT_EQ((*job)->desire_reason, "requested by bob");
  const auto again = call("POST", "/v1/jobs/ft-7f3c2a/cancel", kAliceToken, "");
  EXPECT_EQ(json::parse(again.body).at("outcome"), "already_requested");

  const auto bad = call("POST", "/v1/jobs/ft-7f3c2a/cancel", kAliceToken, "{\"grace_seconds\": -1, \"why\": 1}");
  EXPECT_EQ(bad.status, 422);
  EXPECT_EQ(json::parse(bad.body).at("problems").as_array().size(), 2u);
  EXPECT_EQ(call("POST", "/v1/jobs/no-such-job/cancel", kAliceToken, "").status, 404);
}

// Who acted on a job through the API is the NAME of the token it used, in the journal's own
// fields of each event: `by` for the job's creation and a desire, as `audit JOB` shows it.
TEST_F(ApiJobsTest, TheAuditNamesTheTokenThatActed) {
  write_tokens("platform " + kAliceToken + " read,submit\nops " + kBobToken + " read,submit,operate\n");
  ASSERT_EQ(call("POST", "/v1/jobs", kAliceToken, example_request()).status, 201);
  ASSERT_EQ(call("POST", "/v1/jobs/ft-7f3c2a/cancel", kBobToken, "{\"reason\": \"wrong data\"}").status, 200);
  const auto audit = call("GET", "/v1/jobs/ft-7f3c2a/audit", kAliceToken);
  ASSERT_EQ(audit.status, 200) << audit.body;
  std::map<std::string, std::string> by_kind;
  const json::value events = json::parse(audit.body);
  for (const auto& event : events.as_array()) {
    const auto& detail = event.at("detail").as_object();
    if (const auto* by = detail.if_contains("by")) by_kind[std::string(event.at("kind").as_string())] = by->as_string();
  }
  EXPECT_EQ(by_kind, (std::map<std::string, std::string>{{"job.created", "platform"}, {"desire", "ops"}}))
      << audit.body;
  const auto printed = cli({"audit", "ft-7f3c2a"});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_NE(printed.out.find(" BY "), std::string::npos) << printed.out;
  for (const std::string who : {"platform", "ops"}) {
    EXPECT_NE(printed.out.find(" " + who + " "), std::string::npos) << who << " in\n" << printed.out;
  }
}

TEST_F(ApiJobsTest, PauseAndResumeAreJournaledWithTheTokensName) {
  EXPECT_EQ(call("POST", "/v1/pause", kAliceToken, "{}").status, 422);
  const auto paused = call("POST", "/v1/pause", kAliceToken, "{\"reason\": \"maintenance\"}");
  ASSERT_EQ(paused.status, 200) << paused.body;
  EXPECT_EQ(paused.body, "{\"paused\":true,\"changed\":true}\n");
  auto control = open_journal()->control("paused");
  ASSERT_TRUE(control.ok() && control->has_value());
  EXPECT_EQ((*control)->set_by, "alice");
  EXPECT_EQ((*control)->reason, "maintenance");
  EXPECT_EQ(json::parse(call("POST", "/v1/pause", kBobToken, "{\"reason\": \"x\"}").body).at("by"), "alice");
  EXPECT_EQ(call("POST", "/v1/resume", kBobToken, "").body, "{\"paused\":false,\"changed\":true}\n");
  EXPECT_EQ(call("POST", "/v1/resume", kBobToken, "").body, "{\"paused\":false,\"changed\":false}\n");
  control = open_journal()->control("paused");
  ASSERT_TRUE(control.ok());
  EXPECT_FALSE(control->has_value());
}

TEST_F(ApiJobsTest, UnknownPathsAre404AndWrongMethods405) {
  const auto method = call("GET", "/v1/pause", kAliceToken);
  EXPECT_EQ(method.status, 405);
  EXPECT_EQ(method.headers.at("allow"), "POST");
  const auto body = json::parse(method.body).as_object();
  EXPECT_EQ(body.at("error"), "method_not_allowed");
  EXPECT_TRUE(body.contains("message"));
  EXPECT_TRUE(body.contains("problems"));
  EXPECT_EQ(call("DELETE", "/v1/jobs/ft-7f3c2a", kAliceToken).status, 405);
  const auto put = call("PUT", "/v1/jobs", kAliceToken);
  EXPECT_EQ(put.status, 405);
  EXPECT_EQ(put.headers.at("allow"), "GET, POST");
  EXPECT_EQ(call("GET", "/v2/jobs", kAliceToken).status, 404);
  EXPECT_EQ(call("GET", "/v1/jobs/a/b/c", kAliceToken).status, 404);
}

TEST_F(ApiJobsTest, JobsArePagedInJobIdOrderWithTheRowsOfStatusJson) {
  for (const char* id : {"b-2", "a-1", "c-3"}) {
    ASSERT_EQ(call("POST", "/v1/jobs", kAliceToken, replaced(example_request(), "ft-7f3c2a", id)).status, 201);
  }
  ASSERT_EQ(call("POST", "/v1/jobs/b-2/cancel", kAliceToken, "").status, 200);
  const auto cli_status = cli({"status", "--json"});
  ASSERT_EQ(cli_status.exit_code, 0) << cli_status.err;
  std::map<std::string, json::value> cli_rows;
  const json::value cli_page = json::parse(cli_status.out);
  for (const auto& row : cli_page.at("jobs").as_array()) {
    cli_rows[std::string(row.at("job_id").as_string())] = row;
  }

  const auto first = call("GET", "/v1/jobs?limit=2", kBobToken);
  ASSERT_EQ(first.status, 200) << first.body;
  const auto page = json::parse(first.body).as_object();
  ASSERT_EQ(page.at("jobs").as_array().size(), 2u);
  EXPECT_EQ(page.at("jobs").as_array()[0].at("job_id"), "a-1");
  EXPECT_EQ(page.at("jobs").as_array()[1].at("job_id"), "b-2");
  EXPECT_EQ(page.at("jobs").as_array()[1], cli_rows.at("b-2"));
  EXPECT_EQ(page.at("next"), "b-2");
  const auto last = json::parse(call("GET", "/v1/jobs?limit=2&after=b-2", kBobToken).body).as_object();
  ASSERT_EQ(last.at("jobs").as_array().size(), 1u);
  EXPECT_EQ(last.at("jobs").as_array()[0], cli_rows.at("c-3"));
  EXPECT_TRUE(last.at("next").is_null());
  const auto all = json::parse(call("GET", "/v1/jobs", kBobToken).body).as_object();
  EXPECT_EQ(all.at("jobs").as_array().size(), 3u);
  EXPECT_TRUE(all.at("next").is_null());
  const auto queued = json::parse(call("GET", "/v1/jobs?phase=queued", kBobToken).body).as_object();
  EXPECT_EQ(queued.at("jobs").as_array().size(), 3u);
  EXPECT_TRUE(json::parse(call("GET", "/v1/jobs?phase=running", kBobToken).body).at("jobs").as_array().empty());

  const auto bad = call("GET", "/v1/jobs?phase=done&limit=0&colour=red", kBobToken);
  EXPECT_EQ(bad.status, 422);
  std::vector<std::string> fields;
  const json::value refusal = json::parse(bad.body);
  for (const auto& problem : refusal.at("problems").as_array()) {
    fields.emplace_back(problem.at("field").as_string());
  }
  EXPECT_EQ(fields, (std::vector<std::string>{"phase", "limit", "colour"}));
  EXPECT_EQ(call("GET", "/v1/jobs?limit=1001", kBobToken).status, 422);
}

// The daemon notices new jobs and desires through the journal's data_version, which moves
// when another connection commits: the API writes on a connection of its own.
TEST_F(ApiJobsTest, TheDaemonsConnectionSeesTheApisWrites) {
  auto daemon = open_journal();
  auto before = daemon->data_version();
  ASSERT_TRUE(before.ok());
  ASSERT_EQ(call("POST", "/v1/jobs", kAliceToken, example_request()).status, 201);
  auto after_submit = daemon->data_version();
  ASSERT_TRUE(after_submit.ok());
  EXPECT_NE(*after_submit, *before);
  ASSERT_EQ(call("POST", "/v1/jobs/ft-7f3c2a/cancel", kAliceToken, "").status, 200);
  auto after_cancel = daemon->data_version();
  ASSERT_TRUE(after_cancel.ok());
  EXPECT_NE(*after_cancel, *after_submit);
}

}  // namespace
}  // namespace tpslurm::api::testing
