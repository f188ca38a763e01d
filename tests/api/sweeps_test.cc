// The sweep routes against the real journal: POST /v1/sweeps (201, 200, 409, 422, 400, 429, the
// body limit of its own) and GET /v1/sweeps/{id}, byte for byte what `status --sweep --json`
// prints from the same journal.
#include <boost/json.hpp>
#include <filesystem>

#include "api_fixture.h"
#include "storage/job_credential.h"

namespace tpslurm::api::testing {
namespace {

namespace json = boost::json;

class ApiSweepsTest : public ApiFixture {
 protected:
  void SetUp() override { start(); }

  static std::string example_sweep() { return tpslurm::testing::read_test_file(source("etc/sweep.example.json")); }
};

TEST_F(ApiSweepsTest, ASweepIsCreatedWithOneJobPerRunThenUnchangedAndAnotherBodyIsAConflict) {
  const auto created = call("POST", "/v1/sweeps", kAliceToken, example_sweep());
  ASSERT_EQ(created.status, 201) << created.body << created.error;
  const auto body = json::parse(created.body).as_object();
  EXPECT_EQ(body.at("sweep_id"), "lr-sweep-3");
  EXPECT_EQ(body.at("outcome"), "created");
  EXPECT_EQ(body.at("job_ids"), (json::array{"lr-sweep-3-0", "lr-sweep-3-1", "lr-sweep-3-2"}));
  EXPECT_EQ(created.headers.at("location"), "/v1/sweeps/lr-sweep-3");

  auto journal = open_journal();
  const auto run = journal->job("lr-sweep-3-2");
  ASSERT_TRUE(run.ok() && run->has_value());
  EXPECT_NE((*run)->request_json.find(R"("env":{"EPOCHS":"3","RUN_NAME":"lr-1e-4","SEED":"18"})"), std::string::npos)
      << (*run)->request_json;
  EXPECT_EQ((*run)->request_json.find("example-ingest-token"), std::string::npos);
  const std::string credential = (*run)->credential_path;
  const auto written = std::filesystem::last_write_time(credential);

  const auto again = call("POST", "/v1/sweeps", kBobToken,
                          replaced(example_sweep(), "example-ingest-token-0-replace-me", "another-token"));
  EXPECT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(json::parse(again.body).at("outcome"), "unchanged");
  EXPECT_EQ(json::parse(again.body).at("request_sha256"), body.at("request_sha256"));
  EXPECT_EQ(std::filesystem::last_write_time(credential), written) << "an unchanged sweep touches no credential";

  const auto conflict = call("POST", "/v1/sweeps", kAliceToken, replaced(example_sweep(), "3e-4", "5e-4"));
  EXPECT_EQ(conflict.status, 409) << conflict.body;
  EXPECT_NE(conflict.body.find("sweep lr-sweep-3 was already submitted with a different request"), std::string::npos);
  EXPECT_EQ(journal->jobs()->size(), 3u);
}

TEST_F(ApiSweepsTest, ARunWhoseJobIdIsTakenIsAConflictNamingItAndJournalsNothing) {
  const std::string taken = replaced(example_request(), "\"job_id\": \"ft-7f3c2a\"", "\"job_id\": \"lr-sweep-3-1\"");
  ASSERT_EQ(call("POST", "/v1/jobs", kAliceToken, taken).status, 201);
  const auto conflict = call("POST", "/v1/sweeps", kAliceToken, example_sweep());
  ASSERT_EQ(conflict.status, 409) << conflict.body;
  EXPECT_NE(conflict.body.find("runs[1].job_id \\\"lr-sweep-3-1\\\" is already a job, not of sweep lr-sweep-3"),
            std::string::npos)
      << conflict.body;
  auto journal = open_journal();
  EXPECT_FALSE(journal->job("lr-sweep-3-0")->has_value());
  EXPECT_FALSE(journal->sweep("lr-sweep-3")->has_value());
  EXPECT_FALSE(std::filesystem::exists(env["TUNEPLANE_STORAGE_ROOT"] + "/slurm/jobs/lr-sweep-3-0"))
      << "no credential written";
  EXPECT_EQ(call("GET", "/v1/sweeps/lr-sweep-3", kAliceToken).status, 404);
}

TEST_F(ApiSweepsTest, AnInvalidSweepIs422WithEveryProblemAndNotJsonIs400) {
  std::string sweep = replaced(example_sweep(), "\"job_id\": \"lr-sweep-3-2\"", "\"job_id\": \"lr-sweep-3-0\"");
  sweep = replaced(sweep, "\"max_running\": 2", "\"max_running\": 2, \"extra\": 1");
  sweep = replaced(sweep, "\"command\": [\"python\", \"train.py\", \"--lr\", \"3e-4\"]",
                   "\"command\": [\"python\"], \"spec\": {}");
  const auto refused = call("POST", "/v1/sweeps", kAliceToken, sweep);
  ASSERT_EQ(refused.status, 422) << refused.body;
  const auto body = json::parse(refused.body).as_object();
  EXPECT_EQ(body.at("error"), "invalid_request");
  std::vector<std::string> paths;
  for (const auto& problem : body.at("problems").as_array()) paths.emplace_back(problem.at("field").as_string());
  EXPECT_EQ(paths, (std::vector<std::string>{"extra", "runs[1].spec", "runs[2].job_id"}));
  EXPECT_EQ(call("POST", "/v1/sweeps", kAliceToken, "{not json").status, 400);
  EXPECT_TRUE(open_journal()->jobs()->empty());
}

TEST_F(ApiSweepsTest, TheSweepIsShownWithItsRunsPhasesAsTheCliShowsIt) {
  ASSERT_EQ(call("POST", "/v1/sweeps", kAliceToken, example_sweep()).status, 201);
  ASSERT_TRUE(open_journal()
                  ->set_phase("lr-sweep-3-1", model::JobPhase::queued, model::JobPhase::cancelled, "cancelled")
                  .ok());
  const auto shown = call("GET", "/v1/sweeps/lr-sweep-3", kAliceToken);
  ASSERT_EQ(shown.status, 200) << shown.body;
  const auto body = json::parse(shown.body).as_object();
  EXPECT_EQ(body.at("run_count"), 3);
  EXPECT_EQ(body.at("max_running"), 2);
  EXPECT_EQ(body.at("submitted_by"), "alice");
  EXPECT_EQ(body.at("phases"), (json::object{{"cancelled", 1}, {"queued", 2}}));
  EXPECT_EQ(body.at("runs").as_array()[1], (json::object{{"index", 1}, {"job_id", "lr-sweep-3-1"}, {"phase", "cancelled"}}));
  const auto cli_view = cli({"status", "--sweep", "lr-sweep-3", "--json"});
  ASSERT_EQ(cli_view.exit_code, 0) << cli_view.err;
  EXPECT_EQ(cli_view.out, shown.body);
  EXPECT_EQ(call("GET", "/v1/sweeps/nope", kAliceToken).status, 404);
  EXPECT_EQ(call("DELETE", "/v1/sweeps", kAliceToken).status, 405);
}

TEST_F(ApiSweepsTest, ASweepMayBeLargerThanAJobsBodyLimit) {
  json::object sweep = json::parse(example_sweep()).as_object();
  json::array runs;
  for (int i = 0; i < 300; ++i) {
    const std::string id = "big-" + std::to_string(i);
    runs.push_back(json::object{{"job_id", id},
                                {"credentials", json::object{{"ingest_token", "token-" + id}}},
                                {"command", json::array{"python", "train.py", "--index", std::to_string(i)}},
                                {"env", json::object{{"RUN_NAME", id}, {"NOTES", std::string(4000, 'n')}}}});
  }
  sweep["sweep_id"] = "big";
  sweep["runs"] = std::move(runs);
  const std::string body = json::serialize(sweep);
  ASSERT_GT(body.size(), std::size_t{1} << 20);
  const auto created = call("POST", "/v1/sweeps", kAliceToken, body);
  ASSERT_EQ(created.status, 201) << created.body.substr(0, 500) << created.error;
  EXPECT_EQ(json::parse(created.body).at("job_ids").as_array().size(), 300u);
  const auto job = call("POST", "/v1/jobs", kAliceToken, body);
  EXPECT_EQ(job.status, 413) << "the larger limit is the sweep route's alone";
}

}  // namespace
}  // namespace tpslurm::api::testing
