// Answers without a real transcript, held to Slurm's own generated OpenAPI documents.
//
// The 26.05 transcripts were taken without slurmdbd, so the slurmdbd views (and the
// partition list) are checked against the schemas `slurmrestd --generate-openapi-spec`
// produced for v0.0.45, v0.0.44 and v0.0.43 (copied, components only, into
// tests/sim/openapi/): every property present, none extra, kinds and enums as declared.
// The answers that do have transcripts are checked against the schemas too, which
// confirms the documents describe what the real server sends.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "json_shape.h"
#include "sim_harness.h"
#include "transcripts.h"

namespace tpslurm::sim::test {
namespace {

namespace json = boost::json;

json::value spec(const std::string& version) {
  return json::parse(read_file(std::string(TP_SOURCE_DIR) + "/tests/sim/openapi/openapi-" + version + ".schemas.json"));
}

struct Case {
  std::string version;
  Dialect dialect;
};

class SchemaTest : public ::testing::TestWithParam<Case> {};

TEST_P(SchemaTest, EveryAnswerMatchesTheGeneratedSchema) {
  const Case& c = GetParam();
  const std::string v = c.version;
  const std::string prefix = v + "_";
  json::value document = spec(v);
  SimOptions options = test_options(Release::r26_05_3);
  SimInstance sim(options);
  HttpClient client;
  RequestOptions req;
  req.headers = auth_headers(options);
  auto get = [&](const std::string& path) {
    HttpResult r = client.request("GET", sim.url(path), req);
    EXPECT_EQ(r.curl_code, 0) << path;
    return r;
  };
  auto expect_schema = [&](const HttpResult& r, const std::string& schema, const std::string& what) {
    std::vector<std::string> diffs = schema_diff(r.json(), document, prefix + schema);
    EXPECT_TRUE(diffs.empty()) << v << " " << what << " against " << schema << ":" << join(diffs);
  };

  // A plain job that ran and failed, a het job that runs, and one that was purged.
  RequestOptions submit = req;
  submit.body = R"({"script": "#!/bin/bash\nexit 3\n", "job": {"name": "a", "environment": ["PATH=/bin"],
                    "tres_per_node": "gres/gpu:2", "time_limit": 30, "current_working_directory": "/w"}})";
  ASSERT_EQ(client.request("POST", sim.url("/slurm/" + v + "/job/submit"), submit).status, 200);
  submit.body = R"({"jobs": [{"script": "#!/bin/bash\ntrue\n", "name": "h", "environment": ["A=1"]},
                             {"name": "h", "environment": ["A=1"]}]})";
  HttpResult het = client.request("POST", sim.url("/slurm/" + v + "/job/submit"), submit);
  ASSERT_EQ(het.status, 200);
  expect_schema(het, "openapi_job_submit_response", "submit");
  control(sim, "POST", "/sim/jobs/1/state", R"({"state": "RUNNING"})");
  control(sim, "POST", "/sim/jobs/1/state", R"({"state": "FAILED", "exit_code": 3})");
  control(sim, "POST", "/sim/jobs/2/state", R"({"state": "RUNNING"})");

  expect_schema(get("/slurm/" + v + "/ping"), "openapi_ping_array_resp", "ping");
  expect_schema(get("/slurm/" + v + "/diag"), "openapi_diag_resp", "diag");
  expect_schema(get("/slurm/" + v + "/jobs"), "openapi_job_info_resp", "jobs");
  expect_schema(get("/slurm/" + v + "/job/2"), "openapi_job_info_resp", "job/2");
  expect_schema(get("/slurm/" + v + "/partitions"), "openapi_partition_resp", "partitions");
  expect_schema(get("/slurm/" + v + "/partition/gpu"), "openapi_partition_resp", "partition/gpu");
  expect_schema(get("/slurmdb/" + v + "/jobs?start_time=1"), "openapi_slurmdbd_jobs_resp", "slurmdb jobs");
  expect_schema(get("/slurmdb/" + v + "/job/2"), "openapi_slurmdbd_jobs_resp", "slurmdb job/2");
  HttpResult cancelled = client.request("DELETE", sim.url("/slurm/" + v + "/job/2"), req);
  expect_schema(cancelled, "openapi_kill_job_resp", "DELETE job/2");
  HttpResult again = client.request("DELETE", sim.url("/slurm/" + v + "/job/2"), req);
  expect_schema(again, "openapi_kill_job_resp", "DELETE job/2 again");
  EXPECT_EQ(status_codes(again.json()), (std::vector<std::int64_t>{2021}));
}

INSTANTIATE_TEST_SUITE_P(Dialects, SchemaTest,
                         ::testing::Values(Case{"v0.0.45", Dialect::v0045}, Case{"v0.0.44", Dialect::v0044},
                                           Case{"v0.0.43", Dialect::v0043}),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                           std::string name = param_info.param.version;
                           for (char& ch : name) {
                             if (ch == '.') ch = '_';
                           }
                           return name;
                         });

// v0.0.40-42 against the documents real servers served (24.11.7: v0.0.40, 41, 42;
// 23.11.11: v0.0.40), copied components-only into tests/sim/openapi/.
struct ServedCase {
  Release release;
  std::string document;  // openapi-<document>.schemas.json
  std::string version;
};

