// The common shape of the two catalogs: `{ "<top key>": { "<name>": { ...fields... }, ... } }`.
// parse_catalog() reads untrusted text within the catalog limits, checks that shape, and
// calls `entry` with each entry's name and a Fields over its object; every problem is
// collected with the file name in its path. Internal to model/.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "model/detail/json_fields.h"
#include "model/problems.h"

namespace tpslurm::model::detail {

// Returns the problems found (empty when the document is good).
Problems parse_catalog(std::string_view text, std::string_view source, std::string_view top_key,
                       const std::function<void(const std::string& name, Fields& fields)>& entry);

}  // namespace tpslurm::model::detail
