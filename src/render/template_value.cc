#include "render/template_value.h"

#include <cstdlib>

namespace tpslurm::render {

TemplateValue& TemplateValue::set(std::string name, TemplateValue value) {
  if (m_kind != Kind::object) std::abort();
  for (auto& field : m_fields) {
    if (field.first == name) {
      field.second = std::move(value);
      return *this;
    }
  }
  m_fields.emplace_back(std::move(name), std::move(value));
  return *this;
}

TemplateValue& TemplateValue::push(TemplateValue value) {
  if (m_kind != Kind::list) std::abort();
  m_items.push_back(std::move(value));
  return *this;
}

}  // namespace tpslurm::render