class ServedSchemaTest : public ::testing::TestWithParam<ServedCase> {};

TEST_P(ServedSchemaTest, EveryAnswerMatchesTheServedSchema) {
  const ServedCase& c = GetParam();
  const std::string v = c.version;
  const std::string prefix = v + "_";
  json::value document = spec(c.document);
  SimOptions options = test_options(c.release);
  SimInstance sim(options);
  HttpClient client;
  RequestOptions req;
  req.headers = auth_headers(options);
  auto get = [&](const std::string& path) {
    HttpResult r = client.request("GET", sim.url(path), req);
    EXPECT_EQ(r.curl_code, 0) << path;
    return r;
  };
  auto expect_schema = [&](const HttpResult& r, const std::string& schema, const std::string& what) {
    std::vector<std::string> diffs = schema_diff(r.json(), document, prefix + schema);
    EXPECT_TRUE(diffs.empty()) << c.document << " " << v << " " << what << " against " << schema << ":"
                               << join(diffs);
  };
  RequestOptions submit = req;
  submit.body = R"({"script": "#!/bin/bash\nexit 3\n", "job": {"name": "a", "environment": ["PATH=/bin"],
                    "tres_per_node": "gres/gpu:2", "time_limit": 30, "current_working_directory": "/w"}})";
  HttpResult first = client.request("POST", sim.url("/slurm/" + v + "/job/submit"), submit);
  ASSERT_EQ(first.status, 200) << first.body;
  expect_schema(first, "openapi_job_submit_response", "submit");
  submit.body = R"({"script": "#!/bin/bash\ntrue\n", "jobs": [{"name": "h", "environment": ["A=1"]},
                             {"name": "h", "environment": ["A=1"]}]})";
  ASSERT_EQ(client.request("POST", sim.url("/slurm/" + v + "/job/submit"), submit).status, 200);
  control(sim, "POST", "/sim/jobs/1/state", R"({"state": "RUNNING"})");
  control(sim, "POST", "/sim/jobs/1/state", R"({"state": "FAILED", "exit_code": 3})");
  control(sim, "POST", "/sim/jobs/2/state", R"({"state": "RUNNING"})");

  expect_schema(get("/slurm/" + v + "/ping"), "openapi_ping_array_resp", "ping");
  expect_schema(get("/slurm/" + v + "/diag"), "openapi_diag_resp", "diag");
  expect_schema(get("/slurm/" + v + "/jobs"), "openapi_job_info_resp", "jobs");
  expect_schema(get("/slurm/" + v + "/job/2"), "openapi_job_info_resp", "job/2");
  expect_schema(get("/slurm/" + v + "/partitions"), "openapi_partition_resp", "partitions");
  expect_schema(get("/slurmdb/" + v + "/jobs?start_time=uts1000000"), "openapi_slurmdbd_jobs_resp", "slurmdb jobs");
  expect_schema(get("/slurmdb/" + v + "/job/2"), "openapi_slurmdbd_jobs_resp", "slurmdb job/2");
  if (document.at("components").at("schemas").as_object().contains(prefix + "openapi_job_state_resp")) {
    expect_schema(get("/slurm/" + v + "/jobs/state?job_id=1"), "openapi_job_state_resp", "jobs/state");
  }
  const bool kill_job_resp = c.version == "v0.0.42";
  HttpResult cancelled = client.request("DELETE", sim.url("/slurm/" + v + "/job/2"), req);
  EXPECT_EQ(cancelled.status, 200);
  expect_schema(cancelled, kill_job_resp ? "openapi_kill_job_resp" : "openapi_resp", "DELETE job/2");
}

INSTANTIATE_TEST_SUITE_P(Dialects, ServedSchemaTest,
                         ::testing::Values(ServedCase{Release::r24_11_7, "24.11.7-served", "v0.0.42"},
                                           ServedCase{Release::r24_11_7, "24.11.7-served", "v0.0.41"},
                                           ServedCase{Release::r24_11_7, "24.11.7-served", "v0.0.40"},
                                           ServedCase{Release::r23_11_11, "23.11.11-served", "v0.0.40"}),
                         [](const ::testing::TestParamInfo<ServedCase>& param_info) {
                           std::string name = std::string(release_name(param_info.param.release)) + "_" +
                                              param_info.param.version;
                           for (char& ch : name) {
                             if (ch == '.') ch = '_';
                           }
                           return name;
                         });

TEST(SchemaTest, TheRealTranscriptsMatchTheGeneratedSchemasToo) {
  json::value document = spec("v0.0.45");
  for (const char* name : {"05_get_job_by_id", "15_get_hetjob_component1", "12_get_job_exit3_finished",
                           "17_jobs_update_time"}) {
    json::value real = json::parse(load_v45(name).response_body);
    std::vector<std::string> diffs = schema_diff(real, document, "v0.0.45_openapi_job_info_resp");
    EXPECT_TRUE(diffs.empty()) << name << ":" << join(diffs);
  }
  json::value ping = json::parse(load_v45("01_ping_v0.0.45").response_body);
  EXPECT_TRUE(schema_diff(ping, document, "v0.0.45_openapi_ping_array_resp").empty());
}

}  // namespace
}  // namespace tpslurm::sim::test
