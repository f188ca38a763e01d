#include "storage/attempt_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/file_system.h"
#include "base/printable.h"

namespace tpslurm::storage {
namespace {

constexpr int kFinalFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;

std::vector<std::string_view> components(std::string_view relative) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0; start <= relative.size();) {
    const std::size_t slash = std::min(relative.find('/', start), relative.size());
    parts.push_back(relative.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

Error refused(const std::string& path, mode_t mode, Expect expect) {
  return invalid_argument(path + " is " + std::string(kind_of(mode)) + ", not " +
                          (expect == Expect::file ? "a regular file" : "a directory") + ": ignored");
}

// Why opening `name` beneath `at` failed with `error`: what the name is when it is not what
// was expected (a link, a FIFO, a socket...), else the system's reason.
Error open_error(int at, const std::string& name, const std::string& path, int error, Expect expect) {
  struct stat info {};
  const bool wrong_kind = error == ELOOP || error == ENOTDIR || error == ENXIO || error == EXDEV;
  if (wrong_kind && ::fstatat(at, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0) {
    return refused(path, info.st_mode, expect);
  }
  return system_error("open", path, error);
}

// The kernel resolves the whole path, refusing every link; -errno when it cannot. EAGAIN (a
// rename seen during the lookup) is tried again a few times, then left to the walk.
int open_with_openat2(int dir_fd, const std::string& relative, int flags) {
#ifdef SYS_openat2
  struct open_how how {};
  how.flags = static_cast<std::uint64_t>(flags);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  int error = EAGAIN;
  for (int tries = 0; tries < 4 && (error == EAGAIN || error == EINTR); ++tries) {
    const long fd = ::syscall(SYS_openat2, dir_fd, relative.c_str(), &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    error = errno;
  }
  return -error;
#else
  (void)dir_fd, (void)relative, (void)flags;
  return -ENOSYS;
#endif
}

// One component at a time, each directory opened O_NOFOLLOW | O_DIRECTORY: the fallback, and
// what names the component refused.
Result<UniqueFd> walk(int dir_fd, const std::string& dir_path, std::string_view relative, int final_flags,
                      Expect expect) {
  const auto parts = components(relative);
  UniqueFd held;
  int at = dir_fd;
  std::string path = dir_path;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string name(parts[i]);
    path = join_path(path, printable(name));
    const bool last = i + 1 == parts.size();
    UniqueFd next(::openat(at, name.c_str(), last ? final_flags : kDirectoryFlags));
    if (next.get() < 0) return open_error(at, name, path, errno, last ? expect : Expect::directory);
    held = std::move(next);
    at = held.get();
  }
  return held;
}

Result<std::string> read_bounded(const OpenEntry& entry, std::size_t max_bytes) {
  const auto too_large = [&] {
    return invalid_argument(entry.path + " is larger than " + std::to_string(max_bytes) + " bytes");
  };
  if (static_cast<std::uint64_t>(entry.info.st_size) > max_bytes) return too_large();
  std::string content;
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(entry.fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return system_error("read", entry.path, errno);
    }
    if (n == 0) break;
    if (content.size() + static_cast<std::size_t>(n) > max_bytes) return too_large();
    content.append(buffer, static_cast<std::size_t>(n));
  }
  return content;
}

}  // namespace

std::string_view kind_of(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFLNK: return "a symbolic link";
    case S_IFIFO: return "a FIFO";
    case S_IFSOCK: return "a socket";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    default: return "a special file";
  }
}

Status check_relative(std::string_view relative, const std::string& dir_path) {
  const auto refuse = [&](std::string_view why) {
    return invalid_argument(dir_path + ": path \"" + printable(relative) + "\" " + std::string(why));
  };
  if (relative.empty()) return refuse("is empty");
  if (relative.front() == '/') return refuse("is absolute; only paths inside the directory are opened");
  for (const auto part : components(relative)) {
    if (part.empty() || part == "." || part == "..") {
      return refuse("has an empty, \".\" or \"..\" component; only plain paths inside the directory are opened");
    }
  }
  return ok_status();
}

Result<UniqueFd> open_attempt_directory(const std::string& attempt_dir) {
  UniqueFd fd(::open(attempt_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return system_error("open directory", attempt_dir, errno);
  return fd;
}

Result<OpenEntry> open_beneath(int dir_fd, const std::string& dir_path, std::string_view relative, Expect expect) {
  if (Status checked = check_relative(relative, dir_path); !checked.ok()) return checked.error();
  const std::string path = join_path(dir_path, printable(relative));
  const int flags = expect == Expect::directory ? kDirectoryFlags : kFinalFlags;
  UniqueFd fd(open_with_openat2(dir_fd, std::string(relative), flags));
  if (fd.get() == -ENOENT) return system_error("open", path, ENOENT);
  if (fd.get() < 0) {
    // No openat2 here, or a refusal: the walk says which component is what.
    auto walked = walk(dir_fd, dir_path, relative, flags, expect);
    if (!walked.ok()) return walked.error();
    fd = std::move(*walked);
  }
  OpenEntry entry{std::move(fd), {}, path};
  if (::fstat(entry.fd.get(), &entry.info) != 0) return system_error("stat", path, errno);
  const bool right = expect == Expect::file ? S_ISREG(entry.info.st_mode) : S_ISDIR(entry.info.st_mode);
  if (!right) return refused(path, entry.info.st_mode, expect);
  return entry;
}

Result<OpenEntry> open_in_attempt(const std::string& attempt_dir, std::string_view relative, Expect expect) {
  auto dir = open_attempt_directory(attempt_dir);
  if (!dir.ok()) return dir.error();
  return open_beneath(dir->get(), attempt_dir, relative, expect);
}

Result<std::string> read_attempt_file(const std::string& attempt_dir, std::string_view relative,
                                      std::size_t max_bytes) {
  auto entry = open_in_attempt(attempt_dir, relative, Expect::file);
  if (!entry.ok()) return entry.error();
  return read_bounded(*entry, max_bytes);
}

Result<bool> exists_in_attempt(const std::string& attempt_dir, std::string_view relative) {
  if (Status checked = check_relative(relative, attempt_dir); !checked.ok()) return checked.error();
  auto parent = open_parent(attempt_dir, relative);
  if (!parent.ok()) {
    // A directory on the way that is missing, a link or no directory holds nothing.
    const ErrorKind kind = parent.error().kind();
    if (kind == ErrorKind::not_found || kind == ErrorKind::invalid_argument) return false;
    return parent.error();
  }
  struct stat info {};
  if (::fstatat(parent->fd.get(), last_component(relative).c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0) return true;
  if (errno == ENOENT) return false;
  return system_error("stat", join_path(attempt_dir, printable(relative)), errno);
}

Result<Listing> list_directory(int dir_fd, const std::string& dir_path, std::size_t max_entries) {
  const int copy = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) return system_error("dup", dir_path, errno);
  DIR* stream = ::fdopendir(copy);
  if (stream == nullptr) {
    const int saved = errno;
    ::close(copy);
    return system_error("list", dir_path, saved);
  }
  ::rewinddir(stream);  // the dup shares its offset with dir_fd, which may have been listed before
  Listing listing;
  errno = 0;
  while (const dirent* item = ::readdir(stream)) {
    const std::string_view name = item->d_name;
    if (name == "." || name == "..") continue;
    if (listing.entries.size() == max_entries) {
      listing.more = true;
      break;
    }
    struct stat info {};
    if (::fstatat(dir_fd, item->d_name, &info, AT_SYMLINK_NOFOLLOW) == 0) {
      listing.entries.push_back({std::string(name), info.st_mode});
    }
    errno = 0;
  }
  const int saved = errno;
  ::closedir(stream);
  if (saved != 0) return system_error("list", dir_path, saved);
  std::sort(listing.entries.begin(), listing.entries.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return listing;
}

Result<OpenEntry> open_parent(const std::string& attempt_dir, std::string_view relative) {
  const std::size_t slash = relative.rfind('/');
  if (slash != std::string_view::npos) {
    return open_in_attempt(attempt_dir, relative.substr(0, slash), Expect::directory);
  }
  auto dir = open_attempt_directory(attempt_dir);
  if (!dir.ok()) return dir.error();
  OpenEntry entry{std::move(*dir), {}, attempt_dir};
  if (::fstat(entry.fd.get(), &entry.info) != 0) return system_error("stat", attempt_dir, errno);
  return entry;
}

std::string last_component(std::string_view relative) {
  const std::size_t slash = relative.rfind('/');
  return std::string(slash == std::string_view::npos ? relative : relative.substr(slash + 1));
}

}  // namespace tpslurm::storage
