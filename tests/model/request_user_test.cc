// A request's `user`: recorded in one-user mode; in per-user mode required, in the user map, and
// held to the accounts, QoS and partitions the map lets that user use.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <string>

#include "model/launch_request.h"
#include "model/user_map.h"
#include "test_catalogs.h"

namespace tpslurm::model {
namespace {

const UserMap& users() {
  static const UserMap map = [] {
    auto parsed = UserMap::parse(R"({"users": {
        "alice": {"unix_user": "alice", "accounts": ["ml-team", "proj-b"], "qos": ["normal"],
                  "partitions": ["gpu", "cpu"]},
        "bob": {"unix_user": "bob", "accounts": ["proj-b"], "partitions": ["debug"]}}})",
                                     "users.json");
    if (!parsed.ok()) std::abort();
    return *parsed;
  }();
  return map;
}

ValidationContext per_user() {
  ValidationContext context = testing::context();
  context.users = &users();
  context.default_partition = "gpu";
  context.default_cpu_partition = "cpu";
  return context;
}

std::string per_user_refusal(const boost::json::value& request) {
  const auto result = parse_launch_request(boost::json::serialize(request), per_user());
  return result.ok() ? "" : result.error().to_text();
}

boost::json::value as_user(boost::json::value request, std::string_view user) {
  request.as_object()["user"] = user;
  return request;
}

TEST(RequestUserTest, OneUserModeRecordsAUserAndNeedsNone) {
  EXPECT_EQ(testing::refusal(testing::valid_request()), "");
  const auto parsed = testing::parse(as_user(testing::valid_request(), "anyone"));
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_text();
  EXPECT_EQ(parsed->user, "anyone");
  EXPECT_NE(parsed->canonical_json.find("\"user\":\"anyone\""), std::string::npos)
      << "the user is part of what the idempotency hash covers";
  EXPECT_EQ(testing::refusal(as_user(testing::valid_request(), "Bad User")),
            "user \"Bad User\": must be a platform user name: lower-case letters, digits, '.', '_' and '-', "
            "starting with a letter or digit, at most 64\n");
}

TEST(RequestUserTest, PerUserModeAcceptsAMappedUserWithinWhatItMayUse) {
  const auto parsed = parse_launch_request(boost::json::serialize(as_user(testing::valid_request(), "alice")),
                                           per_user());
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_text();
  EXPECT_EQ(parsed->user, "alice");
  EXPECT_EQ(per_user_refusal(as_user(testing::cpu_only_request(), "alice")), "");
}

TEST(RequestUserTest, PerUserModeNeedsAUserOfTheMap) {
  EXPECT_EQ(per_user_refusal(testing::valid_request()), "user: is required\n");
  EXPECT_EQ(per_user_refusal(as_user(testing::valid_request(), "mallory")),
            "user \"mallory\": is not in the user map (TUNEPLANE_USER_MAP_FILE): only its users' jobs run here; ask "
            "the operator to map this user to a Unix user\n");
}

// A mapped user whose Unix user was refused when the map was loaded (storage::refused_users) is
// refused at `user` with that reason; the other users are not.
TEST(RequestUserTest, AUserRefusedWhenTheMapWasLoadedIsRefusedAtUser) {
  const std::map<std::string, std::string> refused{{"alice", "alice's Unix user is root; map it to its own"}};
  ValidationContext context = per_user();
  context.refused_users = &refused;
  const auto judged = [&](const char* user) {
    const auto result = parse_launch_request(boost::json::serialize(as_user(testing::cpu_only_request(), user)),
                                             context);
    return result.ok() ? "" : result.error().to_text();
  };
  EXPECT_EQ(judged("alice"), "user \"alice\": alice's Unix user is root; map it to its own\n");
  boost::json::value bobs = as_user(testing::cpu_only_request(), "bob");
  bobs.at("spec").as_object()["partition"] = "debug";
  bobs.at("spec").as_object().erase("slurm");
  const auto bob = parse_launch_request(boost::json::serialize(bobs), context);
  EXPECT_TRUE(bob.ok()) << bob.error().to_text();
}

TEST(RequestUserTest, AnAccountQosOrPartitionTheUserMayNotUseIsRefusedWithWhatItMay) {
  // The valid request asks for account ml-team, QoS normal and partition gpu: bob may use none.
  EXPECT_EQ(per_user_refusal(as_user(testing::valid_request(), "bob")),
            "spec.slurm.account \"ml-team\": is not an account \"bob\" may use (allowed: proj-b); leave it out for "
            "proj-b\n"
            "spec.slurm.qos \"normal\": is not a QoS \"bob\" may use (allowed: (none)); leave it out for the "
            "account's default\n"
            "spec.partition \"gpu\": is not a partition \"bob\" may use (allowed: debug)\n");
}

TEST(RequestUserTest, TheSitesPartitionIsJudgedWhenTheRequestNamesNone) {
  boost::json::value request = as_user(testing::cpu_only_request(), "bob");
  auto& spec = request.at("spec").as_object();
  spec.erase("partition");
  spec.erase("slurm");
  EXPECT_EQ(per_user_refusal(request),
            "spec.partition: is not given, and the site's partition \"cpu\" is not one \"bob\" may use; name one "
            "of debug\n");
  spec["partition"] = "debug";
  EXPECT_EQ(per_user_refusal(request), "");
}

}  // namespace
}  // namespace tpslurm::model
