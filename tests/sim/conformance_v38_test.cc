// Conformance with the real Slurm 22.05.8 transcripts (v0.0.38, Debian 12).
//
// Each test starts the simulator as the transcripts' cluster was (release 22.05.8, no
// slurmdbd, partition "debug" over nodes vm and vm-b with features h100, cpuonly, emu),
// numbers jobs from the id the real submission got, replays the transcript's request
// with the same user headers and compares status, error numbers/codes, job states and
// the JSON shape (including where 22.05 writes null instead of a number). Values the
// transcripts pin down exactly (the requeue bug, raw wait statuses, special characters)
// are compared by value.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <sstream>

#include "json_shape.h"
#include "sim_harness.h"
#include "transcripts.h"

namespace tpslurm::sim::test {
namespace {

namespace json = boost::json;

SimOptions cluster_22_05(std::uint32_t first_job_id, std::vector<std::string> nodes = {"vm", "vm-b"}) {
  SimOptions options = test_options(Release::r22_05_8);
  options.cluster.cluster_name = "realslurm";
  options.cluster.partitions = {"debug"};
  options.cluster.default_partition = "debug";
  options.cluster.nodes = std::move(nodes);
  options.cluster.features = {"h100", "cpuonly", "emu"};
  options.cluster.accounting = false;
  options.first_job_id = first_job_id;
  options.default_cwd = "/tmp/realslurm";
  return options;
}

class V38 {
 public:
  explicit V38(SimOptions options) : m_sim(std::move(options)) {}

  enum class Token { valid, expired, garbage, bad_signature, none };

  // `token_user`: whose token to send ("" = the X-SLURM-USER-NAME of the transcript).
  HttpResult send(const Transcript& t, Token token = Token::valid, const std::string& token_user = "") {
    RequestOptions req;
    const std::string header_user = t.user_header.empty() ? "root" : t.user_header;
    const std::string user = token_user.empty() ? header_user : token_user;
    const std::int64_t now_s = now();
    std::string jwt;
    switch (token) {
      case Token::valid: jwt = mint_token(kTestKey, user, now_s + 3600); break;
      case Token::expired: jwt = mint_token(kTestKey, user, now_s - 1); break;
      case Token::garbage: jwt = "garbage"; break;
      case Token::bad_signature: {
        jwt = mint_token(kTestKey, user, now_s + 3600);
        char& c = jwt[jwt.size() - 10];  // inside the signature
        c = c == 'A' ? 'B' : 'A';
        break;
      }
      case Token::none: break;
    }
    if (token != Token::none) req.headers = {{"X-SLURM-USER-NAME", header_user}, {"X-SLURM-USER-TOKEN", jwt}};
    req.body = t.request_body;
    return m_client.request(t.method, m_sim.url(t.path), req);
  }

  // `lists`: arrays whose length depends on the session (see shape_diff()).
  HttpResult check(const std::string& name, Token token = Token::valid, const std::string& token_user = "",
                   const std::vector<std::string>& lists = {}) {
    Transcript t = load_v38(name);
    HttpResult r = send(t, token, token_user);
    expect_conforms(t, r, lists);
    return r;
  }

  static void expect_conforms(const Transcript& t, const HttpResult& r, const std::vector<std::string>& lists = {}) {
    SCOPED_TRACE(t.name);
    ASSERT_EQ(r.curl_code, 0);
    EXPECT_EQ(r.status, t.status) << r.body.substr(0, 500);
    if (t.response_body.empty() || t.response_body[0] != '{') {
      EXPECT_EQ(r.body, t.response_body);
      return;
    }
    json::value real = json::parse(t.response_body);
    json::value mine = r.json();
    std::vector<std::string> diffs = shape_diff(mine, real, lists);
    EXPECT_TRUE(diffs.empty()) << "shape differs from the real answer:" << join(diffs);
    EXPECT_EQ(error_numbers(mine), error_numbers(real));
    EXPECT_EQ(job_states(mine), job_states(real));
    EXPECT_EQ(json::serialize(mine.at("meta")), json::serialize(real.at("meta")));
  }

  void step(std::uint32_t id, const std::string& body) {
    control(m_sim, "POST", "/sim/jobs/" + std::to_string(id) + "/state", body);
  }
  void advance_s(std::int64_t s) { control(m_sim, "POST", "/sim/clock/advance", "{\"seconds\": " + std::to_string(s) + "}"); }
  std::int64_t now() { return control(m_sim, "GET", "/sim/clock").at("now").to_number<std::int64_t>(); }
  json::value get_job(std::uint32_t id) {
    Transcript t;
    t.method = "GET";
    t.path = "/slurm/v0.0.38/job/" + std::to_string(id);
    return send(t).json();
  }
  SimInstance& sim() { return m_sim; }

