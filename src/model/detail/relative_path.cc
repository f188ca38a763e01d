#include "model/detail/relative_path.h"

namespace tpslurm::model::detail {

std::optional<std::string> relative_path_problem(std::string_view path) {
  if (path.empty()) return "must not be empty";
  if (path.front() == '/') {
    return "absolute host paths are not allowed; give a path relative to the storage root (TUNEPLANE_STORAGE_ROOT)";
  }
  if (path.find_first_of(",:") != std::string_view::npos) {
    return "must not contain ',' or ':' (the container runtimes' bind lists split on them)";
  }
  std::string_view rest = path;
  while (true) {
    const auto slash = rest.find('/');
    const std::string_view part = rest.substr(0, slash);
    if (part == "..") return "must stay inside the storage root; remove the \"..\" components";
    if (part == "." || part.empty()) return "must be a normalised relative path (no \".\" or empty components)";
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  return std::nullopt;
}

}  // namespace tpslurm::model::detail
