#include "storage/attempt_directory.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <set>

#include "base/crash_point.h"
#include "base/digest.h"
#include "base/file_system.h"
#include "storage/atomic_file.h"
#include "storage/attempt_removal.h"
#include "storage/attempt_tree.h"
#include "storage/granted_access.h"
#include "storage/layout.h"
#include "storage/storage_group.h"
#include "storage/unix_user.h"
#include "storage/user_acl.h"

namespace tpslurm::storage {
namespace {

// Files copied into an attempt are credentials and small inputs, never images.
constexpr std::size_t kMaxCopiedBytes = std::size_t{16} << 20;
constexpr std::size_t kMaxManifestBytes = std::size_t{4} << 20;
// Evidence the batch script writes: a directory holding it has run and is never discarded.
constexpr std::string_view kEvidenceFiles[] = {model::kJobEvidenceFile, model::kExitEvidenceFile};

bool exists(const std::string& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0;
}

struct PreparedFile {
  std::string path;
  std::string bytes;
  unsigned mode;
};

Result<std::vector<PreparedFile>> prepare_files(const model::AttemptLayout& contents) {
  std::vector<PreparedFile> files;
  for (const auto& spec : contents.files) {
    if (spec.path.empty() || spec.path.front() == '/' || spec.path.find("..") != std::string::npos) {
      return invalid_argument("attempt file " + spec.path + " must be a relative path inside the attempt");
    }
    if (spec.copy_from.empty()) {
      files.push_back({spec.path, spec.content, spec.mode});
      continue;
    }
    auto bytes = read_file(spec.copy_from, kMaxCopiedBytes);
    if (!bytes.ok()) return bytes.error().with_context("copy into the attempt's " + spec.path);
    files.push_back({spec.path, std::move(*bytes), spec.mode});
  }
  return files;
}

Manifest build_manifest(const model::AttemptLayout& contents, const std::vector<PreparedFile>& files) {
  Manifest manifest;
  manifest.job_id = contents.job_id;
  manifest.attempt = contents.attempt;
  manifest.submit_token = contents.submit_token;
  manifest.image_path = contents.image.registry_path;
  manifest.image_sha256 = contents.image.sha256;
  manifest.directories = contents.directories;
  for (const auto& file : files) {
    manifest.files.push_back({file.path, file.mode, file.bytes.size(), sha256_hex(file.bytes)});
  }
  manifest.logs = contents.logs;
  return manifest;
}

Status discard_incomplete(const std::string& dir) {
  for (const auto evidence : kEvidenceFiles) {
    auto found = exists_in_attempt(dir, evidence);
    if (!found.ok()) return found.error();
    if (*found) {
      return corrupt("attempt directory " + dir + " has no complete manifest but holds " + std::string(evidence) +
                     " from a job that ran; it is not discarded automatically: inspect it and remove it by hand");
    }
  }
  // No job of this attempt ran (no evidence): the directory holds the daemon's render, so it
  // goes in one call, without a slice's limits; the fresh render needs it gone.
  WorkSlice whole = WorkSlice::unlimited();
  auto removed = remove_attempt_directory(dir, whole);
  if (!removed.ok()) return removed.error().with_context("discard the incomplete attempt directory");
  return ok_status();
}

Result<GrantedAccess> access_of(const model::AttemptLayout& contents) {
  return granted_access(contents.access(), contents.group, contents.unix_user);
}

// The directories above the attempt: in per-user mode the program's tree passable for every
// user, and the job's directory and its attempts/ passable for the job's user alone (the job's
// directory may exist already, the service account's alone: see job_credential.h).
Status make_parents(const std::string& dir, const GrantedAccess& access, std::set<std::string>& parents) {
  if (!access.user) return make_directories(dir, access.modes.directory, access.group);
  const std::string attempts = parent_directory(dir);
  const std::string job = parent_directory(attempts);
  if (Status made = make_directories(parent_directory(job), access.modes.tree); !made.ok()) return made;
  for (const std::string& path : {job, attempts}) {
    if (Status made = make_directory(path, access.modes.job, std::nullopt); !made.ok()) return made;
    if (Status given = access.give(path, false); !given.ok()) return given;
    parents.insert(parent_directory(path));
  }
  return ok_status();
}

Status write_fresh(const std::string& dir, const model::AttemptLayout& contents, const std::vector<PreparedFile>& files,
                   const std::string& manifest_text) {
  auto access = access_of(contents);
  if (!access.ok()) return access.error();
  const model::AttemptModes& modes = access->modes;
  // The directory is new (or was just discarded) and the manifest alone makes it complete, so
  // each file goes straight to its name; every directory that gained an entry is fsynced once.
  std::set<std::string> parents{dir};
  if (Status made = make_parents(dir, *access, parents); !made.ok()) return made;
  if (Status mode = make_directory(dir, modes.directory, access->group); !mode.ok()) return mode;
  if (Status given = access->give(dir, false); !given.ok()) return given;
  for (const auto& sub : contents.directories) {
    const std::string path = join_path(dir, sub.path);
    if (Status made = make_directory(path, sub.mode, access->group); !made.ok()) return made;
    if (Status given = access->give(path, (sub.mode & 020u) != 0); !given.ok()) {
      return given;
    }
    parents.insert(parent_directory(path));
  }
  for (const auto& file : files) {
    const std::string path = join_path(dir, file.path);
    Status written = write_new_file(path, file.bytes, static_cast<mode_t>(file.mode), access->group);
    if (!written.ok()) return written;
    if (Status given = access->give(path, false); !given.ok()) return given;
    parents.insert(parent_directory(path));
  }
  for (const auto& parent : parents) {
    if (Status synced = fsync_directory(parent); !synced.ok()) return synced;
  }
  crash_point("attempt_dir.before_manifest");
  return write_file_atomically(join_path(dir, kManifestFile), manifest_text, modes.manifest, Overwrite::no,
                               access->group);
}

Status check_file(const std::string& dir, const ManifestFile& entry) {
  auto file = open_in_attempt(dir, entry.path, Expect::file);
  if (!file.ok()) {
    if (file.error().kind() == ErrorKind::not_found) {
      return corrupt("attempt " + dir + ": " + entry.path + " is missing (" + file.error().message() + ")");
    }
    return corrupt("attempt " + dir + ": " + entry.path + " is no longer a regular file (" + file.error().message() +
                   ")");
  }
  const struct stat& info = file->info;
  if ((info.st_mode & 07777u) != entry.mode) {
    return corrupt("attempt " + dir + ": " + entry.path + " has mode " + mode_text(info.st_mode) + ", expected " +
                   mode_text(entry.mode));
  }
  auto actual = sha256_open_file(file->fd.get(), file->path);
  if (!actual.ok()) return actual.error().with_context("attempt " + dir);
  if (static_cast<std::uint64_t>(info.st_size) != entry.size || *actual != entry.sha256) {
    return corrupt("attempt " + dir + ": " + entry.path + " changed since it was written (expected sha256 " +
                   entry.sha256 + ", found " + *actual + ")");
  }
  return ok_status();
}

}  // namespace

Result<Manifest> read_manifest(const std::string& dir) {
  auto text = read_attempt_file(dir, kManifestFile, kMaxManifestBytes);
  if (!text.ok()) return text.error();
  return parse_manifest(*text, join_path(dir, kManifestFile));
}

Status verify_manifest(const std::string& dir) {
  auto manifest = read_manifest(dir);
  if (!manifest.ok()) {
    if (manifest.error().kind() == ErrorKind::not_found) {
      return not_found("attempt " + dir + " has no manifest: it was never completely written");
    }
    return manifest.error();
  }
  for (const auto& sub : manifest->directories) {
    if (!open_in_attempt(dir, sub.path, Expect::directory).ok()) {
      return corrupt("attempt " + dir + ": directory " + sub.path + " is missing");
    }
  }
  for (const auto& file : manifest->files) {
    if (Status checked = check_file(dir, file); !checked.ok()) return checked;
  }
  return ok_status();
}

Status verify_manifest(const std::string& dir, ArtifactHasher& hasher, const std::string& storage_root) {
  if (Status files = verify_manifest(dir); !files.ok()) return files;
  auto manifest = read_manifest(dir);
  if (!manifest.ok()) return manifest.error();
  return hasher.verify(join_path(storage_root, manifest->image_path), manifest->image_sha256);
}

Result<Manifest> attempt_manifest(const model::AttemptLayout& contents) {
  auto files = prepare_files(contents);
  if (!files.ok()) return files.error();
  return build_manifest(contents, *files);
}

Result<WriteOutcome> write_attempt_directory(const std::string& dir, const model::AttemptLayout& contents,
                                             ArtifactHasher& hasher) {
  if (Status image = hasher.verify(contents.image.local_path, contents.image.sha256); !image.ok()) return image.error();
  auto files = prepare_files(contents);
  if (!files.ok()) return files.error();
  const std::string manifest_text = manifest_json(build_manifest(contents, *files));

  WriteOutcome outcome = WriteOutcome::written;
  if (exists(dir)) {
    auto existing = read_attempt_file(dir, kManifestFile, kMaxManifestBytes);
    const bool complete = existing.ok() && parse_manifest(*existing, dir).ok();
    if (complete) {
      if (*existing != manifest_text) {
        return corrupt("attempt directory " + dir +
                                " already holds a complete attempt with different content; a complete attempt is "
                                "never rewritten (a retry is a new attempt number)");
      }
      if (Status same = verify_manifest(dir); !same.ok()) return same.error();
      return WriteOutcome::already_complete;
    }
    if (Status discarded = discard_incomplete(dir); !discarded.ok()) return discarded.error();
    outcome = WriteOutcome::rewritten;
  }
  if (Status written = write_fresh(dir, contents, *files, manifest_text); !written.ok()) return written.error();
  return outcome;
}

}  // namespace tpslurm::storage
