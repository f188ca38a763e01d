// Canonical JSON text: object keys sorted bytewise at every level, no whitespace, scalars as
// Boost.JSON serialises them. Two requests that differ only in key order or spacing have the
// same canonical text, hence the same idempotency hash. Internal to model/.
#pragma once

#include <boost/json/value.hpp>
#include <string>

namespace tpslurm::model::detail {

std::string canonical_json(const boost::json::value& value);

}  // namespace tpslurm::model::detail
