// Is a directory on a local filesystem? SQLite's WAL mode needs shared memory and POSIX
// locks that network and cluster filesystems (NFS, Lustre, GPFS, CIFS, Ceph, ...) do not
// provide reliably; a journal there can corrupt silently, so it is refused up front.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "base/result.h"

namespace tpslurm::journal {

// The name of the network filesystem `directory` is on ("nfs", "lustre", ...), or nullopt
// when it is local. The seam exists so tests can pretend to be on NFS.
using FilesystemProbe = std::function<Result<std::optional<std::string>>(const std::string& directory)>;

Result<std::optional<std::string>> probe_filesystem(const std::string& directory);

// The filesystem name for a statfs f_type magic number if it is a network filesystem.
std::optional<std::string> network_filesystem_name(long magic);

}  // namespace tpslurm::journal
