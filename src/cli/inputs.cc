#include "cli/inputs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <iostream>
#include <iterator>

#include "base/file_system.h"
#include "base/operator_file.h"
#include "storage/unix_user.h"

namespace tpslurm::cli {
namespace {

Result<std::string> read_setting_file(const std::string& key, const std::string& path, std::string_view command) {
  if (path.empty()) {
    return invalid_argument(key + " is not set; `" + std::string(command) +
                            "` needs it (see etc/tuneplane-slurm.env.example)");
  }
  auto text = read_operator_file(path, ::geteuid());
  if (!text.ok()) return text.error().with_context(key);
  return text;
}

// One catalog file: read, parsed, or its problems added to `problems`.
template <class Catalog>
std::optional<Catalog> load_catalog(const std::string& key, const std::string& path, std::string_view command,
                                    model::Problems& problems) {
  auto text = read_setting_file(key, path, command);
  if (!text.ok()) {
    problems.add("", text.error().message());
    return std::nullopt;
  }
  auto parsed = Catalog::parse(*text, path);
  if (!parsed.ok()) {
    problems.append(parsed.error());
    return std::nullopt;
  }
  return std::move(*parsed);
}

}  // namespace

Result<Catalogs, model::Problems> load_catalogs(const model::Settings& settings, std::string_view command) {
  model::Problems problems;
  auto gpu_series = load_catalog<model::GpuSeriesCatalog>("TUNEPLANE_GPU_SERIES_FILE", settings.gpu_series_file,
                                                          command, problems);
  auto runtimes = load_catalog<model::RuntimeRegistry>("TUNEPLANE_RUNTIME_REGISTRY_FILE",
                                                       settings.runtime_registry_file, command, problems);
  std::optional<model::UserMap> users;
  if (settings.identity_mode == model::IdentityMode::per_user) {
    users = load_catalog<model::UserMap>("TUNEPLANE_USER_MAP_FILE", settings.user_map_file, command, problems);
  }
  if (!problems.empty()) return problems;
  Catalogs catalogs{std::move(*gpu_series), std::move(*runtimes)};
  if (users) catalogs.users = storage::judge_users(std::move(*users), settings.first_user_id, ::geteuid());
  return catalogs;
}

Result<std::string> read_request(const std::string& path, std::size_t limit) {
  const std::size_t kLimit = limit;
  if (path == "-") {
    std::string text;
    char buffer[65536];
    while (std::cin.read(buffer, sizeof buffer) || std::cin.gcount() > 0) {
      text.append(buffer, static_cast<std::size_t>(std::cin.gcount()));
      // Keep one byte over the limit so the model names the limit in its refusal.
      if (text.size() > kLimit) break;
    }
    return text;
  }
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && static_cast<std::size_t>(info.st_size) > kLimit) {
    return invalid_argument(path + ": the request is " + std::to_string(info.st_size) + " bytes; the limit is " +
                            std::to_string(kLimit >> 20) + " MiB");
  }
  return read_file(path, kLimit + 1);
}

Result<model::LaunchRequest, model::Problems> load_request(const std::string& path, const Catalogs& catalogs,
                                                           const model::Settings& settings) {
  auto text = read_request(path);
  if (!text.ok()) {
    model::Problems problems;
    problems.add("", text.error().message());
    return problems;
  }
  return model::parse_launch_request(*text, model::validation_context(catalogs, settings));
}

Result<model::SweepRequest, model::Problems> load_sweep(const std::string& path, const Catalogs& catalogs,
                                                        const model::Settings& settings) {
  auto text = read_request(path, model::SweepLimits::max_body_bytes);
  if (!text.ok()) {
    model::Problems problems;
    problems.add("", text.error().message());
    return problems;
  }
  return model::parse_sweep_request(*text, model::validation_context(catalogs, settings));
}

}  // namespace tpslurm::cli
