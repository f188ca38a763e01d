// Bounded log reads: which limit cuts first, where the cut falls (line, then UTF-8 boundary),
// paging from an offset over a file that is complete or still growing, missing and empty files.
#include "storage/log_tail.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "base/file_system.h"
#include "storage/attempt_tree.h"
#include "support/temp_dir.h"

namespace tpslurm::storage {
namespace {

using testing::TempDir;
using testing::write_test_file;

std::string numbered_lines(int count, int first = 0) {
  std::string out;
  for (int i = first; i < first + count; ++i) out += "line " + std::to_string(i) + "\n";
  return out;
}

void append(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::app | std::ios::binary);
  out << text;
}

// The log at `path` opened as attempt_logs.cc opens it (attempt_tree.h, beneath its directory);
// a missing one is `missing`.
Result<std::optional<OpenEntry>> open_log(const std::string& path) {
  auto entry = open_in_attempt(parent_directory(path), path.substr(path.rfind('/') + 1), Expect::file);
  if (!entry.ok()) {
    if (entry.error().kind() == ErrorKind::not_found) return std::optional<OpenEntry>();
    return entry.error();
  }
  return std::optional<OpenEntry>(std::move(*entry));
}

Result<LogTail> tail_of(const std::string& path, LogLimits limits = {}) {
  auto log = open_log(path);
  if (!log.ok()) return log.error();
  if (!log->has_value()) return LogTail{};
  return read_log_tail((*log)->fd.get(), path, limits);
}

Result<LogTail> page_of(const std::string& path, std::uint64_t offset, Growing growing, LogLimits limits = {}) {
  auto log = open_log(path);
  if (!log.ok()) return log.error();
  if (!log->has_value()) return LogTail{};
  return read_log_page((*log)->fd.get(), path, offset, growing, limits);
}

class LogTailTest : public ::testing::Test {
 protected:
  std::string log(const std::string& content) {
    write_test_file(m_path, content);
    return m_path;
  }

