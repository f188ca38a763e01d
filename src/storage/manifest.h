// The attempt manifest (`manifest.json`): what an attempt directory holds, written last.
//
// It records every file written (path, mode, size, SHA-256), the directories created, the
// image the job runs (registry path and verified SHA-256) and the attempt's log files. Its
// presence means the directory is complete; verify_manifest() (attempt_directory.h) checks
// the files against it. The text is deterministic (fixed key order, sorted entries, no
// times): rendering the same attempt twice gives the same manifest byte for byte, which is
// how a re-render is told from a different attempt.
//
// parse_manifest() refuses anything but a complete, well-formed manifest (corrupt).
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/attempt_layout.h"

namespace tpslurm::storage {

inline constexpr std::string_view kManifestFile = "manifest.json";

struct ManifestFile {
  std::string path;  // relative to the attempt directory
  unsigned mode = 0;
  std::uint64_t size = 0;
  std::string sha256;

  bool operator==(const ManifestFile&) const = default;
};

struct Manifest {
  std::string job_id;
  int attempt = 0;
  std::string submit_token;
  std::string image_path;    // relative to the storage root
  std::string image_sha256;  // verified before the manifest was written
  std::vector<model::AttemptDirectory> directories;
  std::vector<ManifestFile> files;
  std::vector<model::AttemptLog> logs;

  bool operator==(const Manifest&) const = default;
};

// Sorts directories and files by path, then serialises.
std::string manifest_json(Manifest manifest);

Result<Manifest> parse_manifest(std::string_view text, const std::string& source);

}  // namespace tpslurm::storage
