#include "model/user_map.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "model/names.h"

namespace tpslurm::model {
namespace {

std::string map_refusal(std::string_view json) {
  const auto result = UserMap::parse(json, "/etc/tp/users.json");
  return result.ok() ? "" : result.error().to_text();
}

TEST(UserMapTest, ReadsTheDocumentedExample) {
  const auto map = UserMap::parse(R"({"users": {
      "alice": {"unix_user": "alice", "accounts": ["proj-a", "proj-b"], "qos": ["normal"],
                "partitions": ["gpu", "cpu"], "max_live_jobs": 50},
      "bob.smith": {"unix_user": "bsmith", "accounts": ["proj-b"]}}})",
                                  "users.json");
  ASSERT_TRUE(map.ok()) << map.error().to_text();
  const MappedUser* alice = map->find("alice");
  ASSERT_NE(alice, nullptr);
  EXPECT_EQ(alice->unix_user, "alice");
  EXPECT_EQ(alice->accounts.front(), "proj-a");
  EXPECT_EQ(alice->max_live_jobs, 50);
  EXPECT_TRUE(alice->may_use_account("proj-b"));
  EXPECT_FALSE(alice->may_use_account("proj-c"));
  EXPECT_TRUE(alice->may_use_qos("normal"));
  EXPECT_FALSE(alice->may_use_qos("high"));
  EXPECT_TRUE(alice->may_use_partition("cpu"));
  EXPECT_FALSE(alice->may_use_partition("debug"));

  const MappedUser* bob = map->find("bob.smith");
  ASSERT_NE(bob, nullptr);
  EXPECT_EQ(bob->unix_user, "bsmith");
  EXPECT_FALSE(bob->max_live_jobs.has_value());
  EXPECT_TRUE(bob->may_use_partition("anything-the-site-names")) << "no list: the site's partitions";
  EXPECT_FALSE(bob->may_use_qos("normal")) << "no list: only the association's default";
  EXPECT_EQ(map->find("carol"), nullptr);
}

TEST(UserMapTest, ReportsEveryProblemWithTheFileName) {
  EXPECT_EQ(map_refusal(R"({"users": {
      "Alice": {"unix_user": "alice", "accounts": []},
      "bob": {"unix_user": "alice", "accounts": ["a b"], "qos": ["normal", "normal"], "max_live_jobs": 0},
      "carol": {"unix_user": "Carol;id", "accounts": ["x"], "partitions": "gpu", "uid": 5},
      "dave": {"accounts": ["x"]}}})"),
            "/etc/tp/users.json.users.Alice \"Alice\": is not a platform user name: lower-case letters, digits, '.', "
            "'_' and '-', starting with a letter or digit, at most 64\n"
            "/etc/tp/users.json.users.Alice.accounts []: must name at least one\n"
            "/etc/tp/users.json.users.bob.unix_user \"alice\": is already the Unix user of \"Alice\": each platform "
            "user needs a Unix user of its own, or their jobs and files are one\n"
            "/etc/tp/users.json.users.bob.accounts[0] \"a b\": " +
                *slurm_name_problem("a b") +
                "\n"
                "/etc/tp/users.json.users.bob.qos[1] \"normal\": is listed twice\n"
                "/etc/tp/users.json.users.bob.max_live_jobs 0: must be a whole number from 1 to 1000000\n"
                "/etc/tp/users.json.users.carol.unix_user \"Carol;id\": is not a Unix user name: lower-case letters, "
                "digits, '_' and '-', starting with a letter or '_', at most 32\n"
                "/etc/tp/users.json.users.carol.partitions \"gpu\": must be an array\n"
                "/etc/tp/users.json.users.carol.uid: unknown field; remove it or fix its spelling (known here: "
                "accounts, max_live_jobs, partitions, qos, unix_user)\n"
                "/etc/tp/users.json.users.dave.unix_user: is required\n");
  EXPECT_EQ(map_refusal("[]"), "/etc/tp/users.json: must be a JSON object with a \"users\" object\n");
}

TEST(UserMapTest, TheShippedExampleIsAValidMap) {
  std::ifstream in(std::string(TP_SOURCE_DIR) + "/etc/user-map.example.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto map = UserMap::parse(text, "etc/user-map.example.json");
  ASSERT_TRUE(map.ok()) << map.error().to_text();
  ASSERT_NE(map->find("bob.smith"), nullptr);
  EXPECT_EQ(map->find("bob.smith")->unix_user, "bsmith");
  EXPECT_EQ(map->all().size(), 2u);
}

TEST(UserMapTest, NameRules) {
  EXPECT_TRUE(is_platform_user_name("alice"));
  EXPECT_TRUE(is_platform_user_name("0team.a_b-c"));
  EXPECT_TRUE(is_platform_user_name(std::string(64, 'a')));
  EXPECT_FALSE(is_platform_user_name(std::string(65, 'a')));
  EXPECT_FALSE(is_platform_user_name(""));
  EXPECT_FALSE(is_platform_user_name("-alice"));
  EXPECT_FALSE(is_platform_user_name(".alice"));
  EXPECT_FALSE(is_platform_user_name("alice bob"));
  EXPECT_FALSE(is_platform_user_name("alice/.."));

  EXPECT_TRUE(is_unix_user_name("alice"));
  EXPECT_TRUE(is_unix_user_name("_svc"));
  EXPECT_TRUE(is_unix_user_name(std::string(32, 'a')));
  EXPECT_FALSE(is_unix_user_name(std::string(33, 'a')));
  EXPECT_FALSE(is_unix_user_name("1alice"));
  EXPECT_FALSE(is_unix_user_name("alice$"));
  EXPECT_FALSE(is_unix_user_name("al.ice"));
  EXPECT_FALSE(is_unix_user_name("-alice"));
  EXPECT_FALSE(is_unix_user_name(""));
}

}  // namespace
}  // namespace tpslurm::model
