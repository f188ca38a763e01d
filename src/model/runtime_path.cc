#include "model/runtime_path.h"

#include <vector>

#include "model/problems.h"

namespace tpslurm::model {
namespace {

constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-/";

// The components between slashes, empty ones included; an absolute path's leading '/' begins
// none ("/a//b/" -> "a", "", "b", "").
std::vector<std::string_view> components(std::string_view path) {
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  std::vector<std::string_view> parts;
  while (true) {
    const auto slash = path.find('/');
    parts.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) return parts;
    path.remove_prefix(slash + 1);
  }
}

// The same path without empty and "." components (empty for a relative path that names
// nothing below its root).
std::string normal_form(std::string_view path) {
  const bool absolute = path.front() == '/';
  std::string out;
  for (const std::string_view part : components(path)) {
    if (part.empty() || part == ".") continue;
    if (absolute || !out.empty()) out += '/';
    out += part;
  }
  return absolute && out.empty() ? "/" : out;
}

std::optional<std::string> kind_problem(std::string_view path, PathKind kind) {
  const bool absolute = path.front() == '/';
  switch (kind) {
    case PathKind::container:
      if (!absolute) return "must be an absolute path inside the container";
      break;
    case PathKind::host:
      if (!absolute) return "must be an absolute path";
      break;
    case PathKind::storage:
      if (absolute) {
        return "absolute host paths are not allowed; give a path relative to the storage root "
               "(TUNEPLANE_STORAGE_ROOT)";
      }
      break;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> runtime_path_problem(std::string_view path, PathKind kind) {
  if (path.empty()) return "must not be empty";
  if (auto why = kind_problem(path, kind)) return why;
  if (path.find_first_not_of(kAlphabet) != std::string_view::npos) {
    return "may hold only ASCII letters, digits, '.', '_', '-' and '/' (the container runtimes parse it on the "
           "nodes, Enroot in a shell); rename the path";
  }
  if (path == "/") return std::nullopt;
  bool normal = true;
  for (const std::string_view part : components(path)) {
    if (part == "..") {
      return kind == PathKind::storage ? "must stay inside the storage root; remove the \"..\" components"
                                       : "must not contain \"..\" components; write the path without them";
    }
    normal = normal && !part.empty() && part != ".";
  }
  if (normal) return std::nullopt;
  const std::string fixed = normal_form(path);
  return "must be written in normal form, without \"//\", \".\" components or a trailing '/' (paths are compared "
         "as written); " +
         (fixed.empty() ? std::string("name a directory below the storage root") : "write it as " + quote_value(fixed));
}

bool path_holds(std::string_view outer, std::string_view inner) {
  if (outer == "/") return !inner.empty() && inner.front() == '/';
  if (inner.substr(0, outer.size()) != outer) return false;
  return inner.size() == outer.size() || inner[outer.size()] == '/';
}

bool paths_overlap(std::string_view a, std::string_view b) { return path_holds(a, b) || path_holds(b, a); }

}  // namespace tpslurm::model
