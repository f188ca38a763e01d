// Bearer tokens: what an unauthenticated request gets (401 and no effect), revocation by
// editing or removing the tokens file, a bad new file revoking only its bad lines, and each
// route's scope (403 naming it, and no effect).
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <map>

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

TEST_F(ApiAuthTest, ARemovedTokensFileRevokesEveryTokenAndTheAnswerSaysWhy) {
  ASSERT_EQ(call("GET", "/v1/jobs/j", kAliceToken).status, 404);
  ASSERT_EQ(::unlink(tokens_path.c_str()), 0);
  for (const std::string& token : {kAliceToken, kBobToken}) {
    const auto refused = call("GET", "/readyz", token);
    EXPECT_EQ(refused.status, 401);
    EXPECT_EQ(boost::json::parse(refused.body).at("message"),
              "no bearer token is valid now: the API's tokens file is gone");
  }
  EXPECT_EQ(call("POST", "/v1/jobs", kAliceToken, example_request()).status, 401);
  EXPECT_EQ(jobs_in_journal(), 0u);
  EXPECT_EQ(call("GET", "/healthz", "").status, 200);
  write_tokens("alice " + kAliceToken + " read\n");
  EXPECT_EQ(call("GET", "/v1/jobs/j", kAliceToken).status, 404);
  EXPECT_EQ(call("GET", "/v1/jobs/j", kBobToken).status, 401);
}

TEST_F(ApiAuthTest, ABadNewTokensFileRevokesItsBadLinesAndKeepsTheGoodOnes) {
  write_tokens("alice " + kAliceToken + " read\ncarol short read\nbob " + kBobToken + " read,everything\n");
  EXPECT_EQ(call("GET", "/v1/jobs/j", kAliceToken).status, 404);
  EXPECT_EQ(call("GET", "/v1/jobs/j", kBobToken).status, 401) << "its line is broken";
  // A file others may write is refused as a secret; it can only take tokens away.
  write_tokens("alice " + kAliceToken + " read,submit\nbob " + kBobToken + " read\n");
  ::chmod(tokens_path.c_str(), 0620);
  EXPECT_EQ(call("GET", "/v1/jobs/j", kBobToken).status, 401);
  EXPECT_EQ(call("POST", "/v1/jobs", kAliceToken, example_request()).status, 403) << "no wider than before";
  ::chmod(tokens_path.c_str(), 0600);
  EXPECT_EQ(call("GET", "/v1/jobs/j", kBobToken).status, 404);
  EXPECT_EQ(call("POST", "/v1/jobs", kAliceToken, example_request()).status, 201);
}

// Every route and the one scope it needs: a token with every other scope gets 403 naming it
// (and nothing is written), a token with that scope alone is let through.
TEST_F(ApiAuthTest, EachRouteNeedsItsScope) {
  const std::string reader = "tpcanary-reader-0123456789abcdef";
  const std::string submitter = "tpcanary-submitter-0123456789abcdef";
  const std::string op = "tpcanary-operator-0123456789abcdef";
  const std::string all_but_read = "tpcanary-nearly-0123456789abcdef";
  const std::string all_but_submit = "tpcanary-nearly-submit-0123456789abcdef";
  const std::string all_but_operate = "tpcanary-nearly-operate-0123456789abcdef";
  write_tokens("reader " + reader + " read\nsubmitter " + submitter + " submit\noperator " + op + " operate\nno-read " +
               all_but_read + " submit,operate\nno-submit " + all_but_submit + " read,operate\nno-operate " +
               all_but_operate + " read,submit\n");
  struct RouteCase {
    std::string method, target, body, scope;
  };
  const std::vector<RouteCase> routes = {
      {"GET", "/readyz", "", "read"},
      {"GET", "/metrics", "", "read"},
      {"GET", "/v1/jobs", "", "read"},
      {"GET", "/v1/jobs/ft-7f3c2a", "", "read"},
      {"GET", "/v1/jobs/ft-7f3c2a/audit", "", "read"},
      {"GET", "/v1/jobs/ft-7f3c2a/logs", "", "read"},
      {"GET", "/v1/events", "", "read"},
      {"POST", "/v1/jobs", example_request(), "submit"},
      {"POST", "/v1/jobs/ft-7f3c2a/cancel", "{}", "submit"},
      {"POST", "/v1/pause", "{\"reason\": \"maintenance\"}", "operate"},
      {"POST", "/v1/resume", "{}", "operate"},
      {"POST", "/v1/attempts/ft-7f3c2a%2F1/resolve", "{\"absent\": true, \"reason\": \"gone\"}", "operate"},
  };
  const std::map<std::string, std::string> lacking = {
      {"read", all_but_read}, {"submit", all_but_submit}, {"operate", all_but_operate}};
  const std::map<std::string, std::string> only = {{"read", reader}, {"submit", submitter}, {"operate", op}};
  const std::map<std::string, std::string> names = {{"read", "no-read has submit,operate"},
                                                    {"submit", "no-submit has read,operate"},
                                                    {"operate", "no-operate has read,submit"}};
  for (const RouteCase& route : routes) {
    const auto refused = call(route.method, route.target, lacking.at(route.scope), route.body);
    EXPECT_EQ(refused.status, 403) << route.method << " " << route.target;
    const auto body = boost::json::parse(refused.body).as_object();
    EXPECT_EQ(body.at("error"), "forbidden") << route.target;
    EXPECT_EQ(body.at("message").as_string(), "this route needs the scope `" + route.scope + "`; the token of " +
                                                  names.at(route.scope) +
                                                  " (TUNEPLANE_API_TOKENS_FILE names each token's scopes)")
        << route.target;
    EXPECT_TRUE(body.at("problems").as_array().empty());
    const auto let = call(route.method, route.target, only.at(route.scope), route.body);
    EXPECT_NE(let.status, 403) << route.method << " " << route.target << ": " << let.body;
    EXPECT_NE(let.status, 401) << route.method << " " << route.target;
  }
  // Nothing the refused requests asked for happened: the job came from the submitter.
  auto journal = open_journal();
  auto job = journal->job("ft-7f3c2a");
  ASSERT_TRUE(job.ok() && job->has_value());
  auto timeline = journal->timeline("ft-7f3c2a");
  ASSERT_TRUE(timeline.ok());
  EXPECT_NE(timeline->front().detail.find("\"submitter\""), std::string::npos) << timeline->front().detail;
  // The method comes first: a path asked with a method it does not take is 405, any scope.
  EXPECT_EQ(call("DELETE", "/v1/jobs/ft-7f3c2a", submitter).status, 405);
  EXPECT_EQ(call("GET", "/v1/pause", reader).status, 405);
  EXPECT_EQ(call("GET", "/v1/no/such/path", submitter).status, 404);
  EXPECT_EQ(call("GET", "/healthz", "").status, 200);
}

}  // namespace
}  // namespace tpslurm::api::testing
