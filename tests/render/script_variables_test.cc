// The env file is loaded only inside the container, by the task's wrappers (tp_task,
// tp_ray_node, tp_ray_driver), where it would replace any variable the platform exported to the
// steps (MASTER_ADDR, RAY_ADDRESS, ...) or the wrapper set. So every variable a template
// assigns, in the batch script or in a wrapper, must be a name no request can set
// (model::request_env_name_problem). This reads every template and holds each assignment to
// that rule: a new variable that is neither `tp_*`, lower-case, nor one the platform reserves
// fails here, before a request could replace it.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <set>
#include <sstream>
#include <string_view>

#include "model/names.h"
#include "support/temp_dir.h"

namespace tpslurm::render {
namespace {

using tpslurm::testing::read_test_file;

struct Assignments {
  std::set<std::string> names;   // assigned by the script's shell
  std::set<std::string> locals;  // declared `local` inside a function
};

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// The name at the start of `text` (after blanks), or "" (and `text` is left after it).
std::string take_name(std::string_view& text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  std::size_t n = 0;
  while (n < text.size() && is_name_char(text[n])) ++n;
  if (n == 0 || std::isdigit(static_cast<unsigned char>(text.front())) != 0) return {};
  std::string name(text.substr(0, n));
  text.remove_prefix(n);
  return name;
}

bool take_word(std::string_view& text, std::string_view word) {
  std::string_view rest = text;
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  if (rest.substr(0, word.size()) != word) return false;
  text = rest.substr(word.size());
  return true;
}

// Assignments at the start of a statement (`NAME=`, `export NAME=`, `NAME+=`, `NAME[`), loop
// variables, and `local` declarations; inside the wrappers' single-quoted text too.
Assignments read_assignments(const std::string& text) {
  Assignments out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::string_view rest = line;
    if (take_word(rest, "local ")) {
      std::istringstream words{std::string(rest)};
      std::string word;
      while (words >> word) out.locals.insert(word.substr(0, word.find('=')));
      continue;
    }
    if (take_word(rest, "for ")) {
      take_word(rest, "((");
      if (auto name = take_name(rest); !name.empty()) out.names.insert(name);
      continue;
    }
    if (!take_word(rest, "export ")) take_word(rest, "readonly ");
    const std::string name = take_name(rest);
    if (name.empty() || !(rest.starts_with("=") || rest.starts_with("+=") || rest.starts_with("["))) continue;
    out.names.insert(name);
    // `a=$1 b=$2`: the wrappers assign their arguments so, several to a line.
    while (rest.starts_with("=")) {
      const auto blank = rest.find(' ');
      if (blank == std::string_view::npos || rest.substr(0, blank).find_first_of("\"'(") != std::string_view::npos) {
        break;
      }
      rest.remove_prefix(blank);
      const std::string next = take_name(rest);
      if (next.empty() || !rest.starts_with("=")) break;
      out.names.insert(next);
    }
  }
  return out;
}

TEST(ScriptVariablesTest, EveryVariableTheScriptAssignsIsOneNoRequestMaySet) {
  std::set<std::string> checked;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(TP_SOURCE_DIR) + "/templates")) {
    if (entry.path().filename() == "env.mustache") continue;  // the request's own variables
    const Assignments found = read_assignments(read_test_file(entry.path()));
    for (const auto& name : found.names) {
      if (found.locals.contains(name)) continue;
      EXPECT_TRUE(model::request_env_name_problem(name).has_value())
          << entry.path().filename() << " assigns " << name << ", which a request's spec.env could set; name it "
          << model::kScriptVariablePrefix << "...";
      checked.insert(name);
    }
  }
  // The reader must see the script's variables at all, or this test proves nothing.
  for (const char* name : {"tp_image", "tp_mounts", "tp_exit_evidence", "tp_pids", "MASTER_PORT", "RAY_ADDRESS",
                           "NODE_RANK", "RAY_TMPDIR", "status", "dir", "command_file", "path"}) {
    EXPECT_TRUE(checked.contains(name)) << name;
  }
}

TEST(ScriptVariablesTest, ScriptVariableNamesAreRefusedInARequest) {
  for (const char* name : {"tp_image", "tp_mounts", "tp_exit_evidence", "tp_anything_new"}) {
    const auto why = model::reserved_env_name(name);
    ASSERT_TRUE(why.has_value()) << name;
    EXPECT_EQ(*why,
              "reserved name (tp_* are the batch script's own variables: the image, the mounts, the evidence files); "
              "rename the variable");
  }
  EXPECT_FALSE(model::reserved_env_name("TP_IMAGE").has_value());
  EXPECT_FALSE(model::reserved_env_name("tpx").has_value());
}

}  // namespace
}  // namespace tpslurm::render
