// TemplateValue: the data a Mustache template is rendered with, as plain C++ values.
//
// A value is text, a flag, a list or an object (ordered fields). Text is what `{{name}}`
// prints (shell-quoted); flags, lists and objects drive `{{#name}}` sections. Keeping the
// Mustache library's own types out of this header keeps it out of every file that builds
// template data. Plain value type; thread-compatible.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpslurm::render {

class TemplateValue {
 public:
  enum class Kind { text, flag, list, object };

  TemplateValue() : m_kind(Kind::object) {}
  TemplateValue(std::string text) : m_kind(Kind::text), m_text(std::move(text)) {}    // NOLINT: implicit by design
  TemplateValue(const char* text) : m_kind(Kind::text), m_text(text) {}               // NOLINT
  TemplateValue(std::string_view text) : m_kind(Kind::text), m_text(text) {}          // NOLINT
  TemplateValue(bool flag) : m_kind(Kind::flag), m_flag(flag) {}                      // NOLINT
  TemplateValue(int number) : m_kind(Kind::text), m_text(std::to_string(number)) {}   // NOLINT
  TemplateValue(long number) : m_kind(Kind::text), m_text(std::to_string(number)) {}  // NOLINT

  static TemplateValue list(std::vector<TemplateValue> items = {}) {
    TemplateValue value;
    value.m_kind = Kind::list;
    value.m_items = std::move(items);
    return value;
  }
  static TemplateValue object() { return TemplateValue(); }

  // Object fields; set() replaces a field of the same name.
  TemplateValue& set(std::string name, TemplateValue value);
  // List items.
  TemplateValue& push(TemplateValue value);

  Kind kind() const { return m_kind; }
  const std::string& text() const { return m_text; }
  bool flag() const { return m_flag; }
  const std::vector<TemplateValue>& items() const { return m_items; }
  const std::vector<std::pair<std::string, TemplateValue>>& fields() const { return m_fields; }

 private:
  Kind m_kind;
  std::string m_text;
  bool m_flag = false;
  std::vector<TemplateValue> m_items;
  std::vector<std::pair<std::string, TemplateValue>> m_fields;
};

}  // namespace tpslurm::render
