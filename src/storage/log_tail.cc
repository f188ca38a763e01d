#include "storage/log_tail.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/file_system.h"
#include "base/printable.h"

namespace tpslurm::storage {
namespace {

Status check_limits(const LogLimits& limits) {
  if (limits.max_bytes < 4) return invalid_argument("a log byte limit must be at least 4 (one UTF-8 character)");
  if (limits.max_lines < 1) return invalid_argument("a log line limit must be at least 1");
  return ok_status();
}

// The limits checked, then the size of the open log.
Result<std::uint64_t> log_size(int fd, const std::string& path, const LogLimits& limits) {
  if (Status checked = check_limits(limits); !checked.ok()) return checked.error();
  struct stat info {};
  if (::fstat(fd, &info) != 0) return system_error("stat", path, errno);
  if (!S_ISREG(info.st_mode)) return invalid_argument(path + " is not a regular file; refusing to read it as a log");
  return static_cast<std::uint64_t>(info.st_size);
}

// Up to `length` bytes at `offset`; fewer only if the file ends sooner (it was truncated).
Result<std::string> read_at(int fd, const std::string& path, std::uint64_t offset, std::size_t length) {
  std::string out(length, '\0');
  std::size_t got = 0;
  while (got < length) {
    const ssize_t n = ::pread(fd, out.data() + got, length - got, static_cast<off_t>(offset + got));
    if (n < 0) {
      if (errno == EINTR) continue;
      return system_error("read", path, errno);
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  return out;
}

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The length a lead byte announces; 1 for ASCII, a continuation or a byte no sequence starts with.
std::size_t announced_length(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (byte >= 0xC0 && byte <= 0xDF) return 2;
  if (byte >= 0xE0 && byte <= 0xEF) return 3;
  if (byte >= 0xF0 && byte <= 0xF7) return 4;
  return 1;
}

// The first position at or after `i` that does not continue a sequence begun before it. Skips
// at most three bytes: more continuation bytes in a row than that are invalid and kept.
std::size_t utf8_start_at_or_after(std::string_view w, std::size_t i) {
  for (int step = 0; step < 3 && i < w.size() && is_continuation(w[i]); ++step) ++i;
  return i;
}

// `end`, or the start of the sequence that `end` would split. The caller keeps end - lo >= 4,
// so the result stays after `lo`.
std::size_t utf8_end_at_or_before(std::string_view w, std::size_t lo, std::size_t end) {
  for (std::size_t k = 1; k <= 3 && end - k > lo; ++k) {
    const std::size_t p = end - k;
    if (is_continuation(w[p])) continue;
    return announced_length(w[p]) > k ? p : end;
  }
  return end;
}

// Lines wholly or partly in w[from, to): its newlines, plus an unfinished last line.
std::uint64_t lines_in(std::string_view w, std::size_t from, std::size_t to) {
  if (from >= to) return 0;
  const auto newlines = static_cast<std::uint64_t>(std::count(w.begin() + from, w.begin() + to, '\n'));
  return newlines + (w[to - 1] != '\n' ? 1 : 0);
}

LogTail present(std::uint64_t file_size, std::uint64_t base, std::string_view w, std::size_t b, std::size_t e) {
  LogTail tail;
  tail.state = LogFileState::present;
  tail.file_size = std::max(file_size, base + e);
  tail.begin = base + b;
  tail.end = base + e;
  tail.text = std::string(w.substr(b, e - b));
  tail.next_offset = tail.end;
  tail.bytes_before = tail.begin;
  tail.bytes_after = tail.file_size - tail.end;
  tail.starts_mid_line = tail.begin > 0 && b > 0 && w[b - 1] != '\n';
  tail.ends_mid_line = !tail.text.empty() && tail.text.back() != '\n';
  return tail;
}

LogTail empty_file() {
  LogTail tail;
  tail.state = LogFileState::empty;
  tail.lines_before = 0;
  tail.lines_after = 0;
  return tail;
}

}  // namespace

Result<LogTail> read_log_tail(int fd, const std::string& path, LogLimits limits) {
  auto sized = log_size(fd, path, limits);
  if (!sized.ok()) return sized.error();
  const std::uint64_t size = *sized;
  if (size == 0) return empty_file();

  // The text may start no earlier than `cut`; the byte before it tells whether `cut` starts a line.
  const std::uint64_t cut = size > limits.max_bytes ? size - limits.max_bytes : 0;
  const std::uint64_t base = cut > 0 ? cut - 1 : 0;
  auto window = read_at(fd, path, base, static_cast<std::size_t>(size - base));
  if (!window.ok()) return window.error();
  const std::string_view w = *window;
  const std::size_t end = w.size();
  const std::size_t c = static_cast<std::size_t>(std::min<std::uint64_t>(cut - base, end));

  std::size_t b = 0;
  if (cut > 0) {
    const std::size_t newline = w.find('\n', c - 1);
    // Only the last line is longer than the limit when no line starts before the end.
    b = newline != std::string_view::npos && newline + 1 < end ? newline + 1 : utf8_start_at_or_after(w, c);
  }
  // Keep the last max_lines lines: walk back past the last line's own newline, counting the
  // newlines that end the lines before it.
  std::size_t i = end > b && w[end - 1] == '\n' ? end - 1 : end;
  std::size_t lines = 0;
  for (; i > b; --i) {
    if (w[i - 1] == '\n' && ++lines == limits.max_lines) {
      b = i;
      break;
    }
  }

  LogTail tail = present(size, base, w, b, end);
  if (base == 0) tail.lines_before = lines_in(w, 0, b);
  tail.lines_after = 0;
  return tail;
}

Result<LogTail> read_log_page(int fd, const std::string& path, std::uint64_t offset, Growing growing,
                              LogLimits limits) {
  auto sized = log_size(fd, path, limits);
  if (!sized.ok()) return sized.error();
  const std::uint64_t size = *sized;
  if (offset > size) {
    return invalid_argument("offset " + std::to_string(offset) + " is past the end of " + path + " (" +
                            std::to_string(size) + " bytes); give an offset of at most " + std::to_string(size));
  }
  if (size == 0) return empty_file();

  // One byte before the offset tells whether the page starts a line.
  const std::uint64_t base = offset > 0 ? offset - 1 : 0;
  const std::uint64_t limit_end = std::min<std::uint64_t>(size, offset + limits.max_bytes);
  auto window = read_at(fd, path, base, static_cast<std::size_t>(limit_end - base));
  if (!window.ok()) return window.error();
  const std::string_view w = *window;
  const std::size_t o = std::min(static_cast<std::size_t>(offset - base), w.size());
  const std::size_t limit = w.size();
  const bool to_eof = base + limit >= size;

  std::size_t e = o;
  const std::size_t newline = w.rfind('\n', limit == 0 ? 0 : limit - 1);
  if (newline != std::string_view::npos && newline >= o) {
    e = newline + 1;
    if (to_eof && growing == Growing::no) e = limit;
  } else if (!to_eof) {
    e = utf8_end_at_or_before(w, o, limit);  // one line longer than the limit
  } else if (growing == Growing::no) {
    e = limit;
  }
  std::size_t lines = 0;
  for (std::size_t i = o; i < e; ++i) {
    if (w[i] == '\n' && ++lines == limits.max_lines) {
      e = i + 1;
      break;
    }
  }

  LogTail page = present(size, base, w, o, e);
  if (offset == 0) page.lines_before = 0;
  if (to_eof) {
    page.lines_after = lines_in(w, e, limit);
    page.partial_line_held = growing == Growing::yes && e < limit && w.find('\n', e) == std::string_view::npos;
  }
  return page;
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_length(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

}  // namespace tpslurm::storage
