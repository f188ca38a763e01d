#include "support/temp_dir.h"

#include <stdlib.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tpslurm::testing {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/tp-test-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
  m_path = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  namespace fs = std::filesystem;
  // With TP_TEST_KEEP_DIRS set (tools/test does, for the secrets scan after the suite) the
  // directory stays, made readable to its owner so the scan can clear every file in it; the
  // modes the scan tells secret files by (0400) are left alone.
  const char* keep = std::getenv("TP_TEST_KEEP_DIRS");
  const bool keeping = keep != nullptr && *keep != '\0';
  // Tests make read-only files and directories; give the owner write access back first.
  const fs::perms access = keeping ? fs::perms::owner_read : fs::perms::owner_all;
  for (auto it = fs::recursive_directory_iterator(m_path, ignored); it != fs::recursive_directory_iterator();
       it.increment(ignored)) {
    const bool directory = it->is_directory(ignored) && !it->is_symlink(ignored);
    fs::permissions(it->path(), directory ? fs::perms::owner_all : access, fs::perm_options::add, ignored);
  }
  if (!keeping) fs::remove_all(m_path, ignored);
}

void write_test_file(const std::string& path, const std::string& content, std::filesystem::perms mode) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
  }
  std::filesystem::permissions(path, mode);
}

std::string read_test_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace tpslurm::testing
