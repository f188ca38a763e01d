#include "update_request.h"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <cctype>

#include "slurm_errors.h"
#include "submit_fields.h"
#include "submit_values.h"

namespace tpslurm::sim {

namespace json = boost::json;

using submit_detail::lower;
using submit_detail::type_name;

namespace {

UpdateParse parse_v4x(const json::value& root, Dialect dialect) {
  UpdateParse out;
  auto refuse = [&]() {
    out.diag.error(err::kRestInvalidQuery, "Rejecting request. Failure parsing job update request.",
                   "_job_post_update");
    out.refused = true;
    out.rc = err::kRestInvalidQuery;
    out.hold.reset();
    return out;
  };
  if (!root.is_object()) return refuse();
  for (const auto& kv : root.get_object()) {
    const std::string key(kv.key());
    const json::value& v = kv.value();
    if (!is_known_field_v4x(dialect, key)) {
      out.diag.warn("Ignoring unknown field \"" + key + "\" of type " + type_name(v) + " in #", "_job_post_update");
      continue;
    }
    if (key == "hold") {
      if (v.is_null()) continue;
      if (!v.is_bool()) return refuse();
      out.hold = v.get_bool();
    }
  }
  return out;
}

UpdateParse parse_v38(const json::value& root, const std::string& client) {
  UpdateParse out;
  // _handle_job_post: the parse failure is reported, yet the handler returns SLURM_SUCCESS.
  auto failed = [&]() {
    out.diag.error(err::kRestFailParsing, "job parsing failed for " + client, "_parse_job_list");
    out.refused = true;
    out.hold.reset();
    return out;
  };
  if (root.is_array()) {
    out.diag.errors.push_back(
        {0, "unexpected het job request from " + client, "_parse_job_list", ErrorItem::Form::no_number, {}});
    out.refused = true;
    return out;
  }
  if (!root.is_object()) {
    out.diag.error(err::kRestInvalidJobsDesc, "job parsing failed for " + client, "_parse_job_list");
    out.refused = true;
    return out;
  }
  for (const auto& kv : root.get_object()) {
    const std::string key = lower(kv.key());
    const json::value& v = kv.value();
    switch (classify_key_v38(key)) {
      case V38Key::unknown:
        out.diag.errors.push_back({0, "Unknown key \"" + key + "\"", "hsearch_r", ErrorItem::Form::no_number, {}});
        return failed();
      case V38Key::disabled:
        out.diag.errors.push_back(
            {0, "Disabled key: \"" + key + "\"", "openapi specification", ErrorItem::Form::no_number, {}});
        return failed();
      case V38Key::known: break;
    }
    if (key == "hold") {
      if (!v.is_bool()) {
        out.diag.error(err::kUnspecified, "Unable to process key \"hold\"", "slurm_process_option_data");
        return failed();
      }
      out.hold = v.get_bool();
    }
  }
  return out;
}

}  // namespace

UpdateParse parse_update(std::string_view body, Dialect dialect, const std::string& client) {
  boost::system::error_code ec;
  json::value root = json::parse(body, ec);
  if (ec) {
    UpdateParse out;
    out.unparsable_body = true;
    out.refused = true;
    out.rc = err::kRestFailParsing;
    return out;
  }
  return is_v4x(dialect) ? parse_v4x(root, dialect) : parse_v38(root, client);
}

}  // namespace tpslurm::sim
