// GET /v1/jobs/{id}/logs: the bytes `logs --json` prints for the same job and query, and the
// refusals (unknown job, attempt or component; bad parameters).
#include <boost/json.hpp>

#include "api_fixture.h"

namespace tpslurm::api::testing {
namespace {

namespace json = boost::json;
using tpslurm::testing::write_test_file;

class ApiLogsTest : public ApiFixture {
 protected:
  void SetUp() override {
    start();
    ASSERT_EQ(call("POST", "/v1/jobs", kAliceToken, example_request()).status, 201);
    prepared_attempt_with_logs(*open_journal(), "ft-7f3c2a");
    std::string lines;
    for (int i = 0; i < 3000; ++i) lines += "line " + std::to_string(i) + "\n";
    write_test_file(dir.file("attempts/1/logs/batch.out"), lines);
    write_test_file(dir.file("attempts/1/logs/component-0.err"), "an error\n");
  }
};

TEST_F(ApiLogsTest, LogsAreWhatTheCliPrints) {
  const std::pair<std::string, std::vector<std::string>> cases[] = {
      {"", {}},
      {"?stream=stderr", {"--stderr"}},
      {"?component=-1&offset=100", {"--component", "-1", "--offset", "100"}},
      {"?attempt=1&component=0&stream=stderr", {"--attempt", "1", "--component", "0", "--stderr"}},
  };
  for (const auto& [query, flags] : cases) {
    const auto answer = call("GET", "/v1/jobs/ft-7f3c2a/logs" + query, kBobToken);
    ASSERT_EQ(answer.status, 200) << query << answer.body;
    std::vector<std::string> args{"logs", "ft-7f3c2a", "--json"};
    args.insert(args.end(), flags.begin(), flags.end());
    const auto printed = cli(args);
    ASSERT_EQ(printed.exit_code, 0) << printed.err;
    EXPECT_EQ(answer.body, printed.out) << query;
  }
  // The limits of `logs`: at most 2,000 lines of the 3,000.
  const json::value tail = json::parse(call("GET", "/v1/jobs/ft-7f3c2a/logs?component=-1", kBobToken).body);
  EXPECT_EQ(tail.at("logs").as_array()[0].at("lines_before"), 1000);
}

TEST_F(ApiLogsTest, RefusesUnknownJobsAttemptsComponentsAndParameters) {
  EXPECT_EQ(call("GET", "/v1/jobs/no-such-job/logs", kBobToken).status, 404);
  const auto attempt = call("GET", "/v1/jobs/ft-7f3c2a/logs?attempt=7", kBobToken);
  EXPECT_EQ(attempt.status, 404);
  EXPECT_NE(json::parse(attempt.body).at("message").as_string().find("has no attempt 7"), std::string::npos);
  const auto component = call("GET", "/v1/jobs/ft-7f3c2a/logs?component=5", kBobToken);
  EXPECT_EQ(component.status, 422);
  EXPECT_EQ(json::parse(component.body).at("problems").as_array()[0].at("field"), "component");
  const auto bad = call("GET", "/v1/jobs/ft-7f3c2a/logs?stream=both&offset=-1&attempt=0&x=1", kBobToken);
  EXPECT_EQ(bad.status, 422);
  EXPECT_EQ(json::parse(bad.body).at("problems").as_array().size(), 4u);
  EXPECT_EQ(call("POST", "/v1/jobs/ft-7f3c2a/logs", kBobToken).status, 405);
  EXPECT_EQ(call("GET", "/v1/jobs/ft-7f3c2a/logs", "").status, 401);
}

}  // namespace
}  // namespace tpslurm::api::testing
