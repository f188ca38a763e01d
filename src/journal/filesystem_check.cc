#include "journal/filesystem_check.h"

#include <sys/vfs.h>

#include <cerrno>

#include "base/file_system.h"

namespace tpslurm::journal {

std::optional<std::string> network_filesystem_name(long magic) {
  switch (static_cast<unsigned long>(magic) & 0xFFFFFFFFul) {
    case 0x6969: return "nfs";
    case 0x0BD00BD0: return "lustre";
    case 0x47504653: return "gpfs";
    case 0xFF534D42: return "cifs";
    case 0xFE534D42: return "smb2";
    case 0x517B: return "smb";
    case 0x00C36400: return "ceph";
    case 0x01021997: return "9p";
    case 0x19830326: return "beegfs";
    case 0x5346414F: return "afs";
    case 0x20030528: return "orangefs";
    case 0x65735546: return "fuse";  // sshfs, s3fs, ...: assume the worst
    default: return std::nullopt;
  }
}

Result<std::optional<std::string>> probe_filesystem(const std::string& directory) {
  struct statfs info {};
  if (::statfs(directory.c_str(), &info) != 0) return system_error("statfs", directory, errno);
  return network_filesystem_name(static_cast<long>(info.f_type));
}

}  // namespace tpslurm::journal
