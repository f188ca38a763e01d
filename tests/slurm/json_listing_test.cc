// parse_listing(): a listing answer read one entry at a time must give exactly what the whole
// tree gives (each entry, and the rest of the answer with the list emptied), refuse what
// boost::json::parse refuses, and stop where an entry is refused.
#include "slurm/json_listing.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.h"

namespace tpslurm::slurm::json {
namespace {

namespace bj = boost::json;

std::string recorded(const std::string& name) {
  return testing::read_file(std::string(TP_SOURCE_DIR) + "/tests/slurm/recorded/" + name);
}

struct Read {
  Result<bj::object> top;
  std::vector<bj::value> entries;
};

Read read(std::string_view body) {
  std::vector<bj::value> entries;
  auto top = parse_listing(body, "jobs", [&](const bj::value& entry) {
    entries.push_back(bj::value(entry, bj::storage_ptr()));  // out of the entry's arena
    return ok_status();
  });
  return {std::move(top), std::move(entries)};
}

// The streamed read and the whole tree agree on the entries and on everything else.
void expect_same_as_tree(std::string_view body) {
  SCOPED_TRACE(std::string(body.substr(0, 80)));
  bj::value tree = bj::parse(body);
  const Read got = read(body);
  ASSERT_TRUE(got.top.ok()) << got.top.error().message();
  const bj::array& listed = tree.as_object().at("jobs").as_array();
  ASSERT_EQ(got.entries.size(), listed.size());
  for (std::size_t i = 0; i < listed.size(); ++i) EXPECT_EQ(got.entries[i], listed[i]) << "entry " << i;
  tree.as_object()["jobs"] = bj::array();
  EXPECT_EQ(bj::value(*got.top), tree);
}

TEST(JsonListingTest, EntriesAndTheRestAreWhatTheWholeTreeHolds) {
  expect_same_as_tree(R"({"meta": {"slurm": {"release": "26.05.3"}}, "jobs": [
      {"job_id": 7, "name": "tp-a-j-1", "state": ["RUNNING"], "het": {"job_id": 0},
       "nested": [[1, 2.5, -3, 18446744073709551615], {"deep": [true, false, null]}], "empty": {}, "none": []},
      {"job_id": 8, "comment": "esc\"aped \u00e9 \n line", "array": []}],
      "errors": [{"error": "x", "error_number": 1}], "warnings": [], "last_update": {"number": 5}})");
  expect_same_as_tree(R"({"jobs": []})");
  expect_same_as_tree(R"({"jobs": [1, "two", null, [3], {"four": 4}], "after": [1, [2]]})");
  // A key written with an escape is still the list's key; a list deeper down is not the list.
  expect_same_as_tree(R"({"jo\u0062s": [{"job_id": 1}], "other": {"jobs": [{"job_id": 2}]}})");
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
}

TEST(JsonListingTest, TwoListsInOneAnswerAreRefused) {
  const Read two = read(R"({"jobs": [{"job_id": 1}], "jobs": [{"job_id": 2}]})");
  ASSERT_FALSE(two.top.ok());
  EXPECT_EQ(two.top.error().kind(), ErrorKind::corrupt);
  EXPECT_EQ(two.top.error().message(), "the answer holds two \"jobs\" lists");
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
