// docs/api.md held to the code: its table of errors lists exactly the (status, code) pairs the
// routes answer. The codes are read from src/api's sources, where each answer is written as
// error_reply(STATUS, "code", ...) (readiness writes its 503 body itself).
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "support/temp_dir.h"

namespace tpslurm::api {
namespace {

using DocumentedCodes = std::set<std::pair<int, std::string>>;

std::string docs_test_source_dir() { return TP_SOURCE_DIR; }

DocumentedCodes codes_in_sources() {
  static const std::regex kReply(R"re(error_reply\(\s*(\d{3}),\s*"([a-z_]+)")re");
  static const std::regex kOwnBody(R"re(json_reply\((\d{3}),[^;]*?\{"error", "([a-z_]+)"\})re");
  DocumentedCodes codes;
  for (const auto& entry : std::filesystem::directory_iterator(docs_test_source_dir() + "/src/api")) {
    if (entry.path().extension() != ".cc") continue;
    const std::string text = tpslurm::testing::read_test_file(entry.path().string());
    for (const std::regex* pattern : {&kReply, &kOwnBody}) {
      for (std::sregex_iterator it(text.begin(), text.end(), *pattern), end; it != end; ++it) {
        codes.emplace(std::stoi((*it)[1]), (*it)[2]);
      }
    }
  }
  return codes;
}

// The rows `| STATUS | `code` | ... |` of the table after "**Errors**".
DocumentedCodes codes_in_docs() {
  const std::string doc = tpslurm::testing::read_test_file(docs_test_source_dir() + "/docs/api.md");
  const std::size_t from = doc.find("**Errors**");
  EXPECT_NE(from, std::string::npos) << "docs/api.md has no **Errors** paragraph";
  static const std::regex kRow(R"re(^\| (\d{3}) \| `([a-z_]+)` \|)re");
  DocumentedCodes codes;
  std::istringstream lines(doc.substr(from == std::string::npos ? 0 : from));
  bool in_table = false;
  for (std::string line; std::getline(lines, line);) {
    std::smatch row;
    if (std::regex_search(line, row, kRow)) {
      in_table = true;
      codes.emplace(std::stoi(row[1]), row[2]);
    } else if (in_table && (line.empty() || line.front() != '|')) {
      break;
    }
  }
  return codes;
}

TEST(ApiDocsTest, TheErrorTableListsEveryCodeTheRoutesAnswerAndNoOther) {
  const DocumentedCodes code = codes_in_sources();
  const DocumentedCodes docs = codes_in_docs();
  ASSERT_GE(code.size(), 20u) << "the sources' answers were not found";
  for (const auto& [status, name] : code) {
    EXPECT_TRUE(docs.contains({status, name})) << status << " " << name << " is answered but not in docs/api.md";
  }
  for (const auto& [status, name] : docs) {
    EXPECT_TRUE(code.contains({status, name})) << status << " " << name << " is in docs/api.md but never answered";
  }
}

}  // namespace
}  // namespace tpslurm::api
