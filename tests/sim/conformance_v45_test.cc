// Conformance with the real Slurm 26.05.3 transcripts (v0.0.45, v0.0.44, v0.0.43).
//
// The simulator is started as the transcripts' cluster was (release 26.05.3, no
// slurmdbd, partitions gpu and cpu with cpu the default, one node "vm" or two in
// two_node/), each request of the session is replayed in order with the same method,
// path, headers and body, and every answer is compared with the real one: status code,
// Content-Type, "Connection: Close", the JSON shape at every level, error numbers,
// status codes of DELETE and the job states. Jobs are stepped through the same states
// the real ones were in when the transcript was taken; ids line up because numbering
// starts where the real cluster's did. SLUIDs are the simulator's own (looked up and
// substituted in paths), except job 12, whose SLUID must equal the real one because the
// clock and cluster bits are set to the real ones.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "json_shape.h"
#include "sim_harness.h"
#include "transcripts.h"

namespace tpslurm::sim::test {
namespace {

namespace json = boost::json;

SimOptions cluster_of_transcripts(std::vector<std::string> nodes, std::int64_t start_ms, std::uint32_t first_job_id) {
  SimOptions options = test_options(Release::r26_05_3);
  options.cluster.cluster_name = "hidden";
  options.cluster.partitions = {"gpu", "cpu"};
  options.cluster.default_partition = "cpu";
  options.cluster.nodes = std::move(nodes);
  options.cluster.features = {"h100", "cpuonly"};
  options.cluster.accounting = false;
  options.cluster_id = 0xe72;  // the real cluster's SLUID bits
  options.manual_clock_start_ms = start_ms;
  options.first_job_id = first_job_id;
  options.default_cwd = "/var/lib/slurm26/jobs";
  return options;
}

Transcript call(const std::string& method, const std::string& path) {
  Transcript t;
  t.method = method;
  t.path = path;
  return t;
}

class Replay {
 public:
  explicit Replay(SimOptions options) : m_options(options), m_sim(std::move(options)) {}

  enum class Token { valid, expired, garbage, wrong_key, none, token_only, bearer };

  HttpResult send(const Transcript& t, Token token = Token::valid, std::string path = "") {
    RequestOptions req;
    const std::string user = t.user_header.empty() ? "root" : t.user_header;
    const std::int64_t now_s = clock_now_s();
    switch (token) {
      case Token::valid: req.headers = {{"X-SLURM-USER-NAME", user}, {"X-SLURM-USER-TOKEN", mint_token(kTestKey, user, now_s + 3600)}}; break;
      case Token::expired: req.headers = {{"X-SLURM-USER-NAME", user}, {"X-SLURM-USER-TOKEN", mint_token(kTestKey, user, now_s - 60)}}; break;
      case Token::garbage: req.headers = {{"X-SLURM-USER-NAME", user}, {"X-SLURM-USER-TOKEN", "garbage.not.a.jwt"}}; break;
      case Token::wrong_key: req.headers = {{"X-SLURM-USER-NAME", user}, {"X-SLURM-USER-TOKEN", mint_token("another key", user, now_s + 3600)}}; break;
      case Token::none: break;
      case Token::token_only: req.headers = {{"X-SLURM-USER-TOKEN", mint_token(kTestKey, "root", now_s + 3600)}}; break;
      case Token::bearer: req.headers = {{"Authorization", "Bearer " + mint_token(kTestKey, "root", now_s + 3600)}}; break;
    }
    req.headers.emplace_back("Accept", "application/json");
    req.body = t.request_body;
    return m_client.request(t.method, m_sim.url(path.empty() ? t.path : path), req);
  }

  // Replays `name` and compares the answer with the real one.
  HttpResult check(const std::string& name, Token token = Token::valid, std::string path = "") {
    Transcript t = load_v45(name);
    HttpResult r = send(t, token, path);
    expect_conforms(t, r);
    return r;
  }

  void expect_conforms(Transcript t, const HttpResult& r) {
    SCOPED_TRACE(t.name);
    ASSERT_EQ(r.curl_code, 0);
    EXPECT_EQ(r.status, t.status) << r.body.substr(0, 400);
    EXPECT_EQ(r.headers.count("content-type") ? r.headers.at("content-type") : "", t.response_headers["content-type"]);
    EXPECT_EQ(r.has_header("connection"), t.response_headers.count("connection") > 0);
    if (t.response_headers["content-type"] != "application/json") {
      EXPECT_EQ(r.body, t.response_body);
      return;
    }
    json::value real = json::parse(t.response_body);
    json::value mine = r.json();
    std::vector<std::string> diffs = shape_diff(mine, real);
    EXPECT_TRUE(diffs.empty()) << "shape differs from the real answer:" << join(diffs);
    EXPECT_EQ(error_numbers(mine), error_numbers(real));
    EXPECT_EQ(status_codes(mine), status_codes(real));
    EXPECT_EQ(job_states(mine), job_states(real));
    EXPECT_EQ(mine.at("warnings").as_array().size(), real.at("warnings").as_array().size());
    // meta verbatim, but for the client's address and descriptor.
    json::value mine_meta = mine.at("meta");
    json::value real_meta = real.at("meta");
    mine_meta.at("client").as_object().erase("source");
    real_meta.at("client").as_object().erase("source");
    EXPECT_EQ(json::serialize(mine_meta), json::serialize(real_meta));
  }

