// JsonWriter: streams JSON text laid out the way slurmrestd prints it.
//
// slurmrestd serialises with json-c in "pretty" mode: two-space indentation, one member
// per line, empty containers still broken over two lines ("[\n  ]"), "/" escaped as "\/",
// doubles always with a fraction ("1.0"), non-ASCII UTF-8 passed through untouched, and
// no newline after the closing brace. Clients never need the layout, but byte counts in
// benchmarks do, so the simulator reproduces it.
//
// The writer streams straight into a string (no DOM): a full job list of 100,000 jobs is
// rendered without building a tree first. Misuse (a value without a key inside an
// object, unbalanced end_*) is a programming error and aborts. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tpslurm::sim {

class JsonWriter {
 public:
  JsonWriter() = default;

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);

  JsonWriter& string(std::string_view value);
  JsonWriter& integer(std::int64_t value);
  JsonWriter& number(double value);
  JsonWriter& boolean(bool value);
  JsonWriter& null();
  // Inserts already-serialised JSON as one value (used for canned fragments).
  JsonWriter& raw(std::string_view json);

  // Shorthands for "key": value.
  JsonWriter& str_field(std::string_view name, std::string_view value) { return key(name).string(value); }
  JsonWriter& int_field(std::string_view name, std::int64_t value) { return key(name).integer(value); }
  JsonWriter& bool_field(std::string_view name, bool value) { return key(name).boolean(value); }
  JsonWriter& null_field(std::string_view name) { return key(name).null(); }
  JsonWriter& empty_array_field(std::string_view name) { return key(name).begin_array().end_array(); }
  JsonWriter& string_array_field(std::string_view name, const std::vector<std::string>& values);
  JsonWriter& string_array_field(std::string_view name, const std::vector<std::string_view>& values);

  std::size_t size() const { return m_out.size(); }
  const std::string& str() const { return m_out; }
  std::string take() { return std::move(m_out); }

 private:
  struct Level {
    bool is_object;
    std::size_t count;
  };
  void before_value();
  void newline_indent(std::size_t depth);
  void close(bool is_object, char bracket);

  std::string m_out;
  std::vector<Level> m_stack;
  bool m_after_key = false;
};

// Appends `value` as a JSON string literal with json-c's escaping.
void append_json_string(std::string& out, std::string_view value);

}  // namespace tpslurm::sim
