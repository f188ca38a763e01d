#include "control_body.h"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cctype>

#include "options.h"

namespace tpslurm::sim::control {

namespace json = boost::json;

HttpReply json_out(int status, const json::value& value) {
  HttpReply reply;
  reply.status = status;
  reply.body = json::serialize(value);
  return reply;
}

HttpReply fail(int status, std::string message) { return json_out(status, json::object{{"error", message}}); }

bool digits(const std::string& s) {
  return !s.empty() && s.size() <= 10 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

bool get_int(const json::object& obj, const char* key, std::optional<std::int64_t>& out, std::string& error) {
  const json::value* v = obj.if_contains(key);
  if (!v) return true;
  if (v->is_int64()) {
    out = v->get_int64();
  } else if (v->is_uint64()) {
    out = static_cast<std::int64_t>(v->get_uint64());
  } else if (v->is_double() && v->get_double() == static_cast<double>(static_cast<std::int64_t>(v->get_double()))) {
    out = static_cast<std::int64_t>(v->get_double());
  } else {
    error = std::string("\"") + key + "\" must be an integer";
    return false;
  }
  return true;
}

bool get_string(const json::object& obj, const char* key, std::optional<std::string>& out, std::string& error) {
  const json::value* v = obj.if_contains(key);
  if (!v) return true;
  if (!v->is_string()) {
    error = std::string("\"") + key + "\" must be a string";
    return false;
  }
  out = std::string(v->get_string());
  return true;
}

bool get_bool(const json::object& obj, const char* key, std::optional<bool>& out, std::string& error) {
  const json::value* v = obj.if_contains(key);
  if (!v) return true;
  if (!v->is_bool()) {
    error = std::string("\"") + key + "\" must be true or false";
    return false;
  }
  out = v->get_bool();
  return true;
}

bool get_duration(const json::object& obj, const std::string& key, std::optional<std::int64_t>& out,
                  std::string& error) {
  if (!get_int(obj, (key + "_ms").c_str(), out, error)) return false;
  const json::value* v = obj.if_contains(key);
  if (!v) return true;
  if (v->is_string()) {
    auto ms = parse_millis(v->get_string());
    if (!ms) {
      error = "\"" + key + "\": " + ms.error().message();
      return false;
    }
    out = *ms;
    return true;
  }
  return get_int(obj, key.c_str(), out, error);
}

}  // namespace tpslurm::sim::control
