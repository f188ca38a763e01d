// The rule for every path a container runtime parses: mount sources and targets, the working
// directory, the runtime registry's image paths, the storage root as the nodes see it and the
// attempt directory under it (docs/launch-request.md, "What a path may hold").
//
// Pyxis writes each mount into a configuration file that Enroot sources in bash on the node,
// escaping only blanks and backslashes; bind lists split on ',' and ':'; an fstab line or an
// option parser may give any other byte a meaning. So a path is held to an alphabet, not
// checked against a list of characters known to be dangerous:
//  - only ASCII letters, digits, '.', '_', '-' and '/';
//  - in normal form: no empty component ("//"), no "." or ".." component, no trailing '/'
//    (a lone "/" is the root's normal form). A path has one spelling, so the checks that
//    compare paths (a mount over the attempt directory, a source in the program's tree or on
//    an image, a target used twice or reserved) compare that spelling and no other spelling
//    passes them;
//  - absolute or relative, as its kind says.
//
// The validator, the registry and settings loaders, storage and the renderer all ask these
// functions, so a path is judged the same everywhere. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tpslurm::model {

enum class PathKind {
  container,  // absolute, inside the container: mount targets, the working directory
  host,       // absolute, as the cluster's hosts see it: the storage root, the attempt directory
  storage,    // relative to the storage root: mount sources, the registry's image paths
};

// Why `path` may not be given to a container runtime as a path of `kind` (the fix included),
// or nullopt when it may.
std::optional<std::string> runtime_path_problem(std::string_view path, PathKind kind);

// For two paths of one kind, both in normal form: `outer` is `inner` or a directory above it.
bool path_holds(std::string_view outer, std::string_view inner);
// Either holds the other.
bool paths_overlap(std::string_view a, std::string_view b);

}  // namespace tpslurm::model
