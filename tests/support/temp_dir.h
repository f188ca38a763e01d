// TempDir: a fresh directory under $TMPDIR for one test, removed with everything in it when
// the object goes out of scope — unless TP_TEST_KEEP_DIRS is set (non-empty): then it stays,
// owner-readable, for tools/secrets-scan to search after the suite (tools/test sets it with
// a TMPDIR of its own and removes that afterwards).
#pragma once

#include <filesystem>
#include <string>

namespace tpslurm::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return m_path; }
  std::string file(const std::string& name) const { return m_path + "/" + name; }

 private:
  std::string m_path;
};

// Writes `content` to `path` (creating parents) with `mode`; for test fixtures only.
void write_test_file(const std::string& path, const std::string& content,
                     std::filesystem::perms mode = std::filesystem::perms::owner_read |
                                                   std::filesystem::perms::owner_write);
std::string read_test_file(const std::string& path);

}  // namespace tpslurm::testing
