// ListingParser and parse_listing(): a listing answer read one entry at a time, whole or in
// pieces of any size, must give exactly what the whole tree gives (each entry, and the rest of
// the answer with the list emptied), refuse what boost::json::parse refuses, and stop where an
// entry is refused.
#include "slurm/json_listing.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "slurm/json_reader.h"
#include "test_support.h"

namespace tpslurm::slurm::json {
namespace {

namespace bj = boost::json;

using testing::recorded;

struct Read {
  Result<bj::object> top;
  std::vector<bj::value> entries;
};

// Reads `body` in pieces of `piece` bytes (0: whole, through parse_listing).
Read read(std::string_view body, std::size_t piece = 0) {
  std::vector<bj::value> entries;
  const ListingEntry keep = [&](const bj::value& entry) {
    entries.push_back(bj::value(entry, bj::storage_ptr()));  // out of the entry's arena
    return ok_status();
  };
  if (piece == 0) {
    auto top = parse_listing(body, "jobs", keep);
    return {std::move(top), std::move(entries)};
  }
  ListingParser parser("jobs", keep);
  for (std::size_t at = 0; at < body.size(); at += piece) parser.write(body.substr(at, piece));
  auto top = parser.finish();
  return {std::move(top), std::move(entries)};
}

// The streamed read and the whole tree agree on the entries and on everything else.
void expect_same_as_tree(std::string_view body, std::size_t piece) {
  SCOPED_TRACE(std::string(body.substr(0, 80)) + " in pieces of " + std::to_string(piece));
  bj::value tree = bj::parse(body);
  const Read got = read(body, piece);
  ASSERT_TRUE(got.top.ok()) << got.top.error().message();
  const bj::array& listed = tree.as_object().at("jobs").as_array();
  ASSERT_EQ(got.entries.size(), listed.size());
  for (std::size_t i = 0; i < listed.size(); ++i) EXPECT_EQ(got.entries[i], listed[i]) << "entry " << i;
  tree.as_object()["jobs"] = bj::array();
  EXPECT_EQ(bj::value(*got.top), tree);
}

// Whole, a byte at a time, and in pieces that cut tokens, escapes and keys anywhere.
void expect_same_as_tree(std::string_view body) {
  for (std::size_t piece : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{64}, std::size_t{4096}}) {
    expect_same_as_tree(body, piece);
  }
}

// The answers a listing can give, read whole and in every way of cutting them in two.
const char kListing[] = R"({"meta": {"slurm": {"release": "26.05.3"}}, "jobs": [
    {"job_id": 7, "name": "tp-a-j-1", "state": ["RUNNING"], "het": {"job_id": 0},
     "nested": [[1, 2.5, -3, 18446744073709551615], {"deep": [true, false, null]}], "empty": {}, "none": []},
    {"job_id": 8, "comment": "esc\"aped \u00e9 \n line", "array": []}],
    "errors": [{"error": "x", "error_number": 1}], "warnings": [], "last_update": {"number": 5}})";

TEST(JsonListingTest, EntriesAndTheRestAreWhatTheWholeTreeHolds) {
  expect_same_as_tree(kListing);
  expect_same_as_tree(R"({"jobs": []})");
  expect_same_as_tree(R"({"jobs": [1, "two", null, [3], {"four": 4}], "after": [1, [2]]})");
  // A key written with an escape is still the list's key; a list deeper down is not the list.
  expect_same_as_tree(R"({"jo\u0062s": [{"job_id": 1}], "other": {"jobs": [{"job_id": 2}]}})");
}

TEST(JsonListingTest, ABodyCutInTwoAnywhereReadsAsTheWhole) {
  const std::string_view body = kListing;
  const bj::value tree = bj::parse(body);
  for (std::size_t cut = 0; cut <= body.size(); ++cut) {
    std::vector<bj::value> entries;
    ListingParser parser("jobs", [&](const bj::value& entry) {
      entries.push_back(bj::value(entry, bj::storage_ptr()));
      return ok_status();
    });
    EXPECT_TRUE(parser.write(body.substr(0, cut)));
    EXPECT_TRUE(parser.write(body.substr(cut)));
    auto top = parser.finish();
    ASSERT_TRUE(top.ok()) << "cut at " << cut << ": " << top.error().message();
    EXPECT_EQ(bj::array(entries.begin(), entries.end()), tree.at("jobs").as_array()) << "cut at " << cut;
    EXPECT_EQ(top->at("errors"), tree.at("errors")) << "cut at " << cut;
  }
}

