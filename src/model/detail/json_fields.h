// Fields: typed, path-aware access to one JSON object of untrusted input.
//
// Internal to model/ .cc files. Every accessor records the key as known, checks the type and
// range, and on a defect adds a Problem naming the full path (`spec.pools[1].nodes`), the value
// and what is expected, then returns nullopt so validation continues and collects everything.
// reject_unknown() reports every key no accessor asked for: a typo must not drop a setting.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "model/problems.h"

namespace tpslurm::model::detail {

enum class Need { required, optional };

// A JSON value as a problem message shows it: strings quoted, the rest serialised, cut short.
std::string show(const boost::json::value& value);

// `path` + "." + key, or key alone at the top; `path` + "[i]".
std::string child_path(std::string_view path, std::string_view key);
std::string index_path(std::string_view path, std::size_t index);

class Fields {
 public:
  Fields(const boost::json::object& object, std::string path, Problems& problems)
      : m_object(object), m_path(std::move(path)), m_problems(problems) {}

  const std::string& path() const { return m_path; }
  std::string path_of(std::string_view key) const { return child_path(m_path, key); }
  Problems& problems() { return m_problems; }

  // The raw value (or nullptr), marking the key known; `required` reports a missing key.
  const boost::json::value* get(std::string_view key, Need need = Need::optional);
  bool has(std::string_view key) const { return m_object.contains(key); }

  // A string without NUL bytes; `non_empty` refuses "".
  std::optional<std::string> string(std::string_view key, Need need, bool non_empty = true);
  std::optional<std::int64_t> integer(std::string_view key, Need need, std::int64_t min, std::int64_t max);
  std::optional<double> number(std::string_view key, Need need, double min, double max);
  std::optional<bool> boolean(std::string_view key, Need need);
  const boost::json::object* object(std::string_view key, Need need);
  const boost::json::array* array(std::string_view key, Need need);

  // Every key present but never asked for is an unknown field.
  void reject_unknown();

 private:
  const boost::json::object& m_object;
  std::string m_path;
  Problems& m_problems;
  std::set<std::string, std::less<>> m_known;
};

// Checks one string value found at `path` (type, NUL bytes, emptiness); used for array items
// and object values that are not reached through Fields.
std::optional<std::string> string_at(const boost::json::value& value, const std::string& path, Problems& problems,
                                     bool non_empty = true);

}  // namespace tpslurm::model::detail
