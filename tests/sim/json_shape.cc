#include "json_shape.h"

#include <boost/json/serialize.hpp>

#include <algorithm>

namespace tpslurm::sim::test {

namespace json = boost::json;

namespace {

std::string kind_name(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: return "null";
    case json::kind::bool_: return "bool";
    case json::kind::int64:
    case json::kind::uint64: return "integer";
    case json::kind::double_: return "double";
    case json::kind::string: return "string";
    case json::kind::array: return "array";
    case json::kind::object: return "object";
  }
  return "?";
}

bool is_scalar(const json::value& v) { return !v.is_array() && !v.is_object(); }

// {"0": ..., "1": ...}: a map keyed by index, not a record.
bool is_index_map(const json::object& o) {
  if (o.empty()) return false;
  for (const auto& kv : o) {
    if (kv.key().empty()) return false;
    for (char c : kv.key()) {
      if (c < '0' || c > '9') return false;
    }
  }
  return true;
}

void diff(const json::value& sim, const json::value& real, const std::string& path,
          const std::vector<std::string>& lists, std::vector<std::string>& out) {
  if (kind_name(sim) != kind_name(real)) {
    out.push_back(path + ": simulator has " + kind_name(sim) + ", real has " + kind_name(real));
    return;
  }
  if (sim.is_object()) {
    const auto& a = sim.get_object();
    const auto& b = real.get_object();
    if (is_index_map(a) && is_index_map(b)) {
      const json::value& shape = b.begin()->value();
      for (const auto& kv : a) diff(kv.value(), shape, path + "/" + std::string(kv.key()), lists, out);
      return;
    }
    std::vector<std::string> ka;
    std::vector<std::string> kb;
    for (const auto& kv : a) ka.emplace_back(kv.key());
    for (const auto& kv : b) kb.emplace_back(kv.key());
    for (const auto& k : kb) {
      if (!a.contains(k)) out.push_back(path + "/" + k + ": missing in simulator");
    }
    for (const auto& k : ka) {
      if (!b.contains(k)) out.push_back(path + "/" + k + ": not in the real answer");
    }
    if (out.empty() && ka != kb) out.push_back(path + ": same keys in a different order");
    for (const auto& kv : b) {
      if (const json::value* mine = a.if_contains(kv.key())) {
        diff(*mine, kv.value(), path + "/" + std::string(kv.key()), lists, out);
      }
    }
    return;
  }
  if (sim.is_array()) {
    const auto& a = sim.get_array();
    const auto& b = real.get_array();
    const bool scalars = (b.empty() || is_scalar(b[0])) && (a.empty() || is_scalar(a[0]));
    if (scalars) {
      if (!a.empty() && !b.empty()) {
        for (std::size_t i = 0; i < a.size(); ++i) {
          if (kind_name(a[i]) != kind_name(b[0])) {
            out.push_back(path + "[" + std::to_string(i) + "]: simulator has " + kind_name(a[i]) + ", real has " +
                          kind_name(b[0]));
          }
        }
      }
      return;
    }
    if (std::find(lists.begin(), lists.end(), path) != lists.end()) {
      if (!b.empty() && a.empty())
        out.push_back(path + ": simulator has no elements, real has " + std::to_string(b.size()));
      if (b.empty()) return;
      for (std::size_t i = 0; i < a.size(); ++i) diff(a[i], b[0], path + "[" + std::to_string(i) + "]", lists, out);
      return;
    }
    if (a.size() != b.size()) {
      out.push_back(path + ": simulator has " + std::to_string(a.size()) + " elements, real has " +
                    std::to_string(b.size()));
      return;
    }
    for (std::size_t i = 0; i < a.size(); ++i) diff(a[i], b[i], path + "[" + std::to_string(i) + "]", lists, out);
  }
}

const json::value& resolve(const json::value& schema, const json::object& schemas) {
  const json::value* s = &schema;
  while (s->is_object() && s->get_object().contains("$ref")) {
    std::string ref(s->get_object().at("$ref").as_string());
    s = &schemas.at(ref.substr(ref.rfind('/') + 1));
  }
  return *s;
}

void check(const json::value& value, const json::value& schema_in, const json::object& schemas, const std::string& path,
           std::vector<std::string>& out) {
  const json::value& schema = resolve(schema_in, schemas);
  const json::object& s = schema.get_object();
  std::string type = s.contains("type") ? std::string(s.at("type").as_string()) : "";
  if (type == "object") {
    if (value.is_null()) return;  // slurmrestd dumps an unset object as null
    if (!value.is_object()) {
      out.push_back(path + ": expected object, got " + kind_name(value));
      return;
    }
    if (const json::value* props = s.if_contains("properties")) {
      const json::object& p = props->get_object();
      for (const auto& kv : p) {
        const json::value* v = value.get_object().if_contains(kv.key());
        if (!v) {
          out.push_back(path + "/" + std::string(kv.key()) + ": missing");
          continue;
        }
        check(*v, kv.value(), schemas, path + "/" + std::string(kv.key()), out);
      }
      for (const auto& kv : value.get_object()) {
        if (!p.contains(kv.key())) out.push_back(path + "/" + std::string(kv.key()) + ": not in the schema");
      }
    }
    return;
  }
  if (type == "array") {
    if (!value.is_array()) {
      out.push_back(path + ": expected array, got " + kind_name(value));
      return;
    }
    if (const json::value* items = s.if_contains("items")) {
      std::size_t i = 0;
      for (const auto& v : value.get_array()) check(v, *items, schemas, path + "[" + std::to_string(i++) + "]", out);
    }
    return;
  }
  if (type == "string") {
    if (!value.is_string()) {
      out.push_back(path + ": expected string, got " + kind_name(value));
      return;
    }
    if (const json::value* e = s.if_contains("enum")) {
      bool found = false;
      for (const auto& item : e->get_array()) found = found || (item.is_string() && item.get_string() == value.get_string());
      if (!found) out.push_back(path + ": \"" + std::string(value.get_string()) + "\" is not in the enum");
    }
    return;
  }
  if (type == "integer") {
    if (!value.is_int64() && !value.is_uint64()) out.push_back(path + ": expected integer, got " + kind_name(value));
    return;
  }
  if (type == "number") {
    if (!value.is_double() && !value.is_int64() && !value.is_uint64()) out.push_back(path + ": expected number, got " + kind_name(value));
    return;
  }
  if (type == "boolean") {
    if (!value.is_bool()) out.push_back(path + ": expected boolean, got " + kind_name(value));
    return;
  }
  // Untyped items: string enums (state flags) carry an enum without "type".
  if (const json::value* e = s.if_contains("enum"); e && value.is_string()) {
    bool found = false;
    for (const auto& item : e->get_array()) found = found || (item.is_string() && item.get_string() == value.get_string());
    if (!found) out.push_back(path + ": \"" + std::string(value.get_string()) + "\" is not in the enum");
  }
}

}  // namespace

