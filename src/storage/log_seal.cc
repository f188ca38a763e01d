#include "storage/log_seal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "base/digest.h"
#include "base/file_system.h"
#include "base/printable.h"
#include "storage/attempt_tree.h"

namespace tpslurm::storage {
namespace {

constexpr std::string_view kLogsDir = "logs";
// One read: large enough that the calls cost nothing beside the hash, small enough that a
// stop request is seen within a few milliseconds.
constexpr std::size_t kReadBytes = std::size_t{1} << 20;

// "8 MiB", "1 GiB": the bounds, as the notes name them.
std::string binary_size(std::uint64_t bytes) {
  for (const auto& [shift, unit] : {std::pair{30, " GiB"}, std::pair{20, " MiB"}, std::pair{10, " KiB"}}) {
    if (bytes != 0 && bytes % (std::uint64_t{1} << shift) == 0) return std::to_string(bytes >> shift) + unit;
  }
  return std::to_string(bytes) + " bytes";
}

std::string not_sealed(const std::string& shown, mode_t mode) {
  return shown + ": " + std::string(kind_of(mode)) + ", not sealed";
}

// What a file was when its hash began; one that no longer matches changed meanwhile.
struct Identity {
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  std::int64_t modified_ns = 0;
  std::int64_t changed_ns = 0;
  bool operator==(const Identity&) const = default;
};

Identity identity_of(const struct stat& info) {
  const auto ns = [](const timespec& t) { return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; };
  return {info.st_dev, info.st_ino, info.st_size, ns(info.st_mtim), ns(info.st_ctim)};
}

struct Range {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

// The file being hashed, kept between slices.
struct Hashing {
  Identity identity;
  std::vector<Range> ranges;
  std::size_t range = 0;
  std::uint64_t done = 0;  // bytes of ranges[range] hashed
  Sha256 hash;
};

// How far a slice took a file's hash.
enum class Hashed { through, cut, changed };

// The whole file, or its first and last `edge` bytes when it is larger than twice that.
std::vector<Range> ranges_of(std::uint64_t size, std::uint64_t edge) {
  if (size == 0) return {};
  if (size <= 2 * edge) return {{0, size}};
  return {{0, edge}, {size - edge, edge}};
}

}  // namespace

struct LogSealer::State {
  std::string dir;
  SealLimits limits;
  LogSeal seal;
  bool listed = false;
  bool done = false;
  std::vector<DirectoryEntry> entries;
  std::size_t next = 0;      // the entry being sealed
  std::uint64_t hashed = 0;  // bytes read for this attempt's hashes
  std::optional<Hashing> current;

