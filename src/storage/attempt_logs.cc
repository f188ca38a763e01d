#include "storage/attempt_logs.h"

#include <algorithm>

#include "base/file_system.h"
#include "storage/attempt_directory.h"
#include "storage/attempt_tree.h"

namespace tpslurm::storage {
namespace {

// The manifest is the daemon's own file, but a log path is about to be opened with the
// daemon's rights: anything that could reach outside the attempt directory is refused.
Status check_relative(const std::string& path, const std::string& manifest) {
  if (path.empty()) return corrupt(manifest + " names a log with an empty path");
  if (path.front() == '/') {
    return corrupt(manifest + " names log path " + path + ", which is absolute; refusing to read outside the attempt");
  }
  for (std::size_t start = 0; start <= path.size();) {
    const std::size_t slash = std::min(path.find('/', start), path.size());
    if (path.compare(start, slash - start, "..") == 0) {
      return corrupt(manifest + " names log path " + path + ", which climbs out with \"..\"; refusing to read it");
    }
    start = slash + 1;
  }
  return ok_status();
}

Result<LogTail> read_one(const std::string& dir, const std::string& path, const std::string& manifest,
                         const LogSelection& selection) {
  if (Status checked = check_relative(path, manifest); !checked.ok()) return checked.error();
  // The job writes in logs/: neither the log nor a directory on its way is followed if it is
  // a link, and a FIFO is not read.
  auto file = open_in_attempt(dir, path, Expect::file);
  if (!file.ok()) {
    if (file.error().kind() == ErrorKind::not_found) return LogTail{};
    return file.error();
  }
  if (selection.offset) {
    return read_log_page(file->fd.get(), file->path, *selection.offset, selection.growing, selection.limits);
  }
  return read_log_tail(file->fd.get(), file->path, selection.limits);
}

std::string component_list(const std::vector<model::AttemptLog>& logs) {
  std::vector<int> components;
  for (const auto& log : logs) components.push_back(log.component);
  std::sort(components.begin(), components.end());
  components.erase(std::unique(components.begin(), components.end()), components.end());
  std::string out;
  for (int component : components) {
    if (!out.empty()) out += ", ";
    out += std::to_string(component);
    if (component < 0) out += " (the job's own log)";
  }
  return out.empty() ? "none" : out;
}

}  // namespace

std::string_view to_string(LogStream stream) { return stream == LogStream::out ? "stdout" : "stderr"; }

Result<std::vector<AttemptLogFile>> read_attempt_logs(const std::string& attempt_dir, const LogSelection& selection) {
  auto manifest = read_manifest(attempt_dir);
  if (!manifest.ok()) {
    if (manifest.error().kind() == ErrorKind::not_found) {
      return not_found(attempt_dir + " has no " + std::string(kManifestFile) +
                       ": the attempt never got its directory (not prepared yet, or preparing failed)");
    }
    return manifest.error();
  }
  const std::string manifest_path = join_path(attempt_dir, kManifestFile);
  std::vector<AttemptLogFile> files;
  for (const auto& log : manifest->logs) {
    if (selection.component && log.component != *selection.component) continue;
    const std::string& path = selection.stream == LogStream::out ? log.stdout_path : log.stderr_path;
    files.push_back(
        {log.name, log.component, selection.stream, path, read_one(attempt_dir, path, manifest_path, selection)});
  }
  if (files.empty() && selection.component) {
    return invalid_argument("no log of component " + std::to_string(*selection.component) +
                            "; the attempt's components are: " + component_list(manifest->logs));
  }
  return files;
}

}  // namespace tpslurm::storage
