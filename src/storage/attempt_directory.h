// Attempt directories on the shared filesystem: written once, completely, or not at all.
//
// write_attempt_directory() first verifies the image (through the ArtifactHasher, so a
// manifest never records an image that was not checked), then creates the directory, its
// subdirectories and files (each fsynced, then every directory holding them once) and writes
// manifest.json last, atomically (temp file, fsync, link, fsync of the directory). So:
//   - no directory                       -> written;
//   - a complete manifest, same content  -> left alone (already_complete), after checking the
//                                           files still match it;
//   - a complete manifest, other content -> corrupt: a complete attempt is never rewritten
//                                           (a retry is a new attempt number);
//   - no complete manifest (a crash)     -> discarded and written again (rewritten), unless
//                                           the job left evidence there (logs/slurm-job.json
//                                           or exit.json): then corrupt, for an operator.
// verify_manifest() re-checks a written directory against its manifest (used before a delayed
// submit): every file present, regular, same mode, size and SHA-256; with an ArtifactHasher
// also the image. Errors name the file and what differs.
//
// A job may have written into logs/ and scratch/ of a directory read back, so reading the
// manifest, verifying, looking for evidence and discarding go through attempt_tree.h: no link
// below the attempt directory is followed, no special file opened. Writing creates names only
// in the attempt directory and credentials/, which no job can write (the service account's,
// before any job of the attempt ran), and never through logs/ or scratch/.
//
// In per-user mode (the layout names the job's Unix user) every directory and file also gets
// an ACL entry for that user (storage/user_acl.h, model::FileAccess::per_user): the attempt and
// its files to read, logs/ and scratch/ to write (with a default ACL that keeps what the job
// makes there readable and removable by the service account), the job's directory and its
// attempts/ to pass through; the tree above the jobs is made passable for every user (0711).
// The ACLs are set before the manifest, so a directory with a manifest has them all.
//
// Functions are thread-compatible: two writers of the same directory at once are not
// supported (the reconciler prepares one attempt at a time).
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "model/attempt_layout.h"
#include "storage/artifact_hash.h"
#include "storage/manifest.h"

namespace tpslurm::storage {

enum class WriteOutcome { written, already_complete, rewritten };

Result<WriteOutcome> write_attempt_directory(const std::string& dir, const model::AttemptLayout& layout,
                                             ArtifactHasher& hasher);

// The manifest write_attempt_directory() writes for `contents` (reads the files to copy; does
// not check the image): what `render --json` shows without writing anything.
Result<Manifest> attempt_manifest(const model::AttemptLayout& layout);

// The manifest of a complete attempt directory (not_found if it has none).
Result<Manifest> read_manifest(const std::string& dir);

Status verify_manifest(const std::string& dir);
// Also re-verifies the image, found at storage_root + the manifest's image path.
Status verify_manifest(const std::string& dir, ArtifactHasher& hasher, const std::string& storage_root);

}  // namespace tpslurm::storage
