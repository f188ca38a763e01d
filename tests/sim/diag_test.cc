// GET /slurm/vX/diag: slurmctld's statistics, and above all its clock (`req_time`), which a
// client reads to learn the server's notion of "now".
//
// Served on every implemented version of every release: v0.0.38 as the 22.05 transcript
// shows it (replayed in conformance_v38_test.cc), v0.0.4x per the generated OpenAPI
// documents, key order included. The counters follow what the simulated slurmctld did:
// jobs submitted, started and ended, and one RPC per slurmctld call a REST request made
// (a diag answer does not yet count its own REQUEST_STATS_INFO).
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "json_shape.h"
#include "sim_harness.h"
#include "transcripts.h"

namespace tpslurm::sim::test {
namespace {

namespace json = boost::json;

std::int64_t sim_now(const SimInstance& sim) {
  return control(sim, "GET", "/sim/clock").at("now").to_number<std::int64_t>();
}

std::int64_t req_time(const json::value& body, bool v38) {
  const json::value& t = body.at("statistics").at("req_time");
  if (v38) return t.to_number<std::int64_t>();
  EXPECT_EQ(t.at("set"), true);
  EXPECT_EQ(t.at("infinite"), false);
  return t.at("number").to_number<std::int64_t>();
}

TEST(Diag, ReqTimeIsTheServersClockOnEveryServedVersion) {
  const std::vector<ServedVersion> served = {{Release::r26_05_3, "v0.0.45"}, {Release::r26_05_3, "v0.0.44"},
                                      {Release::r26_05_3, "v0.0.43"}, {Release::r25_11_7, "v0.0.44"},
                                      {Release::r25_11_7, "v0.0.43"}, {Release::r25_05_0, "v0.0.43"},
                                      {Release::r22_05_8, "v0.0.38"}};
  for (const ServedVersion& s : served) {
    SCOPED_TRACE(s.version + " on " + std::string(release_name(s.release)));
    SimOptions options = test_options(s.release);
    SimInstance sim(options);
    const bool v38 = s.version == "v0.0.38";
    HttpResult first = slurm_call(sim, options, "GET", "/slurm/" + s.version + "/diag");
    ASSERT_EQ(first.status, 200) << first.body.substr(0, 300);
    EXPECT_EQ(first.headers["content-type"], "application/json");
    EXPECT_EQ(req_time(first.json(), v38), sim_now(sim));
    control(sim, "POST", "/sim/clock/advance", R"({"seconds": 4321})");
    HttpResult later = slurm_call(sim, options, "GET", "/slurm/" + s.version + "/diag/");
    ASSERT_EQ(later.status, 200);
    EXPECT_EQ(req_time(later.json(), v38), options.manual_clock_start_ms / 1000 + 4321);
    EXPECT_TRUE(later.json().at("errors").as_array().empty());
  }
}

TEST(Diag, StatisticsFollowTheGeneratedSchemaKeyForKeyAndInOrder) {
  for (const char* version : {"v0.0.45", "v0.0.44", "v0.0.43"}) {
    SCOPED_TRACE(version);
    SimOptions options = test_options();
    SimInstance sim(options);
    ASSERT_EQ(slurm_call(sim, options, "POST", std::string("/slurm/") + version + "/job/submit", simple_job()).status,
              200);
    HttpResult r = slurm_call(sim, options, "GET", std::string("/slurm/") + version + "/diag");
    ASSERT_EQ(r.status, 200);
    json::value document =
        json::parse(read_file(std::string(TP_SOURCE_DIR) + "/tests/sim/openapi/openapi-" + version + ".schemas.json"));
    const std::string prefix = std::string(version) + "_";
    std::vector<std::string> diffs = schema_diff(r.json(), document, prefix + "openapi_diag_resp");
    EXPECT_TRUE(diffs.empty()) << join(diffs);
    // data_parser dumps a struct in its parser order, which is the schema's property order.
    const json::object& schemas = document.at("components").at("schemas").as_object();
    auto keys_of = [](const json::object& o) {
      std::vector<std::string> out;
      for (const auto& kv : o) out.emplace_back(kv.key());
      return out;
    };
    EXPECT_EQ(keys_of(r.json().as_object()), (std::vector<std::string>{"statistics", "meta", "errors", "warnings"}));
    EXPECT_EQ(keys_of(r.json().at("statistics").as_object()),
              keys_of(schemas.at(prefix + "stats_msg").at("properties").as_object()));
    const json::value& rpc = r.json().at("statistics").at("rpcs_by_message_type").at(0);
    EXPECT_EQ(keys_of(rpc.as_object()),
              keys_of(schemas.at(prefix + "stats_msg_rpc_type").at("properties").as_object()));
    const json::value& user = r.json().at("statistics").at("rpcs_by_user").at(0);
    EXPECT_EQ(keys_of(user.as_object()),
              keys_of(schemas.at(prefix + "stats_msg_rpc_user").at("properties").as_object()));
  }
}

const json::object* rpc_entry(const json::value& body, const std::string& type) {
  for (const auto& e : body.at("statistics").at("rpcs_by_message_type").as_array()) {
    if (e.at("message_type") == type.c_str()) return &e.as_object();
  }
  return nullptr;
}

TEST(Diag, CountsTheJobsAndTheCallsTheControllerServed) {
  SimOptions options = test_options();
  SimInstance sim(options);
  const std::string submit = "/slurm/v0.0.45/job/submit";
  ASSERT_EQ(slurm_call(sim, options, "POST", submit, simple_job("a")).status, 200);
  std::string het = R"({"script": "#!/bin/bash\n", "jobs": [{"name": "h", "environment": ["A=1"]}, {"name": "h"}]})";
  ASSERT_EQ(slurm_call(sim, options, "POST", submit, het, "nobody").status, 200);
  control(sim, "POST", "/sim/jobs/1/state", R"({"state": "RUNNING"})");
  control(sim, "POST", "/sim/jobs/1/state", R"({"state": "COMPLETED"})");
  ASSERT_EQ(slurm_call(sim, options, "DELETE", "/slurm/v0.0.45/job/2", "", "nobody").status, 200);
  ASSERT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/1").status, 200);
  ASSERT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.45/ping").status, 200);
  ASSERT_EQ(slurm_call(sim, options, "GET", "/slurmdb/v0.0.45/jobs").status, 200);  // slurmdbd, not slurmctld

  HttpResult r = slurm_call(sim, options, "GET", "/slurm/v0.0.45/diag");
  ASSERT_EQ(r.status, 200);
  const json::value& s = r.json().at("statistics");
  EXPECT_EQ(s.at("jobs_submitted").to_number<int>(), 3);  // a het job counts each component
  EXPECT_EQ(s.at("jobs_started").to_number<int>(), 1);
  EXPECT_EQ(s.at("jobs_completed").to_number<int>(), 1);
  EXPECT_EQ(s.at("jobs_canceled").to_number<int>(), 2);
  EXPECT_EQ(s.at("jobs_pending").to_number<int>(), 0);
  EXPECT_EQ(s.at("job_states_ts").at("number").to_number<std::int64_t>(), sim_now(sim));

  struct Expected {
    const char* type;
    int id;
    int count;
  };
  for (const Expected& e :
       {Expected{"MESSAGE_NODE_REGISTRATION_STATUS", 1002, 2}, Expected{"REQUEST_SUBMIT_BATCH_JOB", 4003, 1},
        Expected{"REQUEST_SUBMIT_BATCH_HET_JOB", 4028, 1}, Expected{"REQUEST_KILL_JOBS", 5040, 1},
        Expected{"REQUEST_JOB_INFO_SINGLE", 2021, 1}, Expected{"REQUEST_PING", 1008, 1}}) {
    const json::object* entry = rpc_entry(r.json(), e.type);
    ASSERT_NE(entry, nullptr) << e.type;
    EXPECT_EQ(entry->at("type_id").to_number<int>(), e.id) << e.type;
    EXPECT_EQ(entry->at("count").to_number<int>(), e.count) << e.type;
    EXPECT_EQ(entry->at("average_time").at("number").to_number<std::int64_t>(),
              entry->at("total_time").to_number<std::int64_t>() / e.count)
        << e.type;
  }
  EXPECT_EQ(rpc_entry(r.json(), "REQUEST_STATS_INFO"), nullptr);  // the diag being answered is not counted yet
  // Most frequent first, as sdiag lists them.
  std::int64_t previous = INT64_MAX;
  for (const auto& e : s.at("rpcs_by_message_type").as_array()) {
    EXPECT_LE(e.at("count").to_number<std::int64_t>(), previous);
    previous = e.at("count").to_number<std::int64_t>();
  }
  std::map<std::string, int> by_user;
  for (const auto& u : s.at("rpcs_by_user").as_array())
    by_user[std::string(u.at("user").as_string())] = u.at("count").to_number<int>();
  EXPECT_EQ(by_user, (std::map<std::string, int>{{"nobody", 2}, {"root", 3}, {"slurm", 2}}));

  HttpResult again = slurm_call(sim, options, "GET", "/slurm/v0.0.45/diag");
  const json::object* stats_info = rpc_entry(again.json(), "REQUEST_STATS_INFO");
  ASSERT_NE(stats_info, nullptr);
  EXPECT_EQ(stats_info->at("type_id").to_number<int>(), 2035);
  EXPECT_EQ(stats_info->at("count").to_number<int>(), 1);
}

TEST(Diag, ARefusedTokenIs511WithError1007AndNoStatistics) {
  SimOptions options = test_options();
  SimInstance sim(options);
  HttpClient client;
  RequestOptions req;
  req.headers = {{"X-SLURM-USER-TOKEN", mint_token("another key", "root", options.manual_clock_start_ms / 1000 + 60)}};
  HttpResult r = client.request("GET", sim.url("/slurm/v0.0.45/diag"), req);
  EXPECT_EQ(r.status, 511);
  EXPECT_EQ(error_numbers(r.json()), (std::vector<std::int64_t>{1007}));
  EXPECT_EQ(r.json().at("errors").at(0).at("description"), "slurm_get_statistics() failed to get slurmctld statistics");
  EXPECT_EQ(r.json().at("errors").at(0).at("source"), "op_handler_diag");
  EXPECT_FALSE(r.json().as_object().contains("statistics"));
  EXPECT_EQ(r.headers["connection"], "Close");
}

}  // namespace
}  // namespace tpslurm::sim::test
