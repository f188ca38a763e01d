// The catalogs' and the user map's rule: root's or the reader's, and written by its owner alone.
// The suite runs as root (tools/test does), so a file can be given to another owner.
#include "base/operator_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "support/temp_dir.h"

namespace tpslurm {
namespace {

using testing::TempDir;
using testing::write_test_file;
namespace fs = std::filesystem;

class OperatorFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0u) << "gives files to other owners; run as root (tools/test does)";
    write_test_file(m_path, "{}", fs::perms(0644));
  }

  TempDir m_dir;
  std::string m_path = m_dir.file("map.json");
};

TEST_F(OperatorFileTest, ItsOwnersFileIsReadWholeThroughALinkToo) {
  auto text = read_operator_file(m_path, 0);
  ASSERT_TRUE(text.ok()) << text.error().message();
  EXPECT_EQ(*text, "{}");
  fs::create_symlink(m_path, m_dir.file("link.json"));
  EXPECT_TRUE(read_operator_file(m_dir.file("link.json"), 1234).ok()) << "root's file, read by another user";
}

TEST_F(OperatorFileTest, AFileOthersMayWriteIsRefusedWithTheFix) {
  ASSERT_EQ(::chmod(m_path.c_str(), 0664), 0);
  auto text = read_operator_file(m_path, 0);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().message(), m_path + " is writable by its group or others (mode 0664); only its owner may "
                                             "change what it says: chmod go-w " + m_path);
}

TEST_F(OperatorFileTest, AFileOfAnotherUserIsRefused) {
  ASSERT_EQ(::chown(m_path.c_str(), 2, 2), 0);
  auto text = read_operator_file(m_path, 1);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().message(), m_path + " belongs to uid 2, neither root nor this process's user (uid 1); "
                                             "whoever owns it decides what it says: chown root " + m_path);
  EXPECT_TRUE(read_operator_file(m_path, 2).ok()) << "the reader's own file";
}

TEST_F(OperatorFileTest, AFifoIsRefusedWithoutWaitingAndABigFileByItsSize) {
  const std::string fifo = m_dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  auto piped = read_operator_file(fifo, 0);
  ASSERT_FALSE(piped.ok());
  EXPECT_EQ(piped.error().message(), fifo + " is not a regular file");
  write_test_file(m_path, std::string(kMaxOperatorFileBytes + 1, ' '), fs::perms(0644));
  auto big = read_operator_file(m_path, 0);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().message(), m_path + " is larger than 4194304 bytes");
}

}  // namespace
}  // namespace tpslurm
