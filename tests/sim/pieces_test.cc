// The simulator's pure pieces: SLUIDs, the json-c layout, URL parsing, option parsing,
// Slurm's time strings.
#include <gtest/gtest.h>

#include "json_writer.h"
#include "options.h"
#include "slurm_time.h"
#include "sluid.h"
#include "url.h"

namespace tpslurm::sim::test {
namespace {

TEST(SlurmTime, TakesUtsAndCalendarDatesButNoBareNumber) {
  EXPECT_EQ(parse_slurm_time("uts1796040374"), 1796040374);
  EXPECT_EQ(parse_slurm_time("UtS1796040374"), 1796040374);
  EXPECT_EQ(parse_slurm_time("uts1000000"), 1000000);
  EXPECT_EQ(parse_slurm_time("2026-11-30"), 1796083200 - 86400);
  EXPECT_EQ(parse_slurm_time("2026-11-30T12:00"), 1796040000);
  EXPECT_EQ(parse_slurm_time("2026-11-30T12:00:05"), 1796040005);
  for (const char* refused : {"1796040374", "uts999999", "uts", "uts17960403741x", "uts-5", "2026-13-01",
                              "2026-11-30T24:00", "2026-11-30 12:00", "1970-01-01T00:00:00", ""}) {
    EXPECT_EQ(parse_slurm_time(refused), std::nullopt) << refused;
  }
}

TEST(Sluid, PrintsTheDocumentedExample) {
  // sluid.h@26.05: cluster 0x5A3, ms 1787000000000, seq 0 and 1.
  SluidGenerator gen(0x5a3);
  EXPECT_EQ(format_sluid(gen.next(1787000000000)), "s5MDM08R03G000");
  EXPECT_EQ(format_sluid(gen.next(1787000000000)), "s5MDM08R03G001");
}

TEST(Sluid, IsMonotonicAndSortableEvenWhenASecondIsCrowded) {
  SluidGenerator gen(0xe72);
  std::string previous;
  for (int i = 0; i < 3000; ++i) {  // three times the 10-bit sequence in one millisecond
    std::string s = format_sluid(gen.next(1796040375357));
    EXPECT_GT(s, previous);
    previous = s;
  }
  EXPECT_GT(format_sluid(gen.next(1796040375000)), previous);  // the clock going back changes nothing
}

TEST(Sluid, ParsesCrockfordVariantsAndRejectsTheRest) {
  EXPECT_EQ(parse_sluid("sEE9M8P5JF1X00"), parse_sluid("See9m8p5jf1x00"));
  EXPECT_EQ(parse_sluid("s0000000000001"), parse_sluid("s000000000000I"));
  EXPECT_EQ(parse_sluid("s000000000000O"), std::nullopt);  // O reads as 0: a SLUID of 0 is invalid
  EXPECT_FALSE(parse_sluid("sEE9M8P5JF1X0"));
  EXPECT_FALSE(parse_sluid("xEE9M8P5JF1X00"));
  EXPECT_FALSE(parse_sluid("sZE9M8P5JF1X00"));  // the first character carries only 4 bits
  EXPECT_FALSE(parse_sluid("sEE9M8P5JF1XU0"));  // U is not in the alphabet
  auto value = parse_sluid("sEE9M8P5JF1X00");
  ASSERT_TRUE(value);
  EXPECT_EQ(format_sluid(*value), "sEE9M8P5JF1X00");
  EXPECT_EQ((*value >> 10) & ((1ULL << 42) - 1), 1796040375357ULL);
}

TEST(JsonWriter, LaysOutLikeJsonC) {
  JsonWriter w;
  w.begin_object();
  w.key("a").begin_array().end_array();
  w.key("b").begin_object().int_field("n", 1).key("d").number(1.0).end_object();
  w.str_field("s", "a/b \"q\" \\ \n\x01 ü");
  w.null_field("z");
  w.end_object();
  EXPECT_EQ(w.str(),
            "{\n  \"a\": [\n  ],\n  \"b\": {\n    \"n\": 1,\n    \"d\": 1.0\n  },\n"
            "  \"s\": \"a\\/b \\\"q\\\" \\\\ \\n\\u0001 ü\",\n  \"z\": null\n}");
}

TEST(Url, DecodesSegmentsAndKeepsRepeatedParameters) {
  Target t = parse_target("/slurm/v0.0.45/job/14%2B1?job_id=1&job_id=2&x=a+b%2Cc");
  EXPECT_TRUE(t.path_valid);
  EXPECT_EQ(t.segments, (std::vector<std::string>{"slurm", "v0.0.45", "job", "14+1"}));
  EXPECT_EQ(t.params("job_id"), (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(*t.param("x"), "a b,c");
  EXPECT_FALSE(t.query_has_literal_comma);
  EXPECT_TRUE(parse_target("/a?job_id=1,2").query_has_literal_comma);
  EXPECT_FALSE(parse_target("/slurm/v0.0.45/job/14+1").path_valid);
  EXPECT_FALSE(parse_target("/slurm/v0.0.45/job/%zz").path_valid);
  EXPECT_EQ(parse_target("//slurm//x/").segments, (std::vector<std::string>{"slurm", "x"}));
}

TEST(Options, ParsesTimingsAndSaysWhatIsWrong) {
  auto t = parse_timing("pending=500ms,running=2s,completing=inf");
  ASSERT_TRUE(t);
  EXPECT_TRUE(t->automatic);
  EXPECT_EQ(t->pending_ms, 500);
  EXPECT_EQ(t->running_ms, 2000);
  EXPECT_EQ(t->completing_ms, -1);
  EXPECT_FALSE(parse_timing("manual")->automatic);
  EXPECT_EQ(parse_timing("runing=1s").error().message(), "--timing: unknown phase \"runing\"; use pending, running or completing");
  EXPECT_EQ(parse_timing("running=5").error().message(),
            "--timing running: duration \"5\": unknown unit \"\"; use ms, s, m or h");
  std::string host;
  std::uint16_t port = 1;
  ASSERT_TRUE(parse_listen("127.0.0.1:0", host, port));
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 0);
  EXPECT_EQ(parse_listen("127.0.0.1", host, port).error().message(),
            "listen address \"127.0.0.1\": expected HOST:PORT, e.g. 127.0.0.1:0");
}

}  // namespace
}  // namespace tpslurm::sim::test