// A number's value never depends on where the network cut the body, nor on what follows it:
// Boost.JSON 1.81 converts a double on other paths when it arrives in pieces or near the end
// of the buffer, and a long mantissa read so once came out one unit in the last place away
// (the fuzz corpus keeps the body: tools/fuzz/corpus/slurm_jobs/split-long-mantissa.json).
// Every double reads as its text denotes it, correctly rounded, whole (parse_object, too) or in
// two pieces cut anywhere.
TEST(JsonListingTest, ANumberHasTheValueItsTextDenotesWhereverTheBodyIsCut) {
  const std::vector<std::pair<std::string, double>> numbers = {
      {"22.22222222222222222222222", 22.222222222222221},
      {"0.1000000000000000055511151231257827021181583404541015625", 0.1},
      {"123456789012345678901234567890e-30", 0.12345678901234568},
      {"-1.7976931348623157e308", -1.7976931348623157e308},
      {"3.14159265358979323846264338327950288", 3.141592653589793}};
  for (const auto& [text, value] : numbers) {
    for (const std::string& body : {R"({"jobs": [{"job_id": 7, "x": )" + text + "}]}    ",
                                    R"({"jobs": [], "x": )" + text + "}", R"({"jobs": [[)" + text + R"(, 1]]})"}) {
      SCOPED_TRACE(body);
      const auto whole = parse_object(body);
      ASSERT_TRUE(whole.ok());
      for (std::size_t cut = 0; cut <= body.size(); ++cut) {
        std::vector<bj::value> entries;
        ListingParser parser("jobs", [&](const bj::value& entry) {
          entries.push_back(bj::value(entry, bj::storage_ptr()));
          return ok_status();
        });
        parser.write(body.substr(0, cut));
        parser.write(body.substr(cut));
        auto top = parser.finish();
        ASSERT_TRUE(top.ok()) << "cut at " << cut << ": " << top.error().message();
        const bj::value& read = entries.empty() ? top->at("x") : entries[0].is_object() ? entries[0].at("x")
                                                                                        : entries[0].at(0);
        ASSERT_TRUE(read.is_double()) << "cut at " << cut;
        EXPECT_EQ(read.get_double(), value) << "cut at " << cut;
      }
      if (whole->at("jobs").as_array().empty()) {
        EXPECT_EQ(whole->at("x").get_double(), value);
      } else {
        const bj::value& entry = whole->at("jobs").at(0);
        EXPECT_EQ((entry.is_object() ? entry.at("x") : entry.at(0)).get_double(), value);
      }
    }
  }
}

TEST(JsonListingTest, RecordedListingsReadTheSame) {
  for (const char* name :
       {"dbv0.0.38_jobs_single.json", "dbv0.0.38_jobs_hetjob.json", "dbv0.0.38_jobs_nothing_found.json"}) {
    expect_same_as_tree(recorded(name));
  }
}

TEST(JsonListingTest, LongStringsAndKeysArriveWhole) {
  const std::string long_text(200'000, 'x');
  const std::string body = R"({"jobs": [{")" + long_text + R"(": ")" + long_text + R"(\u0041"}]})";
  expect_same_as_tree(body);
}

TEST(JsonListingTest, RefusesWhatIsNoJsonObject) {
  EXPECT_EQ(read("{\"jobs\": [").top.error().message().rfind("the body is not JSON: ", 0), 0u);
  EXPECT_EQ(read("").top.error().message().rfind("the body is not JSON: ", 0), 0u);
  const Read extra = read(R"({"jobs": []} {"jobs": []})");
  ASSERT_FALSE(extra.top.ok());
  EXPECT_EQ(extra.top.error().kind(), ErrorKind::corrupt);
  EXPECT_EQ(extra.top.error().message().rfind("the body is not JSON: ", 0), 0u);
  EXPECT_EQ(read(R"([{"jobs": []}])").top.error().message(), "the body is not a JSON object");
  EXPECT_EQ(read("17").top.error().message(), "the body is not a JSON object");
  EXPECT_TRUE(read("{\"jobs\": []}  \n").top.ok()) << "trailing white space is allowed";
  for (std::size_t piece : {1, 2, 5}) {
    SCOPED_TRACE(piece);
    EXPECT_TRUE(read("{\"jobs\": []}  \n", piece).top.ok());
    EXPECT_EQ(read(R"({"jobs": []} {"jobs": []})", piece).top.error().message().rfind("the body is not JSON: ", 0), 0u);
    EXPECT_EQ(read(R"({"jobs": [)", piece).top.error().message().rfind("the body is not JSON: ", 0), 0u);
    EXPECT_EQ(read("17", piece).top.error().message(), "the body is not a JSON object");
  }
}

TEST(JsonListingTest, AfterAFailureTheRestIsNotRead) {
  int seen = 0;
  ListingParser parser("jobs", [&](const bj::value&) {
    ++seen;
    return ok_status();
  });
  EXPECT_TRUE(parser.write(R"({"jobs": [{"job_id": 1}, )"));
  EXPECT_FALSE(parser.write(R"(}{)"));
  EXPECT_FALSE(parser.write(R"({"job_id": 2}]})"));
  auto top = parser.finish();
  ASSERT_FALSE(top.ok());
  EXPECT_EQ(top.error().message().rfind("the body is not JSON: ", 0), 0u) << top.error().message();
  EXPECT_EQ(seen, 1);
}

TEST(JsonListingTest, TwoListsInOneAnswerAreRefused) {
  for (std::size_t piece : {0, 1, 9}) {
    const Read two = read(R"({"jobs": [{"job_id": 1}], "jobs": [{"job_id": 2}]})", piece);
    ASSERT_FALSE(two.top.ok());
    EXPECT_EQ(two.top.error().kind(), ErrorKind::corrupt);
    EXPECT_EQ(two.top.error().message(), "the answer holds two \"jobs\" lists");
  }
}

TEST(JsonListingTest, AnEntryRefusedStopsTheReadWithItsError) {
  int seen = 0;
  auto top = parse_listing(R"({"jobs": [{"job_id": 1}, 2, {"job_id": 3}]})", "jobs", [&](const bj::value& entry) {
    ++seen;
    return entry.is_object() ? ok_status() : Status(corrupt("a \"jobs\" entry is not an object"));
  });
  ASSERT_FALSE(top.ok());
  EXPECT_EQ(top.error().message(), "a \"jobs\" entry is not an object");
  EXPECT_EQ(seen, 2) << "nothing after the refused entry is read";
}

}  // namespace
}  // namespace tpslurm::slurm::json
