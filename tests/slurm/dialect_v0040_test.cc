// The v0.0.40, v0.0.41 and v0.0.42 codecs (the newest versions of Slurm 23.11, 24.05 and
// 24.11) and the rules that follow the server's release rather than the version
// (server_info.h): the submit body as v0.0.43's, the ping without `responding`, the old
// `result` beside the receipt, DELETE's answer before 24.11, polls without jobs/state on
// 23.11.0-4, and the UPDATE_DB flag.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "config/setting_keys.h"
#include "slurm/dialect.h"
#include "slurm/server_info.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

using model::SlurmBaseState;
using model::SlurmStateFlag;

std::string with_version(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// A v0.0.40 envelope as 23.11.11's data_parser writes it.
std::string envelope_2311(const std::string& members) {
  return R"({"meta":{"plugin":{"type":"openapi/slurmctld","name":"Slurm OpenAPI slurmctld","data_parser":"data_parser/v0.0.40","accounting_storage":""},)"
         R"("client":{"source":"[127.0.0.1]:40000","user":"root","group":"root"},)"
         R"("slurm":{"version":{"major":"23","micro":"11","minor":"11"},"release":"23.11.11","cluster":"tp"}},)" +
         members + "}";
}

TEST(DialectV0040Test, TheBuildSpeaksTheNewestVersionOfEveryReleaseFrom2311) {
  const auto versions = supported_dialects();
  EXPECT_EQ(std::vector<std::string_view>(versions.begin(), versions.end()),
            (std::vector<std::string_view>{"v0.0.45", "v0.0.44", "v0.0.43", "v0.0.42", "v0.0.41", "v0.0.40", "v0.0.38"}));
  for (auto version : versions) {
    auto dialect = make_dialect(version);
    ASSERT_NE(dialect, nullptr) << version;
    EXPECT_EQ(dialect->version(), version);
  }
  EXPECT_EQ(make_dialect("v0.0.39"), nullptr) << "23.11's and 24.05's old plugin version is not spoken";
  const auto accepted = config::rest_api_versions();
  EXPECT_EQ(std::vector<std::string_view>(accepted.begin(), accepted.end()),
            std::vector<std::string_view>(versions.begin(), versions.end()))
      << "the setting accepts exactly the versions the client speaks";
}

TEST(DialectV0040Test, SubmitsTheSameBodyAsV0043) {
  const auto v0043 = make_dialect("v0.0.43");
  for (const char* version : {"v0.0.40", "v0.0.41", "v0.0.42"}) {
    const auto dialect = make_dialect(version, SlurmRelease{24, 11, 7});
    for (const auto& description : {testing::cpu_description(), testing::hetjob_description()}) {
      EXPECT_EQ(*dialect->encode_submit(description), *v0043->encode_submit(description)) << version;
    }
    EXPECT_EQ(dialect->submit_path(), "/slurm/" + std::string(version) + "/job/submit");
  }
}

TEST(DialectV0040Test, Early2311GetsATopLevelScriptToo) {
  const auto early = make_dialect("v0.0.40", SlurmRelease{23, 11, 4});
  const auto later = make_dialect("v0.0.40", SlurmRelease{23, 11, 5});
  const auto description = testing::cpu_description();
  const auto body = boost::json::parse(*early->encode_submit(description)).as_object();
  ASSERT_TRUE(body.contains("script"));
  EXPECT_EQ(body.at("script").as_string(), description.script);
  EXPECT_EQ(body.at("job").at("script").as_string(), description.script);
  EXPECT_FALSE(boost::json::parse(*later->encode_submit(description)).as_object().contains("script"));
}

TEST(DialectV0040Test, WithoutJobsStateThePreflightIsDiagAndPollsUseUpdateTime) {
  const auto early = make_dialect("v0.0.40", SlurmRelease{23, 11, 4});
  EXPECT_FALSE(early->has_jobs_state());
  EXPECT_EQ(early->preflight_path(), "/slurm/v0.0.40/diag");
  const auto later = make_dialect("v0.0.40", SlurmRelease{23, 11, 11});
  EXPECT_TRUE(later->has_jobs_state());
  EXPECT_EQ(later->preflight_path(), "/slurm/v0.0.40/jobs/state?job_id=1");
  EXPECT_TRUE(later->updates_per_component());
  EXPECT_TRUE(early->updates_per_component()) << "a data_parser update addresses one record, whatever the release";
}

TEST(DialectV0040Test, APingWithoutRespondingIsReadFromPinged) {
  const auto dialect = make_dialect("v0.0.40");
  const auto up = dialect->decode_ping(envelope_2311(
      R"("pings":[{"hostname":"vm","pinged":"UP","latency":120,"mode":"primary"}],"warnings":[],"errors":[])"));
  ASSERT_TRUE(up.ok());
  EXPECT_TRUE(up->responding);
  EXPECT_EQ(up->status, "UP");
  EXPECT_EQ(up->release, "23.11.11");
  const auto down = dialect->decode_ping(envelope_2311(
      R"("pings":[{"hostname":"vm","pinged":"DOWN","latency":0,"mode":"primary"}],"warnings":[],"errors":[])"));
  ASSERT_TRUE(down.ok());
  EXPECT_FALSE(down->responding);
  // v0.0.42 says it outright (24.11.7).
  const auto said = make_dialect("v0.0.42")->decode_ping(with_version(
      envelope_2311(R"("pings":[{"hostname":"vm","pinged":"UP","responding":false,"latency":1,"mode":"primary","primary":true}],"warnings":[],"errors":[])"),
      "v0.0.40", "v0.0.42"));
  ASSERT_TRUE(said.ok());
  EXPECT_FALSE(said->responding);
}

TEST(DialectV0040Test, TheReceiptIsReadBesideTheOldResult) {
  const auto reply = make_dialect("v0.0.41")->decode_submit(envelope_2311(
      R"("job_id":71,"step_id":"batch","job_submit_user_msg":"",)"
      R"("result":{"job_id":71,"step_id":"batch","error_code":0,"error":"No error","job_submit_user_msg":""},)"
      R"("warnings":[],"errors":[])"));
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->job_id, 71u);
  EXPECT_TRUE(reply->job_id_problem.empty());
}

