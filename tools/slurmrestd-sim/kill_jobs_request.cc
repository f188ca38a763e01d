#include "kill_jobs_request.h"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

namespace tpslurm::sim {

namespace json = boost::json;

KillJobsParse parse_kill_jobs(std::string_view body) {
  KillJobsParse out;
  boost::system::error_code ec;
  json::value root = json::parse(body, ec);
  if (ec) {
    out.unparsable_body = true;
    return out;
  }
  if (!root.is_object()) {
    out.refused = true;
    return out;
  }
  for (const auto& kv : root.get_object()) {
    const json::value& v = kv.value();
    if (kv.key() == "jobs") {
      if (!v.is_array()) {
        out.refused = true;
        return out;
      }
      for (const auto& item : v.get_array()) {
        if (!item.is_string()) {
          out.refused = true;
          return out;
        }
        out.jobs.emplace_back(item.get_string());
      }
    } else if (kv.key() == "signal") {
      if (v.is_int64()) {
        out.signal_number = v.get_int64();
      } else if (v.is_string()) {
        out.signal_name = std::string(v.get_string());
      } else {
        out.refused = true;
        return out;
      }
    } else if (out.unsupported.empty()) {
      out.unsupported = std::string(kv.key());
    }
  }
  return out;
}

}  // namespace tpslurm::sim