  TempDir m_dir;
  std::string m_path = m_dir.file("batch.out");
};

TEST_F(LogTailTest, ByteLimitHitFirstCutsAfterTheFirstPartialLine) {
  // 1,000 lines of 100 bytes: the last 64 KiB begin inside line 344, which is dropped.
  std::string content;
  for (int i = 0; i < 1000; ++i) content += std::string(99, static_cast<char>('a' + i % 26)) + "\n";
  auto tail = tail_of(log(content));
  ASSERT_TRUE(tail.ok()) << tail.error().message();
  EXPECT_EQ(tail->state, LogFileState::present);
  EXPECT_EQ(tail->file_size, 100000u);
  EXPECT_EQ(tail->begin, 34500u);
  EXPECT_EQ(tail->end, 100000u);
  EXPECT_EQ(tail->text, content.substr(34500));
  EXPECT_LE(tail->text.size(), 64u * 1024u);
  EXPECT_EQ(tail->bytes_before, 34500u);
  EXPECT_FALSE(tail->lines_before.has_value());  // not read: only the limit and one byte are
  EXPECT_EQ(tail->bytes_after, 0u);
  EXPECT_EQ(tail->next_offset, 100000u);
  EXPECT_FALSE(tail->starts_mid_line);
  EXPECT_FALSE(tail->ends_mid_line);
}

TEST_F(LogTailTest, LineLimitHitFirstKeepsTheLast2000Lines) {
  const std::string content = numbered_lines(3000);
  ASSERT_LT(content.size(), 64u * 1024u);
  auto tail = tail_of(log(content));
  ASSERT_TRUE(tail.ok()) << tail.error().message();
  EXPECT_EQ(tail->text, numbered_lines(2000, 1000));
  EXPECT_EQ(tail->begin, content.size() - tail->text.size());
  EXPECT_EQ(tail->bytes_before, tail->begin);
  EXPECT_EQ(tail->lines_before, 1000u);
  EXPECT_EQ(tail->lines_after, 0u);
}

TEST_F(LogTailTest, LineLimitCountsAnUnfinishedLastLine) {
  auto tail = tail_of(log("a\nb\nc\nd"), {64, 2});
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(tail->text, "c\nd");
  EXPECT_EQ(tail->lines_before, 2u);
  EXPECT_TRUE(tail->ends_mid_line);
}

TEST_F(LogTailTest, AFileWithinBothLimitsIsShownWhole) {
  auto tail = tail_of(log("one\ntwo\n"));
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(tail->text, "one\ntwo\n");
  EXPECT_EQ(tail->begin, 0u);
  EXPECT_EQ(tail->bytes_before, 0u);
  EXPECT_EQ(tail->lines_before, 0u);
}

// A single line longer than the limit, with one character of `length` bytes placed so that the
// byte limit would cut into it: the tail skips it, a page stops before it.
class Utf8CutTest : public LogTailTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(Utf8CutTest, TailNeverStartsInsideACharacter) {
  const std::string character = GetParam();
  const LogLimits limits{16, 100};
  // The tail may start at byte size - 16: make that the character's second byte.
  const std::string after(16 - (character.size() - 1), 'y');
  const std::string content = std::string(40, 'x') + character + after;
  auto tail = tail_of(log(content), limits);
  ASSERT_TRUE(tail.ok()) << tail.error().message();
  EXPECT_EQ(tail->text, after);
  EXPECT_EQ(tail->begin, 40 + character.size());
  EXPECT_TRUE(tail->starts_mid_line);
  EXPECT_EQ(valid_utf8(tail->text), tail->text);
}

TEST_P(Utf8CutTest, PageNeverEndsInsideACharacter) {
  const std::string character = GetParam();
  const LogLimits limits{16, 100};
  // The page from 0 may end at byte 16: the character starts at 15 and runs past it.
  const std::string content = std::string(15, 'x') + character + std::string(40, 'y');
  auto page = page_of(log(content), 0, Growing::no, limits);
  ASSERT_TRUE(page.ok()) << page.error().message();
  EXPECT_EQ(page->text, std::string(15, 'x'));
  EXPECT_EQ(page->next_offset, 15u);
  EXPECT_TRUE(page->ends_mid_line);
  auto next = page_of(m_path, page->next_offset, Growing::no, limits);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->text.substr(0, character.size()), character);
}

INSTANTIATE_TEST_SUITE_P(SequenceLengths, Utf8CutTest,
                         ::testing::Values("\xC3\xA9",          // é, 2 bytes
                                           "\xE2\x82\xAC",      // €, 3 bytes
                                           "\xF0\x9F\x98\x80")  // 😀, 4 bytes
);

TEST_F(LogTailTest, ALastLineLongerThanTheLimitIsCutInsideTheLine) {
  const std::string content = "short\n" + std::string(100, 'a') + "\n";
  auto tail = tail_of(log(content), {16, 100});
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(tail->text, std::string(15, 'a') + "\n");
  EXPECT_EQ(tail->begin, content.size() - 16);
  EXPECT_TRUE(tail->starts_mid_line);

  auto first = page_of(m_path, 0, Growing::no, {16, 100});
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->text, "short\n");  // the long line does not fit: it starts the next page
  auto second = page_of(m_path, first->next_offset, Growing::no, {16, 100});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->text, std::string(16, 'a'));
  EXPECT_EQ(second->next_offset, 22u);
  EXPECT_TRUE(second->ends_mid_line);
  EXPECT_FALSE(second->starts_mid_line);
}

TEST_F(LogTailTest, AnEmptyFileSaysSo) {
  log("");
  auto tail = tail_of(m_path);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(tail->state, LogFileState::empty);
  EXPECT_EQ(tail->text, "");
  auto page = page_of(m_path, 0, Growing::yes);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->state, LogFileState::empty);
  EXPECT_EQ(page->next_offset, 0u);
}

