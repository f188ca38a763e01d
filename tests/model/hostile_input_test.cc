// Oversized or hostile input gets a clear error, never a crash.
#include <gtest/gtest.h>

#include "model/launch_request.h"
#include "test_catalogs.h"

namespace tpslurm::model {
namespace {

std::string refusal_of(std::string_view text) {
  const auto result = parse_launch_request(text, testing::context());
  EXPECT_FALSE(result.ok());
  return result.ok() ? "" : result.error().to_text();
}

TEST(HostileInputTest, RefusesBodiesOverOneMebibyte) {
  const std::string body = "{\"job_id\":\"" + std::string(100 << 20, 'a') + "\"}";
  EXPECT_EQ(refusal_of(body), "the request is 104857613 bytes; the limit is 1 MiB\n");
}

TEST(HostileInputTest, RefusesDeepNesting) {
  const std::string body = std::string(10000, '[') + std::string(10000, ']');
  EXPECT_EQ(refusal_of(body), "the request is not acceptable JSON at byte 16: nested deeper than 16 levels\n");
}

TEST(HostileInputTest, RefusesInvalidUtf8WithItsOffset) {
  EXPECT_EQ(refusal_of("{\"job_id\":\"a\xff\"}"), "the request is not valid UTF-8 at byte 12\n");
  EXPECT_EQ(refusal_of("{\"job_id\":\"\xc0\xaf\"}"), "the request is not valid UTF-8 at byte 11\n");  // overlong '/'
  EXPECT_EQ(refusal_of("{\"job_id\":\"\xed\xa0\x80\"}"), "the request is not valid UTF-8 at byte 11\n");  // surrogate
  EXPECT_EQ(refusal_of("{\"job_id\":\"\xe2\x82\"}"), "the request is not valid UTF-8 at byte 11\n");  // truncated
}

TEST(HostileInputTest, RefusesNulInValuesNamingTheField) {
  boost::json::value request = testing::valid_request();
  request.at("spec").as_object()["command"] = boost::json::array{"python", std::string("a\0b", 3)};
  EXPECT_EQ(testing::refusal(request),
            "spec.command[1] \"a\\u0000b\": contains a NUL byte, which no program can receive; remove it\n");
}

TEST(HostileInputTest, RefusesRawControlBytesAndGarbage) {
  EXPECT_EQ(refusal_of(std::string("{\"job_id\":\"a\0b\"}", 16)),
            "the request is not acceptable JSON at byte 12: syntax error\n");
  EXPECT_EQ(refusal_of("not json"), "the request is not acceptable JSON at byte 0: syntax error\n");
  EXPECT_EQ(refusal_of(""), "the request is not acceptable JSON at byte 0: incomplete JSON\n");
  EXPECT_EQ(refusal_of("[1,2"), "the request is not acceptable JSON at byte 4: incomplete JSON\n");
}

TEST(HostileInputTest, RefusesDuplicateKeys) {
  EXPECT_EQ(refusal_of(R"({"job_id":"a","job_id":"b"})"),
            "the request is not acceptable JSON at byte 21: duplicate key \"job_id\"\n");
}

TEST(HostileInputTest, RefusesHugeNumbers) {
  EXPECT_EQ(refusal_of(R"({"n": 1e999})"), "the request is not acceptable JSON at byte 11: number out of range: 1e999\n");
  boost::json::value request = testing::valid_request();
  request.at("spec").at("pools").as_array()[0].as_object()["nodes"] =
      boost::json::parse("123456789012345678901234567890");
  EXPECT_EQ(testing::refusal(request),
            "spec.pools[0].nodes 1.2345678901234568E29: must be a whole number from 1 to 10000\n");
  request.at("spec").at("pools").as_array()[0].as_object()["nodes"] = boost::json::parse("18446744073709551615");
  EXPECT_EQ(testing::refusal(request),
            "spec.pools[0].nodes 18446744073709551615: must be a whole number from 1 to 10000\n");
}

TEST(HostileInputTest, RefusesOverlongStrings) {
  const std::string body = "{\"job_id\":\"" + std::string(70000, 'a') + "\"}";
  EXPECT_EQ(refusal_of(body), "the request is not acceptable JSON at byte 70011: a string is longer than 65536 bytes\n");
}

TEST(HostileInputTest, RefusesTooManyArguments) {
  boost::json::value request = testing::valid_request();
  boost::json::array args;
  for (int i = 0; i < 5000; ++i) args.emplace_back("x");
  request.at("spec").as_object()["command"] = args;
  EXPECT_EQ(testing::refusal(request), "spec.command: has 5000 arguments; the limit is 4096\n");
}

TEST(HostileInputTest, NonObjectDocumentsAreRefused) {
  EXPECT_EQ(refusal_of("[]"), "the request must be a JSON object\n");
  EXPECT_EQ(refusal_of("null"), "the request must be a JSON object\n");
}

TEST(HostileInputTest, ValuesReachTheModelByteForByte) {
  boost::json::value request = testing::valid_request();
  const std::string nasty = "a'b\"c$d`e;f\ng\th ü 🚀 -x \\";
  request.at("spec").as_object()["command"] = boost::json::array{"prog", nasty, "--", ""};
  request.at("spec").as_object()["env"] = boost::json::object{{"NASTY", nasty}};
  const auto result = testing::parse(request);
  ASSERT_TRUE(result.ok()) << result.error().to_text();
  EXPECT_EQ(result->command[1], nasty);
  EXPECT_EQ(result->command[3], "");
  EXPECT_EQ(result->env[0].second, nasty);
}

}  // namespace
}  // namespace tpslurm::model