 private:
  SimInstance m_sim;
  HttpClient m_client;
};

TEST(ConformanceV38, PingAnswersLikeTheRealServer) {
  V38 v38(cluster_22_05(1));
  v38.check("ping");
  v38.check("ping_openssl_token");
}

TEST(ConformanceV38, RefusedTokensGetTheMisleading500OfTheRealServer) {
  V38 v38(cluster_22_05(1));
  HttpResult r = v38.check("auth_expired", V38::Token::expired);
  EXPECT_EQ(r.json().at("errors").at(0).at("description"), "slurmctld config is unable to load");
  v38.check("auth_garbage", V38::Token::garbage);
  v38.check("auth_badsig", V38::Token::bad_signature);
  // A token of nobody presented as root: "attempt to authenticate as alternate user".
  v38.check("auth_nobody_token_root_header", V38::Token::valid, "nobody");
}

TEST(ConformanceV38, MissingHeadersGetThePlain401WithSlurmsReasonPhrase) {
  V38 v38(cluster_22_05(1));
  Transcript t;
  t.method = "GET";
  t.path = "/slurm/v0.0.38/ping";
  HttpResult r = v38.send(t, V38::Token::none);
  // auth_none.txt is the raw answer: status line, three headers, the body.
  std::istringstream raw(read_file(fixture_dir() + "/samples-v0.0.38/auth_none.txt"));
  std::string status_line;
  std::getline(raw, status_line);
  if (!status_line.empty() && status_line.back() == '\r') status_line.pop_back();
  EXPECT_EQ(r.status_line, status_line);
  EXPECT_EQ(r.headers["connection"], "Close");
  EXPECT_EQ(r.headers["content-length"], "22");
  EXPECT_EQ(r.headers["content-type"], "text/plain");
  EXPECT_EQ(r.body, "Authentication failure");
}

TEST(ConformanceV38, SubmitIgnoresRequeueFalseAndTheJobRunsAndCompletes) {
  V38 v38(cluster_22_05(2));
  HttpResult submitted = v38.check("submit");
  EXPECT_EQ(submitted.json().at("job_id").to_number<int>(), 2);
  v38.step(2, R"({"state": "RUNNING"})");
  HttpResult running = v38.check("get_job_running");
  // The body said "requeue": false; 22.05 ignores the value and enables requeue.
  EXPECT_EQ(running.json().at("jobs").at(0).at("requeue"), true);
  v38.advance_s(8);
  v38.step(2, R"({"state": "COMPLETED"})");
  v38.check("get_job_completed");
}

TEST(ConformanceV38, NoRequeueTrueIsTheWayToDisableRequeue) {
  V38 v38(cluster_22_05(3));
  v38.check("submit_norequeue");
  v38.step(3, R"({"state": "RUNNING"})");
  v38.step(3, R"({"state": "COMPLETED"})");
  HttpResult r = v38.check("get_job_norequeue");
  EXPECT_EQ(r.json().at("jobs").at(0).at("requeue"), false);
}

TEST(ConformanceV38, ExitCodeIsTheRawWaitStatus) {
  V38 v38(cluster_22_05(4));
  v38.check("submit_fail");
  v38.step(4, R"({"state": "RUNNING"})");
  v38.step(4, R"({"state": "FAILED", "exit_code": 3})");
  HttpResult r = v38.check("get_job_failed");
  json::value job_body = r.json();
  const json::value& job = job_body.at("jobs").at(0);
  EXPECT_EQ(job.at("exit_code").to_number<int>(), 768);
  EXPECT_EQ(job.at("tres_per_node"), "gres:gpu:h100:1");
  EXPECT_EQ(job.at("state_reason"), "NonZeroExitCode");
}

TEST(ConformanceV38, ConstraintsThatSomeNodeHasAreAccepted) {
  V38 v38(cluster_22_05(6));
  v38.check("submit_constraint");
  v38.check("submit_twonodes");
}

TEST(ConformanceV38, HetJobIsOneRecordPerComponentThroughItsLife) {
  V38 v38(cluster_22_05(7));
  v38.check("submit_hetjob");
  v38.check("get_hetjob_pending");
  v38.step(7, R"({"state": "RUNNING"})");
  v38.check("get_hetjob_running");
  v38.check("get_hetjob_component1");
  v38.advance_s(6);
  v38.step(7, R"({"state": "COMPLETED"})");
  v38.check("get_hetjob_completed");
}

TEST(ConformanceV38, CancelKillsWithTermAndACancelOfAFinishedJobIsSuccess) {
  V38 v38(cluster_22_05(9));
  v38.check("submit_tocancel");
  v38.step(9, R"({"state": "RUNNING"})");
  v38.check("delete_job");
  HttpResult r = v38.check("get_job_cancelled");
  EXPECT_EQ(r.json().at("jobs").at(0).at("exit_code").to_number<int>(), 15);
  v38.check("delete_job_again");
}

TEST(ConformanceV38, ASignalOtherThanKillIsDeliveredWithoutEndingTheJob) {
  V38 v38(cluster_22_05(10));
  v38.check("submit_sig");
  v38.step(10, R"({"state": "RUNNING"})");
  v38.check("delete_job_signal");
  EXPECT_EQ(v38.get_job(10).at("jobs").at(0).at("job_state"), "RUNNING");
  EXPECT_EQ(control(v38.sim(), "GET", "/sim/jobs/10").at("last_signal").to_number<int>(), 10);
}

TEST(ConformanceV38, ASubmitCanAnswerAJobIdTogetherWithErrors) {
  V38 held(cluster_22_05(11));
  held.check("submit_hold");
  EXPECT_EQ(held.get_job(11).at("jobs").at(0).at("state_reason"), "JobHeldUser");
  V38 too_big(cluster_22_05(24));
  too_big.check("submit_toobig");
}

TEST(ConformanceV38, BeginTimeMustBeAStringOn2205) {
  V38 v38(cluster_22_05(12));
  v38.check("submit_begin_str");
  v38.check("submit_begin_int");
}

TEST(ConformanceV38, NamesAndCommentsWithSpecialCharactersRoundTrip) {
  V38 v38(cluster_22_05(13));
  Transcript submit = load_v38("submit_specialchars");
  v38.check("submit_specialchars");
  v38.step(13, R"({"state": "RUNNING"})");
  v38.step(13, R"({"state": "COMPLETED"})");
  HttpResult r = v38.check("get_specialchars");
  json::value sent = json::parse(submit.request_body);
  json::value job_body = r.json();
  const json::value& job = job_body.at("jobs").at(0);
  EXPECT_EQ(job.at("name"), sent.at("job").at("name"));
  EXPECT_EQ(job.at("comment"), sent.at("job").at("comment"));
  // The raw bytes escape "/" as slurmrestd does.
  EXPECT_NE(r.body.find(R"("we\"ird name\/with spaces)"), std::string::npos);
}

TEST(ConformanceV38, ArraySubmissionsAreAccepted) {
  V38 v38(cluster_22_05(14));
  v38.check("submit_array");
}

TEST(ConformanceV38, RootMayActForAnotherUserAndThatUserOwnsTheJob) {
  V38 v38(cluster_22_05(17));
  v38.check("submit_impersonate", V38::Token::valid, "root");
  EXPECT_EQ(v38.get_job(17).at("jobs").at(0).at("user_name"), "nobody");
  v38.check("submit_openssl_token_nobody", V38::Token::valid, "nobody");
}

TEST(ConformanceV38, CurrentWorkingDirectoryIsAccepted) {
  V38 v38(cluster_22_05(21));
  v38.check("submit_age");
}

TEST(ConformanceV38, TheTimeLimitEndsAJobAsTimeout) {
  V38 v38(cluster_22_05(22));
  v38.check("submit_timeout");
  v38.step(22, R"({"state": "RUNNING"})");
  v38.advance_s(61);  // time_limit 1 minute, enforced on the simulated clock
  HttpResult r = v38.check("get_job_timeout");
  json::value job_body = r.json();
  const json::value& job = job_body.at("jobs").at(0);
  EXPECT_EQ(job.at("state_reason"), "TimeLimit");
  EXPECT_EQ(job.at("exit_code").to_number<int>(), 15);
}

TEST(ConformanceV38, AnotherUserSeesTheJobButCannotCancelIt) {
  V38 v38(cluster_22_05(23));
  v38.check("submit_root_sleep");
  v38.step(23, R"({"state": "RUNNING"})");
  v38.check("nobody_get_root_job");
  v38.check("nobody_delete_root_job");
  EXPECT_EQ(v38.get_job(23).at("jobs").at(0).at("job_state"), "RUNNING");
}

TEST(ConformanceV38, SubmitsRefusedBeforeAnyJobExists) {
  V38 v38(cluster_22_05(30));
  v38.check("submit_noenv");
  v38.check("submit_unknownkey");
  v38.check("submit_badconstraint");
  v38.check("submit_badjson");
  EXPECT_EQ(control(v38.sim(), "GET", "/sim/stats").at("jobs_created").to_number<int>(), 0);
}

TEST(ConformanceV38, UnknownJobsAre500With2017) {
  V38 v38(cluster_22_05(1));
  v38.check("get_job_nonexistent");
  v38.check("delete_job_nonexistent");
}

TEST(ConformanceV38, PartitionsListTheConfiguredPartition) {
  V38 v38(cluster_22_05(1));
  HttpResult r = v38.check("get_partitions");
  EXPECT_EQ(r.json().at("partitions").at(0).at("name"), "debug");
}

// diag.txt was taken after a submit, in a session that had also listed nodes and minted
// tokens with scontrol: the RPC lists are compared element by element against the real
// entries' shape, not by length.
TEST(ConformanceV38, DiagShowsTheControllersClockAndStatistics) {
  V38 v38(cluster_22_05(2));
  ASSERT_EQ(v38.send(load_v38("submit")).status, 200);
  v38.check("ping");
  v38.advance_s(75);
  HttpResult r =
      v38.check("diag", V38::Token::valid, "", {"/statistics/rpcs_by_message_type", "/statistics/rpcs_by_user"});
  const json::value& stats = r.json().at("statistics");
  EXPECT_EQ(stats.at("req_time").to_number<std::int64_t>(), v38.now());
  EXPECT_EQ(stats.at("jobs_submitted").to_number<int>(), 1);
  std::vector<std::string> types;
  for (const auto& e : stats.at("rpcs_by_message_type").as_array())
    types.emplace_back(e.at("message_type").as_string());
  // 22.05's ping loads the configuration (REQUEST_BUILD_INFO), then pings the controller.
  for (const char* type :
       {"MESSAGE_NODE_REGISTRATION_STATUS", "REQUEST_SUBMIT_BATCH_JOB", "REQUEST_BUILD_INFO", "REQUEST_PING"}) {
    EXPECT_NE(std::find(types.begin(), types.end(), type), types.end()) << type;
  }
}

TEST(ConformanceV38, AJobRecordHasExactlyTheFieldsOfTheRealOne) {
  V38 v38(cluster_22_05(2));
  ASSERT_EQ(v38.send(load_v38("submit")).status, 200);
  v38.step(2, R"({"state": "RUNNING"})");
  std::vector<std::string> keys;
  json::value record = v38.get_job(2);
  for (const auto& kv : record.at("jobs").at(0).as_object()) keys.emplace_back(kv.key());
  std::sort(keys.begin(), keys.end());
  std::string listed = read_file(fixture_dir() + "/samples-v0.0.38/job_fields.txt");
  while (!listed.empty() && listed.back() == '\n') listed.pop_back();
  std::string mine;
  for (const auto& k : keys) mine += (mine.empty() ? "" : ",") + k;
  EXPECT_EQ(mine, listed);
}

TEST(ConformanceV38, AHetJobNeverStartsOnASingleNode) {
  SimOptions options = cluster_22_05(1, {"vm"});
  options.timing = Timing{};  // automatic: 1 s pending, 2 s running
  V38 v38(options);
  ASSERT_EQ(v38.send(load_v38("submit_hetjob")).status, 200);
  v38.advance_s(600);
  json::value jobs = v38.get_job(1).at("jobs");
  // singlenode_hetjob_pending.txt: one line per component.
  std::istringstream lines(read_file(fixture_dir() + "/samples-v0.0.38/singlenode_hetjob_pending.txt"));
  std::string line;
  std::size_t i = 0;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    json::value real = json::parse(line);
    ASSERT_LT(i, jobs.as_array().size());
    for (const auto& kv : real.as_object()) {
      EXPECT_EQ(jobs.at(i).at(kv.key()), kv.value()) << "component " << i << " field " << kv.key();
    }
    ++i;
  }
  EXPECT_EQ(i, jobs.as_array().size());
}

// get_jobs.txt lists the jobs of a whole session. Each real record is compared with a
// simulated record in the same condition (state, allocated or not, and which numbers
// 22.05 writes as null), because which fields are null depends on the request. Records
// of job array tasks are left out here (TheRealArrayTasksMatchTheSimulatedSplitRecords
// compares them).
TEST(ConformanceV38, EveryRecordOfTheRealJobListHasASimulatedCounterpart) {
  V38 v38(cluster_22_05(1));
  auto submit = [&](const std::string& name) {
    HttpResult r = v38.send(load_v38(name));
    EXPECT_EQ(r.status, 200) << name;
    return r.json().at("job_id").to_number<std::uint32_t>();
  };
  auto run_and_finish = [&](std::uint32_t id, const char* final_state) {
    v38.step(id, R"({"state": "RUNNING"})");
    if (final_state) v38.step(id, std::string(R"({"state": ")") + final_state + R"("})");
  };
  run_and_finish(submit("submit_timeout"), nullptr);          // RUNNING, time limit, default memory
  run_and_finish(submit("submit"), "COMPLETED");              // memory per node, time limit
  run_and_finish(submit("submit_hetjob"), "COMPLETED");       // het components
  run_and_finish(submit("submit_tocancel"), "CANCELLED");     // no time limit
  run_and_finish(submit("submit_timeout"), "COMPLETED");      // time limit, default memory
  run_and_finish(submit("submit_specialchars"), "COMPLETED"); // no time limit
  v38.step(submit("submit_hold"), R"({"state": "CANCELLED"})");
  v38.step(submit("submit_begin_str"), R"({"state": "CANCELLED"})");

  Transcript list;
  list.method = "GET";
  list.path = "/slurm/v0.0.38/jobs";
  json::value mine = v38.send(list).json();
  auto condition = [](const json::object& o) {
    return std::string(o.at("job_state").as_string()) + (o.contains("job_resources") ? " allocated" : "") +
           (o.at("tasks").is_null() ? " tasks:null" : "") + (o.at("memory_per_node").is_null() ? " mem:per-cpu" : "") +
           (o.at("time_limit").is_null() ? " time_limit:null" : "");
  };
  for (const char* name : {"get_jobs", "nobody_get_jobs"}) {
    Transcript t = load_v38(name);
    json::value real = json::parse(t.response_body);
    int array_tasks = 0;
    int compared = 0;
    for (const auto& r : real.at("jobs").as_array()) {
      const auto& ro = r.as_object();
      if (!ro.at("array_task_id").is_null()) {
        ++array_tasks;
        continue;
      }
      const json::value* twin = nullptr;
      for (const auto& m : mine.at("jobs").as_array()) {
        if (!twin && condition(m.as_object()) == condition(ro)) twin = &m;
      }
      ASSERT_NE(twin, nullptr) << name << ": no simulated job like real job " << ro.at("job_id") << " (" << condition(ro) << ")";
      std::vector<std::string> diffs = shape_diff(*twin, r);
      EXPECT_TRUE(diffs.empty()) << name << " job " << ro.at("job_id") << " (" << condition(ro) << "):" << join(diffs);
      ++compared;
    }
    EXPECT_EQ(array_tasks, 3) << name;
    EXPECT_GE(compared, 6) << name;
  }
}

// The real session's array "0-2" (job 14): task 0 became job 15, task 1 job 16, task 2 stayed
// in job 14; every task record is compared with its simulated twin, started and completed.
TEST(ConformanceV38, TheRealArrayTasksMatchTheSimulatedSplitRecords) {
  V38 v38(cluster_22_05(14));
  v38.check("submit_array");
  for (int task = 0; task < 3; ++task) {
    const std::string id = "14_" + std::to_string(task);
    control(v38.sim(), "POST", "/sim/jobs/" + id + "/state", R"({"state": "RUNNING"})");
  }
  for (std::uint32_t id : {14u, 15u, 16u}) v38.step(id, R"({"state": "COMPLETED"})");
  Transcript list;
  list.method = "GET";
  list.path = "/slurm/v0.0.38/jobs";
  json::value mine = v38.send(list).json();
  json::value real = json::parse(load_v38("get_jobs").response_body);
  int compared = 0;
  for (const auto& r : real.at("jobs").as_array()) {
    if (r.at("array_task_id").is_null()) continue;
    const json::value* twin = nullptr;
    for (const auto& m : mine.at("jobs").as_array()) {
      if (m.at("job_id") == r.at("job_id")) twin = &m;
    }
    ASSERT_NE(twin, nullptr) << "no simulated record for job " << r.at("job_id");
    for (const char* key : {"array_job_id", "array_task_id", "array_max_tasks", "array_task_string", "name",
                            "job_state"}) {
      EXPECT_EQ(twin->at(key), r.at(key)) << "job " << r.at("job_id") << " " << key;
    }
    // The listing's session ran with a partition time limit (525600) and another job directory.
    EXPECT_TRUE(twin->at("standard_output").as_string().ends_with("/arr-%A_%a.out"));
    std::vector<std::string> diffs;
    for (auto& d : shape_diff(*twin, r)) {
      if (!d.starts_with("/time_limit:")) diffs.push_back(d);
    }
    EXPECT_TRUE(diffs.empty()) << "job " << r.at("job_id") << ":" << join(diffs);
    ++compared;
  }
  EXPECT_EQ(compared, 3);
}

}  // namespace
}  // namespace tpslurm::sim::test
