#include "config/logging.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <sstream>
#include <thread>

namespace tpslurm::config {
namespace {

using namespace std::chrono_literals;

// Not a real token: a header, claims and a signature shaped like one.
constexpr std::string_view kJwt =
    "eyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9.eyJzdW4iOiAidHBqb2IiLCAiZXhwIjogMTgwMDAwMDAwMH0.c2lnbmF0dXJl";

class LoggingTest : public testing::Test {
 protected:
  // 2026-12-01T12:00:00.123Z
  LoggingTest() : m_clock(from_unix_seconds(1796126400) + 123ms) {}
  // The stream dies with the test: hand logging back to stderr first.
  ~LoggingTest() override { EXPECT_TRUE(configure_logging("info", model::LogFormat::text).ok()); }

  void configure(std::string_view level, model::LogFormat format) {
    const Status status = configure_logging(level, format, m_out, m_clock);
    ASSERT_TRUE(status.ok()) << status.error().message();
  }
  std::string written() {
    std::string text = m_out.str();
    m_out.str("");
    return text;
  }

  ManualClock m_clock;
  std::ostringstream m_out;
};

LogFields every_field() { return {"J", 2, 17u, "sABC", {{"key", "value"}}}; }

TEST_F(LoggingTest, TextIsOneLineWithTheKnownFieldsBeforeTheMessage) {
  configure("info", model::LogFormat::text);
  log_info(every_field(), "message");
  EXPECT_EQ(written(), "2026-12-01T12:00:00.123Z info job=J attempt=2 slurm_job_id=17 sluid=sABC: message key=value\n");
}

TEST_F(LoggingTest, TextLeavesOutWhatIsNotKnown) {
  configure("info", model::LogFormat::text);
  log_warn({}, "journal opened");
  log_error({.job = "J", .attempt = {}, .slurm_job_id = 9u, .sluid = {}, .extra = {}}, "vanished");
  log_info({.job = {}, .attempt = 1, .slurm_job_id = {}, .sluid = {}, .extra = {{"path", "/x"}}}, "probe");
  EXPECT_EQ(written(),
            "2026-12-01T12:00:00.123Z warn journal opened\n"
            "2026-12-01T12:00:00.123Z error job=J slurm_job_id=9: vanished\n"
            "2026-12-01T12:00:00.123Z info attempt=1: probe path=/x\n");
}

TEST_F(LoggingTest, JsonIsOneObjectPerLineWithNumbersAsNumbers) {
  configure("info", model::LogFormat::json);
  log_info(every_field(), "message");
  log_info({}, "bare");
  EXPECT_EQ(written(),
            "{\"time\":\"2026-12-01T12:00:00.123Z\",\"level\":\"info\",\"message\":\"message\",\"job\":\"J\","
            "\"attempt\":2,\"slurm_job_id\":17,\"sluid\":\"sABC\",\"key\":\"value\"}\n"
            "{\"time\":\"2026-12-01T12:00:00.123Z\",\"level\":\"info\",\"message\":\"bare\"}\n");
}

TEST_F(LoggingTest, TimesAreUtcWithMilliseconds) {
  configure("info", model::LogFormat::text);
  m_clock.set(from_unix_seconds(0) + 7ms);
  log_info({}, "a");
  m_clock.set(from_unix_seconds(1796126400 + 43199) + 999ms);
  log_info({}, "b");
  EXPECT_EQ(written(), "1970-01-01T00:00:00.007Z info a\n2026-12-01T23:59:59.999Z info b\n");
}

TEST_F(LoggingTest, TheLevelFiltersWhatIsWritten) {
  configure("warn", model::LogFormat::text);
  log_debug({}, "d");
  log_info({}, "i");
  log_warn({}, "w");
  log_error({}, "e");
  EXPECT_EQ(written(), "2026-12-01T12:00:00.123Z warn w\n2026-12-01T12:00:00.123Z error e\n");

  configure("trace", model::LogFormat::text);
  log(LogLevel::trace, {}, "t");
  log(LogLevel::off, {}, "never");
  EXPECT_EQ(written(), "2026-12-01T12:00:00.123Z trace t\n");

  configure("off", model::LogFormat::json);
  log_error({}, "e");
  EXPECT_EQ(written(), "");
}

TEST_F(LoggingTest, AnUnknownLevelIsRefusedAndTheOldConfigurationStays) {
  configure("error", model::LogFormat::text);
  std::ostringstream other;
  const Status status = configure_logging("loud", model::LogFormat::json, other, m_clock);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().kind(), ErrorKind::invalid_argument);
  EXPECT_EQ(status.error().message(), "log level \"loud\": expected trace, debug, info, warn, error or off");
  log_info({}, "i");
  log_error({}, "e");
  EXPECT_EQ(written(), "2026-12-01T12:00:00.123Z error e\n");
  EXPECT_EQ(other.str(), "");
}

TEST_F(LoggingTest, TextQuotesValuesThatCouldBeMisread) {
  configure("info", model::LogFormat::text);
  log_info({.job = "a b",
            .attempt = {},
            .slurm_job_id = {},
            .sluid = {},
            .extra = {{"reason", "say \"hi\""}, {"empty", ""}, {"eq", "a=b"}, {"path", "C:\\x\ny"}}},
           "line one\nline two\ttab");
  EXPECT_EQ(written(),
            "2026-12-01T12:00:00.123Z info job=\"a b\": line one\\nline two\\ttab reason=\"say \\\"hi\\\"\" "
            "empty=\"\" eq=\"a=b\" path=\"C:\\\\x\\ny\"\n");
}

TEST_F(LoggingTest, JsonEscapesEverythingAndStaysParseable) {
  configure("info", model::LogFormat::json);
  const std::string nasty = "quote \" backslash \\ newline \n control \x01 unicode \xc3\xa9";
  log_info({.job = nasty, .attempt = -1, .slurm_job_id = 4294967295u, .sluid = {}, .extra = {{"k", nasty}}}, nasty);
  const std::string line = written();
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  EXPECT_NE(line.find(R"("message":"quote \" backslash \\ newline \n control \u0001 unicode)"), std::string::npos)
      << line;
  const auto object = boost::json::parse(line).as_object();
  EXPECT_EQ(object.at("message").as_string(), nasty);
  EXPECT_EQ(object.at("job").as_string(), nasty);
  EXPECT_EQ(object.at("k").as_string(), nasty);
  EXPECT_EQ(object.at("attempt").as_int64(), -1);
  EXPECT_EQ(object.at("slurm_job_id").to_number<std::uint32_t>(), 4294967295u);
}

TEST_F(LoggingTest, JsonNeverRepeatsAKey) {
  configure("info", model::LogFormat::json);
  log_info({.job = "J",
            .attempt = {},
            .slurm_job_id = {},
            .sluid = {},
            .extra = {{"job", "other"}, {"level", "x"}, {"job", "third"}}},
           "m");
  EXPECT_EQ(written(),
            "{\"time\":\"2026-12-01T12:00:00.123Z\",\"level\":\"info\",\"message\":\"m\",\"job\":\"J\","
            "\"extra.job\":\"other\",\"extra.level\":\"x\",\"extra.extra.job\":\"third\"}\n");
}

TEST_F(LoggingTest, AnythingShapedLikeAJwtIsRedactedInBothFormats) {
  const std::string jwt(kJwt);
  const LogFields fields{jwt, {}, {}, jwt, {{"header", "Bearer " + jwt}, {"unsigned", "eyJhbGc.eyJzdWIi."}}};
  const std::string message = "token " + jwt + " refused";

  configure("info", model::LogFormat::text);
  log_info(fields, message);
  EXPECT_EQ(written(),
            "2026-12-01T12:00:00.123Z info job=[redacted] sluid=[redacted]: token [redacted] refused "
            "header=\"Bearer [redacted]\" unsigned=[redacted]\n");

  configure("info", model::LogFormat::json);
  log_info(fields, message);
  EXPECT_EQ(written(),
            "{\"time\":\"2026-12-01T12:00:00.123Z\",\"level\":\"info\",\"message\":\"token [redacted] refused\","
            "\"job\":\"[redacted]\",\"sluid\":\"[redacted]\",\"header\":\"Bearer [redacted]\","
            "\"unsigned\":\"[redacted]\"}\n");
}

TEST_F(LoggingTest, OnlyJwtShapesAreRedacted) {
  configure("info", model::LogFormat::text);
  log_info({.job = {},
            .attempt = {},
            .slurm_job_id = {},
            .sluid = {},
            .extra = {{"a", "eyJ"}, {"b", "eyJhbGc.only-two"}, {"c", "abc.def.ghi"}, {"d", "v1.2.3"}}},
           "eyJ alone");
  EXPECT_EQ(written(), "2026-12-01T12:00:00.123Z info eyJ alone a=eyJ b=eyJhbGc.only-two c=abc.def.ghi d=v1.2.3\n");
}

TEST_F(LoggingTest, LinesFromManyThreadsNeverInterleave) {
  configure("info", model::LogFormat::json);
  constexpr int kThreads = 4;
  constexpr int kLines = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < kLines; ++i)
        log_info({.job = "J" + std::to_string(t), .attempt = i, .slurm_job_id = {}, .sluid = {}, .extra = {}},
                 std::string(100, 'x'));
    });
  }
  for (auto& thread : threads) thread.join();
  std::istringstream lines(written());
  int count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    ASSERT_TRUE(boost::json::parse(line).is_object()) << line;
  }
  EXPECT_EQ(count, kThreads * kLines);
}

TEST(LoggingDefaultTest, BeforeConfigurationTextAtInfoGoesToStderr) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        log_debug({}, "hidden");
        log_info({.job = "J", .attempt = {}, .slurm_job_id = {}, .sluid = {}, .extra = {}}, "shown");
        std::exit(0);
      },
      testing::ExitedWithCode(0),
      "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z info job=J: shown\n$");
}

TEST(LogLevelTest, ParsesTheSettingsWords) {
  EXPECT_EQ(parse_log_level("trace"), LogLevel::trace);
  EXPECT_EQ(parse_log_level("warn"), LogLevel::warn);
  EXPECT_EQ(parse_log_level("off"), LogLevel::off);
  EXPECT_EQ(parse_log_level("warning"), std::nullopt);
  EXPECT_EQ(parse_log_level("INFO"), std::nullopt);
}

}  // namespace
}  // namespace tpslurm::config
