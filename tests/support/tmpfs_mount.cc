#include "support/tmpfs_mount.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace tpslurm::testing {
namespace {

std::string failed(const std::string& what, const std::string& dir) {
  return what + " " + dir + ": " + std::strerror(errno) + " (these tests need root and mount(2))";
}

}  // namespace

TmpfsMount::~TmpfsMount() {
  if (m_mounted) ::umount2(m_dir.c_str(), MNT_DETACH);
}

std::string TmpfsMount::mount(std::size_t bytes) {
  std::error_code error;
  std::filesystem::create_directories(m_dir, error);
  if (error) return "create " + m_dir + ": " + error.message();
  const std::string options = "size=" + std::to_string(bytes) + ",mode=0755";
  if (::mount("tmpfs", m_dir.c_str(), "tmpfs", 0, options.c_str()) != 0) return failed("mount tmpfs on", m_dir);
  m_bytes = bytes;
  m_mounted = true;
  return "";
}

std::string TmpfsMount::remount(bool read_only) {
  const std::string options = "size=" + std::to_string(m_bytes);
  const unsigned long flags = MS_REMOUNT | (read_only ? MS_RDONLY : 0);
  if (::mount("tmpfs", m_dir.c_str(), "tmpfs", flags, options.c_str()) != 0) return failed("remount", m_dir);
  return "";
}

std::string TmpfsMount::unmount() {
  if (::umount2(m_dir.c_str(), MNT_DETACH) != 0) return failed("unmount", m_dir);
  m_mounted = false;
  return "";
}

std::size_t TmpfsMount::fill(const std::string& name) {
  const std::string path = m_dir + "/" + name;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return 0;
  const std::vector<char> block(4096, 'x');
  std::size_t written = 0;
  for (;;) {
    const ssize_t n = ::write(fd, block.data(), block.size());
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return written;
}

}  // namespace tpslurm::testing