  void step(std::uint32_t id, const std::string& body) { control(m_sim, "POST", "/sim/jobs/" + std::to_string(id) + "/state", body); }
  std::string sluid_of(std::uint32_t id) {
    return std::string(control(m_sim, "GET", "/sim/jobs/" + std::to_string(id)).at("sluid").as_string());
  }
  void advance_ms(std::int64_t ms) { control(m_sim, "POST", "/sim/clock/advance", "{\"ms\": " + std::to_string(ms) + "}"); }
  std::int64_t clock_now_s() { return control(m_sim, "GET", "/sim/clock").at("now").to_number<std::int64_t>(); }
  std::int64_t last_job_update() { return control(m_sim, "GET", "/sim/stats").at("last_job_update").to_number<std::int64_t>(); }
  SimInstance& sim() { return m_sim; }

 private:
  SimOptions m_options;
  SimInstance m_sim;
  HttpClient m_client;
};

TEST(ConformanceV45, ReplaysTheSingleNodeSessionInOrder) {
  Replay replay(cluster_of_transcripts({"vm"}, 1796040375357, 12));
  replay.check("01_ping_v0.0.45");
  replay.check("02_ping_v0.0.44");
  replay.check("03_ping_v0.0.43");

  HttpResult submitted = replay.check("04_submit_single");
  EXPECT_EQ(submitted.json().at("job_id").to_number<int>(), 12);
  // Same cluster bits, same millisecond: the SLUID Slurm printed.
  EXPECT_EQ(replay.sluid_of(12), "sEE9M8P5JF1X00");
  replay.step(12, R"({"state": "RUNNING"})");
  replay.advance_ms(3000);
  replay.check("05_get_job_by_id");
  replay.check("06_get_job_by_sluid", Replay::Token::valid, "/slurm/v0.0.45/job/" + replay.sluid_of(12));
  replay.check("07_jobs_state_single");
  replay.check("08_delete_job_by_sluid", Replay::Token::valid, "/slurm/v0.0.45/job/" + replay.sluid_of(12));
  replay.advance_ms(2000);
  replay.check("09_get_job_after_cancel");
  replay.check("10_delete_job_again_after_cancel");

  HttpResult exit3 = replay.check("11_submit_exit3");
  EXPECT_EQ(exit3.json().at("job_id").to_number<int>(), 13);
  replay.step(13, R"({"state": "RUNNING"})");
  replay.advance_ms(1000);
  replay.step(13, R"({"state": "FAILED", "exit_code": 3})");
  replay.check("12_get_job_exit3_finished");

  HttpResult het = replay.check("13_submit_hetjob");
  EXPECT_EQ(het.json().at("job_id").to_number<int>(), 14);
  replay.check("14_get_hetjob_leader");
  replay.check("15_get_hetjob_component1");
  replay.check("16_get_hetjob_leader_by_sluid", Replay::Token::valid, "/slurm/v0.0.45/job/" + replay.sluid_of(14));
  replay.check("17_jobs_update_time");
  replay.advance_ms(5000);
  replay.check("18_jobs_update_time_now", Replay::Token::valid,
               "/slurm/v0.0.45/jobs?update_time=" + std::to_string(replay.last_job_update() + 1));
  replay.check("19_jobs_state_multi_repeated");
  replay.check("20_jobs_state_multi_csv");
  replay.check("21_delete_hetjob_leader");
  replay.check("22_get_hetjob_after_cancel");
  replay.check("23_delete_unknown_job_id");
  replay.check("24_delete_unknown_sluid");
  replay.check("25_get_unknown_job_id");
  replay.check("26_get_invalid_job_id");
  replay.check("27_jobs_state_unknown");
  replay.check("28_auth_expired_token_jobs", Replay::Token::expired);
  replay.check("29_auth_garbage_token_jobs", Replay::Token::garbage);
  replay.check("30_auth_wrong_key_token_jobs", Replay::Token::wrong_key);
  replay.check("31_auth_expired_token_ping", Replay::Token::expired);
  replay.check("32_auth_garbage_token_ping", Replay::Token::garbage);
  replay.check("33_auth_no_token_headers", Replay::Token::none);
  replay.check("34_auth_expired_token_submit", Replay::Token::expired);
  replay.check("35_auth_garbage_token_get_job", Replay::Token::garbage);
  replay.check("36_auth_garbage_token_delete_job", Replay::Token::garbage);
  replay.check("37_auth_token_only_no_username", Replay::Token::token_only);
  replay.check("38_auth_authorization_bearer", Replay::Token::bearer);

  HttpResult v44 = replay.check("39_submit_single_v0.0.44");
  EXPECT_EQ(v44.json().at("job_id").to_number<int>(), 16);
  replay.check("40_get_job_v0.0.44");
  replay.check("41_delete_job_v0.0.44");
  HttpResult v43 = replay.check("42_submit_single_v0.0.43");
  EXPECT_EQ(v43.json().at("job_id").to_number<int>(), 17);
  replay.check("43_get_job_v0.0.43");
  replay.check("44_delete_job_v0.0.43");
}

TEST(ConformanceV45, ReplaysTheTwoNodeSessionIncludingTheJobsThatCameBefore) {
  Replay replay(cluster_of_transcripts({"vm", "vm-b"}, 1796040270000, 1));
  // Jobs 1-6 existed before two_node/ was recorded: recreate their histories.
  Transcript single = load_v45("04_submit_single");
  Transcript exit3 = load_v45("11_submit_exit3");
  Transcript het = load_v45("13_submit_hetjob");
  ASSERT_EQ(replay.send(single).status, 200);  // 1: ran, then cancelled
  replay.step(1, R"({"state": "RUNNING"})");
  ASSERT_EQ(replay.send(call("DELETE", "/slurm/v0.0.45/job/1")).status, 200);
  ASSERT_EQ(replay.send(exit3).status, 200);  // 2: failed with exit 3
  replay.step(2, R"({"state": "RUNNING"})");
  replay.step(2, R"({"state": "FAILED", "exit_code": 3})");
  ASSERT_EQ(replay.send(het).status, 200);  // 3+4: cancelled while pending
  ASSERT_EQ(replay.send(call("DELETE", "/slurm/v0.0.45/job/3")).status, 200);
  ASSERT_EQ(replay.send(single).status, 200);  // 5, 6: cancelled while pending
  ASSERT_EQ(replay.send(single).status, 200);
  ASSERT_EQ(replay.send(call("DELETE", "/slurm/v0.0.45/job/5")).status, 200);
  ASSERT_EQ(replay.send(call("DELETE", "/slurm/v0.0.45/job/6")).status, 200);
  replay.advance_ms(30000);

  HttpResult submitted = replay.check("two_node/01_submit_hetjob");
  EXPECT_EQ(submitted.json().at("job_id").to_number<int>(), 7);
  replay.step(7, R"({"state": "RUNNING"})");  // the leader moves both components
  replay.advance_ms(4000);
  replay.check("two_node/02_get_hetjob_leader");
  replay.check("two_node/03_get_hetjob_component1");
  replay.check("two_node/04_get_hetjob_leader_by_sluid", Replay::Token::valid, "/slurm/v0.0.45/job/" + replay.sluid_of(7));
  replay.check("two_node/05_jobs_update_time", Replay::Token::valid, "/slurm/v0.0.45/jobs?update_time=1796040001");
  replay.advance_ms(5000);
  replay.check("two_node/06_jobs_update_time_now", Replay::Token::valid,
               "/slurm/v0.0.45/jobs?update_time=" + std::to_string(replay.last_job_update() + 1));
  replay.check("two_node/07_jobs_state_multi_repeated");
  replay.check("two_node/08_jobs_state_multi_csv");
  replay.check("two_node/09_delete_hetjob_leader");
  replay.check("two_node/10_get_hetjob_after_cancel");
}

TEST(ConformanceV45, JobStatesOfHetComponentsCarryTheirOffsetAndTheLeaderBringsAll) {
  Replay replay(cluster_of_transcripts({"vm", "vm-b"}, 1796040270000, 14));
  ASSERT_EQ(replay.send(load_v45("13_submit_hetjob")).status, 200);
  HttpResult r = replay.send(call("GET", "/slurm/v0.0.45/jobs/state?job_id=14&job_id=15"));
  json::value body = r.json();
  std::vector<std::string> ids;
  for (const auto& j : body.at("jobs").as_array()) ids.emplace_back(j.at("job_id").as_string());
  EXPECT_EQ(ids, (std::vector<std::string>{"14+0", "15+1", "15+1"}));
}

}  // namespace
}  // namespace tpslurm::sim::test
