// The rule for paths relative to the storage root (mount sources, artifact paths): not
// absolute, no `..` or `.` components, no empty components, no `,` or `:` (the container
// runtimes' bind lists split on them). Internal to model/.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tpslurm::model::detail {

// Why `path` is not acceptable, or nullopt when it is.
std::optional<std::string> relative_path_problem(std::string_view path);

}  // namespace tpslurm::model::detail