std::vector<std::string> shape_diff(const json::value& simulator, const json::value& real,
                                    const std::vector<std::string>& lists) {
  std::vector<std::string> out;
  diff(simulator, real, "", lists, out);
  return out;
}

std::vector<std::string> schema_diff(const json::value& value, const json::value& spec, const std::string& schema_name) {
  std::vector<std::string> out;
  const json::object& schemas = spec.at("components").at("schemas").as_object();
  check(value, schemas.at(schema_name), schemas, "", out);
  return out;
}

std::vector<std::int64_t> error_numbers(const json::value& body) {
  std::vector<std::int64_t> out;
  if (!body.is_object()) return out;
  const json::value* errors = body.get_object().if_contains("errors");
  if (!errors || !errors->is_array()) return out;
  for (const auto& e : errors->get_array()) {
    const json::object& o = e.as_object();
    if (const json::value* n = o.if_contains("error_number")) {
      out.push_back(n->to_number<std::int64_t>());
    } else if (const json::value* c = o.if_contains("error_code")) {
      out.push_back(c->to_number<std::int64_t>());
    } else {
      out.push_back(0);
    }
  }
  return out;
}

std::vector<std::int64_t> status_codes(const json::value& body) {
  std::vector<std::int64_t> out;
  const json::value* status = body.is_object() ? body.get_object().if_contains("status") : nullptr;
  if (!status || !status->is_array()) return out;
  for (const auto& s : status->get_array()) out.push_back(s.at("error").at("code").to_number<std::int64_t>());
  return out;
}

std::vector<std::string> job_states(const json::value& body) {
  std::vector<std::string> out;
  const json::value* jobs = body.is_object() ? body.get_object().if_contains("jobs") : nullptr;
  if (!jobs || !jobs->is_array()) return out;
  for (const auto& j : jobs->get_array()) {
    const json::object& o = j.as_object();
    const json::value* state = o.if_contains("job_state");
    if (!state) state = o.if_contains("state");
    if (!state) {
      out.emplace_back("?");
      continue;
    }
    if (state->is_string()) {
      out.emplace_back(state->get_string());
      continue;
    }
    std::string joined;
    for (const auto& s : state->as_array()) joined += (joined.empty() ? "" : ",") + std::string(s.as_string());
    out.push_back(joined);
  }
  return out;
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "\n  " + l;
  return out;
}

}  // namespace tpslurm::sim::test
