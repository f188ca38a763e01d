#include "storage/unix_user.h"

#include <gtest/gtest.h>

#include <string>

namespace tpslurm::storage {
namespace {

// Accounts every Debian system has: root (0), daemon (1) and nobody (65534).
model::MappedUser mapped_to(const std::string& unix_user) {
  model::MappedUser user;
  user.platform_user = "alice";
  user.unix_user = unix_user;
  user.accounts = {"proj-a"};
  return user;
}

TEST(UnixUserTest, FindsAUserThroughNss) {
  const auto root = find_unix_user("root");
  ASSERT_TRUE(root.has_value());
  EXPECT_EQ(root->uid, 0u);
  EXPECT_FALSE(find_unix_user("tp-no-such-user").has_value());
}

TEST(UnixUserTest, RefusesAMissingUserRootNobodyASystemAccountAndTheDaemonsOwn) {
  EXPECT_EQ(unix_user_problem(mapped_to("tp-no-such-user"), 1000, 4242),
            "\"alice\"'s Unix user \"tp-no-such-user\" does not exist on this host; create it (the compute nodes "
            "must know it too) or fix the user map");
  EXPECT_EQ(unix_user_problem(mapped_to("root"), 0, 4242),
            "\"alice\"'s Unix user \"root\" is root: no job runs as root; map the user to its own account");
  EXPECT_EQ(unix_user_problem(mapped_to("nobody"), 1000, 4242),
            "\"alice\"'s Unix user \"nobody\" is the overflow user (uid 65534, `nobody`), whom every unmapped and "
            "root-squashed file belongs to; map the user to its own account");
  EXPECT_EQ(unix_user_problem(mapped_to("daemon"), 1000, 4242),
            "\"alice\"'s Unix user \"daemon\" has uid 1, below TUNEPLANE_FIRST_USER_ID (1000): system accounts "
            "(SlurmUser, daemons) run no jobs; map the user to its own account");
  EXPECT_EQ(unix_user_problem(mapped_to("daemon"), 1, 1),
            "\"alice\"'s Unix user \"daemon\" is the account this daemon runs as: a job of it could change the "
            "journal and read every secret; map the user to its own account");
  EXPECT_EQ(unix_user_problem(mapped_to("daemon"), 1, 4242), std::nullopt) << "a user at the first uid may";
}

// Judged once per load: only the users unix_user_problem() refuses, each with its reason.
TEST(UnixUserTest, RefusedUsersHoldsEachRefusalWithItsReason) {
  auto map = model::UserMap::parse(R"({"users": {"alice": {"unix_user": "daemon", "accounts": ["a"]},
                                                 "bob": {"unix_user": "root", "accounts": ["a"]}}})",
                                   "map");
  ASSERT_TRUE(map.ok());
  const auto refused = refused_users(*map, 1, 4242);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused.at("bob"), unix_user_problem(*map->find("bob"), 1, 4242));
  EXPECT_EQ(refused_users(*map, 1000, 4242).size(), 2u) << "daemon's uid 1 is below 1000";
}

TEST(UnixUserTest, TheUserMapCheckNamesEveryUserOrEveryRefusal) {
  auto good = model::UserMap::parse(R"({"users": {"alice": {"unix_user": "daemon", "accounts": ["a"]},
                                                  "bob": {"unix_user": "bin", "accounts": ["a"]}}})",
                                    "map");
  ASSERT_TRUE(good.ok());
  const JobAccessCheck ok = check_user_map(*good, refused_users(*good, 1, 4242));
  EXPECT_TRUE(ok.ok);
  EXPECT_EQ(ok.detail, "2 user(s): alice as daemon (uid 1), bob as bin (uid 2)");
  EXPECT_EQ(ok.fix, "");

  const JobAccessCheck below = check_user_map(*good, refused_users(*good, 1000, 4242));
  EXPECT_FALSE(below.ok);
  EXPECT_NE(below.detail.find("\"alice\"'s Unix user \"daemon\" has uid 1"), std::string::npos) << below.detail;
  EXPECT_NE(below.detail.find("; \"bob\"'s Unix user \"bin\" has uid 2"), std::string::npos) << below.detail;

  auto empty = model::UserMap::parse(R"({"users": {}})", "map");
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(check_user_map(*empty, {}).ok);
}

}  // namespace
}  // namespace tpslurm::storage