  Result<bool> seal_entry(const OpenEntry& logs, WorkSlice& slice);
  Result<std::optional<OpenEntry>> open_file(const OpenEntry& logs, const std::string& name, const std::string& shown);
  Result<Hashed> hash_some(const OpenEntry& file, WorkSlice& slice);
  void finish_file(const OpenEntry& file, const std::string& shown);
  void note_changed(const std::string& shown) {
    seal.notes.push_back(shown + ": changed while it was hashed, not sealed");
    current.reset();
  }
};

// The entry's file opened again; empty (with a note, the hash dropped) when it is gone or no
// longer a regular file: the job swapped it since it was listed.
Result<std::optional<OpenEntry>> LogSealer::State::open_file(const OpenEntry& logs, const std::string& name,
                                                             const std::string& shown) {
  auto file = open_beneath(logs.fd.get(), logs.path, name, Expect::file);
  if (file.ok()) return std::optional<OpenEntry>(std::move(*file));
  const ErrorKind kind = file.error().kind();
  if (kind != ErrorKind::not_found && kind != ErrorKind::invalid_argument) return file.error();
  if (current) {
    note_changed(shown);
  } else if (struct stat info{}; kind == ErrorKind::invalid_argument &&
                                 ::fstatat(logs.fd.get(), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0) {
    seal.notes.push_back(not_sealed(shown, info.st_mode));
  }
  return std::optional<OpenEntry>();
}

// Reads on into the current hash until its ranges are through, the slice is spent (after one
// read at least, unless a stop is requested) or a read comes back short (the file shrank).
Result<Hashed> LogSealer::State::hash_some(const OpenEntry& file, WorkSlice& slice) {
  const auto buffer = std::make_unique_for_overwrite<char[]>(kReadBytes);
  bool read_some = false;
  while (current->range < current->ranges.size()) {
    if (slice.stop_requested() || (read_some && slice.spent())) return Hashed::cut;
    const Range& range = current->ranges[current->range];
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(kReadBytes, range.length - current->done));
    const ssize_t n = ::pread(file.fd.get(), buffer.get(), want, static_cast<off_t>(range.offset + current->done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return system_error("read", file.path, errno);
    }
    if (n == 0) return Hashed::changed;
    const auto got = static_cast<std::uint64_t>(n);
    current->hash.update(buffer.get(), static_cast<std::size_t>(got));
    current->done += got;
    hashed += got;
    slice.add_bytes(got);
    read_some = true;
    if (current->done == range.length) {
      ++current->range;
      current->done = 0;
    }
  }
  return Hashed::through;
}

// The file hashed through: recorded, and made read-only by the descriptor it was read with.
void LogSealer::State::finish_file(const OpenEntry& file, const std::string& shown) {
  const std::uint64_t edge = current->ranges.size() > 1 ? current->ranges.front().length : 0;
  const auto size = static_cast<std::uint64_t>(current->identity.size);
  seal.files.push_back({shown, current->hash.hex_digest(), size, edge});
  current.reset();
  if (edge != 0) {
    seal.notes.push_back(shown + ": hashed in part, its first and last " + binary_size(edge) + " of " +
                         std::to_string(size) + " bytes");
  }
  if (::fchmod(file.fd.get(), file.info.st_mode & 07555) != 0) {
    seal.notes.push_back(shown + (errno == EPERM ? std::string(": owned by the job user, mode kept")
                                                 : ": mode kept (" + std::string(std::strerror(errno)) + ")"));
  }
}

// The entry `next`: true once it is sealed or noted, false when the slice was spent within it.
Result<bool> LogSealer::State::seal_entry(const OpenEntry& logs, WorkSlice& slice) {
  const DirectoryEntry& entry = entries[next];
  const std::string shown = printable(entry.name);
  if (!S_ISREG(entry.mode)) {
    seal.notes.push_back(not_sealed(shown, entry.mode));
    return true;
  }
  auto file = open_file(logs, entry.name, shown);
  if (!file.ok()) return file.error();
  if (!*file) return true;
  const Identity now = identity_of((*file)->info);
  if (current && current->identity != now) {
    note_changed(shown);
    return true;
  }
  if (!current) {
    const auto size = static_cast<std::uint64_t>(now.size);
    if (hashed + std::min(size, limits.file_bytes) > limits.attempt_bytes) {
      seal.notes.push_back(shown + ": not hashed: the seal hashes at most " + binary_size(limits.attempt_bytes) +
                           " of an attempt's logs");
      return true;
    }
    current.emplace(Hashing{now, ranges_of(size, limits.file_bytes / 2), 0, 0, Sha256()});
  }
  auto hashed_now = hash_some(**file, slice);
  if (!hashed_now.ok()) return hashed_now.error();
  if (*hashed_now == Hashed::cut) return false;
  struct stat after {};
  if (::fstat((*file)->fd.get(), &after) != 0) return system_error("stat", (*file)->path, errno);
  if (*hashed_now == Hashed::changed || identity_of(after) != current->identity) {
    note_changed(shown);
    return true;
  }
  finish_file(**file, shown);
  return true;
}

LogSealer::LogSealer(std::string attempt_dir, SealLimits limits) : m_state(std::make_unique<State>()) {
  m_state->dir = std::move(attempt_dir);
  m_state->limits = limits;
}
LogSealer::~LogSealer() = default;
LogSealer::LogSealer(LogSealer&&) noexcept = default;
LogSealer& LogSealer::operator=(LogSealer&&) noexcept = default;

const LogSeal& LogSealer::seal() const { return m_state->seal; }

Result<bool> LogSealer::seal_some(WorkSlice& slice) {
  State& s = *m_state;
  if (s.done) return true;
  auto dir = open_attempt_directory(s.dir);
  if (!dir.ok()) {
    if (dir.error().kind() != ErrorKind::not_found) return dir.error();
    s.done = true;
    return true;
  }
  auto logs = open_beneath(dir->get(), s.dir, kLogsDir, Expect::directory);
  if (!logs.ok()) {
    if (logs.error().kind() == ErrorKind::invalid_argument) {
      struct stat info {};
      if (::fstatat(dir->get(), std::string(kLogsDir).c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) return logs.error();
      s.seal.notes.push_back(not_sealed(std::string(kLogsDir), info.st_mode));
    } else if (logs.error().kind() != ErrorKind::not_found) {
      return logs.error();
    }
    s.done = true;
    return true;
  }
  if (!s.listed) {
    auto listing = list_directory(logs->fd.get(), logs->path, s.limits.entries);
    if (!listing.ok()) return listing.error();
    slice.add_entries(listing->entries.size());
    s.entries = std::move(listing->entries);
    s.listed = true;
    if (listing->more) {
      const std::string limit = std::to_string(s.limits.entries);
      s.seal.notes.push_back("logs: more than " + limit + " entries; only " + limit +
                             " were read, the others are not sealed");
    }
  }
  while (s.next < s.entries.size()) {
    auto sealed = s.seal_entry(*logs, slice);
    if (!sealed.ok()) return sealed.error();
    if (!*sealed) return false;
    ++s.next;
    if (s.next < s.entries.size() && slice.spent()) return false;
  }
  (void)::fchmod(logs->fd.get(), logs->info.st_mode & 07555);
  s.done = true;
  return true;
}

Result<LogSeal> seal_logs(const std::string& attempt_dir, SealLimits limits) {
  LogSealer sealer(attempt_dir, limits);
  WorkSlice slice = WorkSlice::unlimited();
  auto done = sealer.seal_some(slice);
  if (!done.ok()) return done.error();
  return sealer.seal();
}

}  // namespace tpslurm::storage