TEST_F(LogTailTest, AMissingFileSaysSo) {
  auto tail = tail_of(m_dir.file("logs/never-written.out"));
  ASSERT_TRUE(tail.ok()) << tail.error().message();
  EXPECT_EQ(tail->state, LogFileState::missing);
  auto page = page_of(m_dir.file("never-written.out"), 100, Growing::yes);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->state, LogFileState::missing);
}

TEST_F(LogTailTest, PagesFromZeroCoverTheFileExactlyOnce) {
  // Short and long lines, multi-byte characters, a line longer than the page, no final newline.
  std::string content;
  for (int i = 0; i < 40; ++i) {
    content += "step " + std::to_string(i) + " loss=0.\xC3\xA9" + std::string(static_cast<std::size_t>(i % 7), '.');
    content += i % 13 == 5 ? std::string(150, 'z') + "\xE2\x82\xAC\xF0\x9F\x98\x80" : "";
    content += "\n";
  }
  content += "unfinished \xE2\x82\xAC";
  log(content);
  for (const LogLimits limits : {LogLimits{16, 100}, LogLimits{40, 3}, LogLimits{64, 2}, LogLimits{1000, 1}}) {
    for (Growing growing : {Growing::no, Growing::yes}) {
      SCOPED_TRACE(std::to_string(limits.max_bytes) + " bytes, " + std::to_string(limits.max_lines) + " lines" +
                   (growing == Growing::yes ? ", growing" : ""));
      std::string covered;
      std::uint64_t offset = 0;
      for (int pages = 0; pages < 1000; ++pages) {
        auto page = page_of(m_path, offset, growing, limits);
        ASSERT_TRUE(page.ok()) << page.error().message();
        EXPECT_EQ(page->begin, offset);
        EXPECT_EQ(page->end, page->next_offset);
        EXPECT_LE(page->text.size(), limits.max_bytes);
        EXPECT_LE(static_cast<std::size_t>(std::count(page->text.begin(), page->text.end(), '\n')), limits.max_lines);
        EXPECT_EQ(valid_utf8(page->text), page->text);
        EXPECT_EQ(page->bytes_before + page->text.size() + page->bytes_after, content.size());
        // A page ends on a line boundary, except inside a line longer than the page or at the
        // end of a file nothing writes any more.
        if (page->ends_mid_line) {
          EXPECT_TRUE(page->text.find('\n') == std::string::npos || (growing == Growing::no && page->bytes_after == 0))
              << "page at " << offset << ": " << page->text;
        }
        covered += page->text;
        if (page->text.empty()) break;
        offset = page->next_offset;
      }
      if (growing == Growing::no) {
        EXPECT_EQ(covered, content);
      } else {
        // The unfinished last line waits for its newline.
        EXPECT_EQ(covered, content.substr(0, content.rfind('\n') + 1));
      }
    }
  }
}

TEST_F(LogTailTest, APartialLastLineWaitsForTheNextPageWhileTheFileGrows) {
  log("one\ntwo\nthr");
  auto first = page_of(m_path, 0, Growing::yes);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->text, "one\ntwo\n");
  EXPECT_EQ(first->next_offset, 8u);
  EXPECT_EQ(first->bytes_after, 3u);
  EXPECT_EQ(first->lines_after, 1u);
  EXPECT_TRUE(first->partial_line_held);

  auto waiting = page_of(m_path, 8, Growing::yes);
  ASSERT_TRUE(waiting.ok());
  EXPECT_EQ(waiting->text, "");
  EXPECT_EQ(waiting->next_offset, 8u);

  append(m_path, "ee\nfour");
  auto second = page_of(m_path, 8, Growing::yes);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->text, "three\n");
  EXPECT_FALSE(second->starts_mid_line);
  EXPECT_EQ(second->next_offset, 14u);

  // The job ended: its last line will never get a newline.
  auto last = page_of(m_path, 14, Growing::no);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->text, "four");
  EXPECT_EQ(last->bytes_after, 0u);
  EXPECT_FALSE(last->partial_line_held);

  // The tail shows what is there, unfinished line included.
  auto tail = tail_of(m_path);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(tail->text, "one\ntwo\nthree\nfour");
  EXPECT_TRUE(tail->ends_mid_line);
}

