// Bearer tokens: what an unauthenticated request gets (401 and no effect), revocation by
// editing the tokens file, and a bad new file keeping the last good tokens.
#include <boost/json.hpp>

#include "api_fixture.h"

namespace tpslurm::api::testing {
namespace {

class ApiAuthTest : public ApiFixture {
 protected:
  void SetUp() override { start(); }

  std::size_t jobs_in_journal() {
    auto journal = open_journal();
    auto jobs = journal->jobs();
    EXPECT_TRUE(jobs.ok());
    return jobs.ok() ? jobs->size() : 0;
  }
};

TEST_F(ApiAuthTest, HealthNeedsNoToken) {
  const auto answer = call("GET", "/healthz", "");
  EXPECT_EQ(answer.status, 200) << answer.error;
  EXPECT_EQ(answer.body, "{\"status\":\"ok\"}\n");
  EXPECT_EQ(answer.headers.at("content-type"), "application/json");
}

TEST_F(ApiAuthTest, MissingOrWrongTokenIs401AndChangesNothing) {
  for (const std::string& token : {std::string(), std::string("not-a-token-of-the-file"), kAliceToken + "x",
                                   kAliceToken.substr(0, kAliceToken.size() - 1)}) {
    const auto submitted = call("POST", "/v1/jobs", token, example_request());
    EXPECT_EQ(submitted.status, 401) << token;
    EXPECT_EQ(submitted.headers.at("www-authenticate"), "Bearer");
    const auto body = boost::json::parse(submitted.body).as_object();
    EXPECT_EQ(body.at("error"), "unauthorized");
    EXPECT_TRUE(body.at("problems").as_array().empty());
    EXPECT_EQ(call("POST", "/v1/pause", token, "{\"reason\":\"x\"}").status, 401);
    EXPECT_EQ(call("GET", "/v1/jobs/ft-7f3c2a", token).status, 401);
    EXPECT_EQ(call("GET", "/v1/no/such/path", token).status, 401);
  }
  // A token with the wrong scheme is no token either.
  EXPECT_EQ(http(endpoint(), "POST", "/v1/jobs", example_request(), {"Authorization: Basic " + kAliceToken}).status,
            401);
  EXPECT_EQ(jobs_in_journal(), 0u);
  auto journal = open_journal();
  auto paused = journal->control("paused");
  ASSERT_TRUE(paused.ok());
  EXPECT_FALSE(paused->has_value());
}

TEST_F(ApiAuthTest, RevokedTokenIs401OnceTheFileNoLongerHoldsIt) {
  ASSERT_EQ(call("GET", "/v1/jobs/nothing-yet", kAliceToken).status, 404);
  write_tokens("bob " + kBobToken + "\n");
  const auto revoked = call("POST", "/v1/jobs", kAliceToken, example_request());
  EXPECT_EQ(revoked.status, 401);
  EXPECT_EQ(jobs_in_journal(), 0u);
  EXPECT_EQ(call("POST", "/v1/jobs", kBobToken, example_request()).status, 201);
  EXPECT_EQ(jobs_in_journal(), 1u);
}

TEST_F(ApiAuthTest, ABadNewTokensFileKeepsTheLastGoodTokens) {
  write_tokens("alice " + kAliceToken + "\ncarol short\n");
  EXPECT_EQ(call("GET", "/v1/jobs/j", kAliceToken).status, 404);
  EXPECT_EQ(call("GET", "/v1/jobs/j", kBobToken).status, 404);
  // A file others may write is refused on re-read as at start; the last good set stays.
  write_tokens("alice " + kAliceToken + "\n");
  ::chmod(tokens_path.c_str(), 0620);
  EXPECT_EQ(call("GET", "/v1/jobs/j", kBobToken).status, 404);
  ::chmod(tokens_path.c_str(), 0600);
  EXPECT_EQ(call("GET", "/v1/jobs/j", kBobToken).status, 401);
  EXPECT_EQ(call("GET", "/v1/jobs/j", kAliceToken).status, 404);
}

}  // namespace
}  // namespace tpslurm::api::testing
