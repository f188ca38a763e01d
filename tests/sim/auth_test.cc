// Authentication per release: which headers slurmrestd demands (401 otherwise), and how
// a token that slurmctld refuses comes back (22.05: a misleading 500; 25.x/26.05: 511
// with error 1007, but ping answers 200 with responding=false).
#include <gtest/gtest.h>

#include "json_shape.h"
#include "sim_harness.h"

namespace tpslurm::sim::test {
namespace {

namespace json = boost::json;

HttpResult get(const SimInstance& sim, const std::string& path, std::vector<std::pair<std::string, std::string>> headers) {
  HttpClient client;
  RequestOptions req;
  req.headers = std::move(headers);
  return client.request("GET", sim.url(path), req);
}

std::int64_t valid_exp(const SimOptions& o) { return o.manual_clock_start_ms / 1000 + 600; }

TEST(Auth, On2205BothXHeadersAreRequiredAndBearerIsRefused) {
  SimOptions options = test_options(Release::r22_05_8);
  SimInstance sim(options);
  const std::string token = mint_token(kTestKey, "root", valid_exp(options));
  EXPECT_EQ(get(sim, "/slurm/v0.0.38/ping", {{"X-SLURM-USER-NAME", "root"}, {"X-SLURM-USER-TOKEN", token}}).status, 200);
  for (auto headers : std::vector<std::vector<std::pair<std::string, std::string>>>{
           {{"X-SLURM-USER-TOKEN", token}},
           {{"X-SLURM-USER-NAME", "root"}},
           {{"Authorization", "Bearer " + token}},
           {}}) {
    HttpResult r = get(sim, "/slurm/v0.0.38/ping", headers);
    EXPECT_EQ(r.status, 401);
    EXPECT_EQ(r.headers["content-type"], "text/plain");
    EXPECT_EQ(r.body, "Authentication failure");
  }
}

TEST(Auth, On2605BearerWorksAndTheUserNameIsOptional) {
  SimOptions options = test_options();
  SimInstance sim(options);
  const std::string token = mint_token(kTestKey, "alice", valid_exp(options));
  HttpResult bearer = get(sim, "/slurm/v0.0.45/jobs", {{"Authorization", "Bearer " + token}});
  EXPECT_EQ(bearer.status, 200);
  EXPECT_EQ(bearer.json().at("meta").at("client").at("user"), "alice");
  EXPECT_EQ(get(sim, "/slurm/v0.0.45/jobs", {{"X-SLURM-USER-TOKEN", token}}).status, 200);
  // Both kinds of token header at once are mutually exclusive.
  EXPECT_EQ(get(sim, "/slurm/v0.0.45/jobs", {{"X-SLURM-USER-TOKEN", token}, {"Authorization", "Bearer " + token}}).status, 401);
  EXPECT_EQ(get(sim, "/slurm/v0.0.45/jobs", {{"X-SLURM-USER-NAME", "alice"}}).status, 401);
}

TEST(Auth, RefusedTokensAre511With1007ButPingSays200NotResponding) {
  SimOptions options = test_options();
  SimInstance sim(options);
  const std::int64_t now = options.manual_clock_start_ms / 1000;
  for (const std::string& token : {mint_token(kTestKey, "root", now - 1), mint_token("wrong key", "root", now + 600),
                                   mint_token_without_exp(kTestKey, "root"), std::string("garbage.not.a.jwt")}) {
    std::vector<std::pair<std::string, std::string>> h{{"X-SLURM-USER-NAME", "root"}, {"X-SLURM-USER-TOKEN", token}};
    HttpResult jobs = get(sim, "/slurm/v0.0.45/jobs", h);
    EXPECT_EQ(jobs.status, 511);
    EXPECT_EQ(error_numbers(jobs.json()), (std::vector<std::int64_t>{1007}));
    HttpResult ping = get(sim, "/slurm/v0.0.45/ping", h);
    EXPECT_EQ(ping.status, 200);
    EXPECT_EQ(ping.json().at("pings").at(0).at("responding"), false);
    EXPECT_EQ(ping.json().at("pings").at(0).at("status"), "Protocol authentication error");
  }
}

TEST(Auth, ATokenExpiresOnTheSimulatedClock) {
  SimOptions options = test_options();
  SimInstance sim(options);
  const std::int64_t now = options.manual_clock_start_ms / 1000;
  std::vector<std::pair<std::string, std::string>> h{{"X-SLURM-USER-NAME", "root"},
                                                     {"X-SLURM-USER-TOKEN", mint_token(kTestKey, "root", now + 60)}};
  EXPECT_EQ(get(sim, "/slurm/v0.0.45/jobs", h).status, 200);
  control(sim, "POST", "/sim/clock/advance", R"({"seconds": 61})");
  EXPECT_EQ(get(sim, "/slurm/v0.0.45/jobs", h).status, 511);
}

TEST(Auth, On2511ARefusedTokenIsAlso511) {
  SimOptions options = test_options(Release::r25_11_7);
  SimInstance sim(options);
  HttpResult r = get(sim, "/slurm/v0.0.44/job/1", {{"X-SLURM-USER-TOKEN", "x.y.z"}});
  EXPECT_EQ(r.status, 511);
  EXPECT_EQ(r.json().at("errors").at(0).at("description"), "Unable to query JobId=1");
}

TEST(Auth, OnlyRootOrSlurmUserMayActForAnotherUser) {
  SimOptions options = test_options();
  SimInstance sim(options);
  auto as = [&](const std::string& header, const std::string& token_user) {
    return get(sim, "/slurm/v0.0.45/jobs",
               {{"X-SLURM-USER-NAME", header}, {"X-SLURM-USER-TOKEN", mint_token(kTestKey, token_user, valid_exp(options))}});
  };
  HttpResult by_root = as("alice", "root");
  EXPECT_EQ(by_root.status, 200);
  EXPECT_EQ(by_root.json().at("meta").at("client").at("user"), "alice");
  EXPECT_EQ(as("alice", "slurm").status, 200);
  EXPECT_EQ(as("root", "alice").status, 511);  // attempt to authenticate as alternate user
}

TEST(Auth, NoAuthModeAcceptsAnyRequestAsRoot) {
  SimOptions options = test_options();
  options.no_auth = true;
  SimInstance sim(options);
  HttpResult r = get(sim, "/slurm/v0.0.45/jobs", {});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.json().at("meta").at("client").at("user"), "root");
}

}  // namespace
}  // namespace tpslurm::sim::test