TEST_F(LogTailTest, APageReportsWhatIsLeftAfterIt) {
  log(numbered_lines(10));
  auto page = page_of(m_path, 0, Growing::yes, {1024, 4});
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->text, numbered_lines(4));
  EXPECT_EQ(page->bytes_after, numbered_lines(6, 4).size());
  EXPECT_EQ(page->lines_after, 6u);
  EXPECT_EQ(page->lines_before, 0u);
  EXPECT_FALSE(page->partial_line_held);
}

TEST_F(LogTailTest, APageFromTheMiddleOfALineSaysItStartsThere) {
  log("abcdef\nghi\n");
  auto page = page_of(m_path, 3, Growing::yes);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->text, "def\nghi\n");
  EXPECT_TRUE(page->starts_mid_line);
  EXPECT_EQ(page->bytes_before, 3u);
  EXPECT_FALSE(page->lines_before.has_value());
}

TEST_F(LogTailTest, AnOffsetPastTheEndIsRefused) {
  log("12345\n");
  auto page = page_of(m_path, 7, Growing::yes);
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.error().kind(), ErrorKind::invalid_argument);
  EXPECT_EQ(page.error().message(),
            "offset 7 is past the end of " + m_path + " (6 bytes); give an offset of at most 6");
  auto at_end = page_of(m_path, 6, Growing::yes);
  ASSERT_TRUE(at_end.ok());
  EXPECT_EQ(at_end->text, "");
  EXPECT_EQ(at_end->next_offset, 6u);
}

TEST_F(LogTailTest, InvalidBytesArePassedThroughUnchanged) {
  const std::string content = "ok \xFF\xFE bytes \xC3 lone\n";
  auto tail = tail_of(log(content));
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(tail->text, content);
  EXPECT_EQ(valid_utf8(content), "ok \xEF\xBF\xBD\xEF\xBF\xBD bytes \xEF\xBF\xBD lone\n");
  EXPECT_EQ(valid_utf8("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"), "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
}

TEST_F(LogTailTest, ALinkIsNeverFollowed) {
  const std::string secret = m_dir.file("secret");
  write_test_file(secret, "the daemon's key\n");
  ASSERT_EQ(::symlink(secret.c_str(), m_path.c_str()), 0);
  auto tail = tail_of(m_path);
  ASSERT_FALSE(tail.ok());
  EXPECT_EQ(tail.error().kind(), ErrorKind::invalid_argument);
  EXPECT_EQ(tail.error().message(), m_path + " is a symbolic link, not a regular file: ignored");
  EXPECT_FALSE(page_of(m_path, 0, Growing::yes).ok());
}

TEST_F(LogTailTest, AFifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo(m_path.c_str(), 0600), 0);
  auto tail = tail_of(m_path);
  ASSERT_FALSE(tail.ok());
  EXPECT_EQ(tail.error().message(), m_path + " is a FIFO, not a regular file: ignored");
  // Handed a FIFO's descriptor all the same, the reader refuses it.
  const int fifo = ::open(m_path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(fifo, 0);
  auto direct = read_log_tail(fifo, m_path);
  ::close(fifo);
  ASSERT_FALSE(direct.ok());
  EXPECT_EQ(direct.error().message(), m_path + " is not a regular file; refusing to read it as a log");
}

TEST_F(LogTailTest, LimitsTooSmallAreRefused) {
  log("x\n");
  EXPECT_EQ(tail_of(m_path, {3, 10}).error().kind(), ErrorKind::invalid_argument);
  EXPECT_EQ(page_of(m_path, 0, Growing::yes, {64, 0}).error().kind(), ErrorKind::invalid_argument);
}

}  // namespace
}  // namespace tpslurm::storage
