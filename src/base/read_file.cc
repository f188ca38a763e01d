#include "base/read_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tpslurm {

Error system_error(std::string_view what, const std::string& path, int error_number) {
  const ErrorKind kind = (error_number == ENOENT) ? ErrorKind::not_found
                         : (error_number == EEXIST || error_number == EACCES || error_number == EPERM ||
                            error_number == EROFS || error_number == ENOTDIR || error_number == EISDIR)
                             ? ErrorKind::invalid_argument
                             : ErrorKind::transient;
  return {kind, std::string(what) + " " + path + ": " + std::strerror(error_number)};
}

Result<std::string> read_file(const std::string& path, std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return system_error("open", path, errno);
  std::string content;
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int saved = errno;
      ::close(fd);
      return system_error("read", path, saved);
    }
    if (n == 0) break;
    if (content.size() + static_cast<std::size_t>(n) > max_bytes) {
      ::close(fd);
      return invalid_argument(path + " is larger than " + std::to_string(max_bytes) + " bytes");
    }
    content.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return content;
}

}  // namespace tpslurm