// 23.11 and 24.05: slurm_kill_job's one error in errors[], no status list.
TEST(DialectV0040Test, DeleteBefore2411AnswersInErrors) {
  const auto dialect = make_dialect("v0.0.40", SlurmRelease{23, 11, 11});
  const auto unknown = dialect->decode_cancel(envelope_2311(
      R"("warnings":[],"errors":[{"description":"unable to send signal Killed to JobId=99","error_number":2017,)"
      R"("error":"Invalid job id specified","source":"slurm_kill_job2"}])"));
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->status, CancelStatus::not_found);
  const auto pending = dialect->decode_cancel(envelope_2311(
      R"("warnings":[],"errors":[{"description":"unable to send signal User defined signal 1 to JobId=7","error_number":2020,)"
      R"("error":"Job can not be altered now, try again later","source":"slurm_kill_job2"}])"));
  ASSERT_TRUE(pending.ok());
  EXPECT_EQ(pending->status, CancelStatus::not_running);
  const auto done = dialect->decode_cancel(envelope_2311(
      R"("warnings":[{"description":"Job was already sent signal Killed","source":"_handle_job_delete"}],"errors":[])"));
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->status, CancelStatus::signalled);
}

TEST(DialectV0040Test, DeleteFrom2411NeedsItsStatusList) {
  const auto dialect = make_dialect("v0.0.42", SlurmRelease{24, 11, 7});
  const auto missing = dialect->decode_cancel(envelope_2311(R"("warnings":[],"errors":[])"));
  EXPECT_FALSE(missing.ok()) << "from 24.11 an answer without its status list is not the answer expected";
  const auto listed = dialect->decode_cancel(envelope_2311(
      R"("status":[{"error":{"string":"Invalid job id specified","code":2017,"message":"Invalid job id specified"},)"
      R"("step_id":"99","job_id":99,"federation":{"sibling":""}}],"warnings":[],"errors":[])"));
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->status, CancelStatus::not_found);
  // A server upgraded under an old codec still gets its list read.
  const auto old_rules = make_dialect("v0.0.40", SlurmRelease{24, 5, 8});
  EXPECT_EQ(old_rules->decode_cancel(envelope_2311(
                R"("status":[{"error":{"string":"Invalid job id specified","code":2017,"message":""},"step_id":"99"}],)"
                R"("warnings":[],"errors":[])"))
                ->status,
            CancelStatus::not_found);
}

TEST(DialectV0040Test, UpdateDbIsAFlagNotAnUnknownState) {
  const auto reply = make_dialect("v0.0.40")->decode_jobs(envelope_2311(
      R"("jobs":[{"job_id":5,"name":"tp-x","job_state":["RUNNING","UPDATE_DB"],"het_job_id":{"set":false,"infinite":false,"number":0}}],)"
      R"("last_backfill":{"set":true,"infinite":false,"number":0},"last_update":{"set":true,"infinite":false,"number":0},)"
      R"("warnings":[],"errors":[])"));
  ASSERT_TRUE(reply.ok());
  ASSERT_EQ(reply->jobs.size(), 1u);
  const auto& state = reply->jobs[0].state;
  EXPECT_EQ(state.base, SlurmBaseState::running);
  EXPECT_TRUE(state.has(SlurmStateFlag::update_db));
  EXPECT_TRUE(state.unknown.empty());
}

TEST(DialectV0040Test, AnOpenApiDocumentNamesTheVersionsAServerServes) {
  const std::string document =
      R"({"paths":{"/slurm/v0.0.41/ping/":{},"/slurm/v0.0.39/jobs/":{},"/slurmdb/v0.0.41/jobs/":{},)"
      R"("/slurm/v0.0.41/job/{job_id}":{},"/openapi/v3":{}}})";
  EXPECT_EQ(versions_in_openapi(document), (std::vector<std::string>{"v0.0.39", "v0.0.41"}));
  EXPECT_EQ(advice_for_versions({"v0.0.46", "v0.0.47"}),
            "That Slurm is newer than this build: a newer tuneplane-slurm is needed.");
  EXPECT_EQ(advice_for_versions({"v0.0.36", "v0.0.37"}), "Slurm before 22.05 is not supported: upgrade Slurm.");
  EXPECT_NE(advice_for_versions({"v0.0.39"}).find("slurmrestd -d"), std::string::npos);
}

}  // namespace
}  // namespace tpslurm::slurm
