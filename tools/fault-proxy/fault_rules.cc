#include "fault_rules.h"

#include <array>
#include <utility>

namespace tpslurm::fault_proxy {
namespace {

constexpr std::array<std::pair<FaultKind, std::string_view>, 4> kKinds{{
    {FaultKind::lose_answer, "lose_answer"},
    {FaultKind::resend, "resend"},
    {FaultKind::delay, "delay"},
    {FaultKind::error_status, "error_status"},
}};

bool matches(const FaultRule& rule, std::string_view method, std::string_view path) {
  if (!rule.method.empty() && rule.method != method) return false;
  return path.size() >= rule.path_suffix.size() &&
         path.substr(path.size() - rule.path_suffix.size()) == rule.path_suffix;
}

}  // namespace

std::string_view to_string(FaultKind kind) {
  for (const auto& [k, name] : kKinds) {
    if (k == kind) return name;
  }
  return "unknown";
}

std::optional<FaultKind> parse_fault_kind(std::string_view text) {
  for (const auto& [kind, name] : kKinds) {
    if (name == text) return kind;
  }
  return std::nullopt;
}

std::int64_t FaultTable::add(FaultRule rule) {
  rule.id = m_next_id++;
  rule.hits = 0;
  m_rules.push_back(std::move(rule));
  return m_rules.back().id;
}

std::optional<FaultAction> FaultTable::take(std::string_view method, std::string_view path) {
  for (auto it = m_rules.begin(); it != m_rules.end(); ++it) {
    if (!matches(*it, method, path)) continue;
    const FaultAction action = it->action;
    ++it->hits;
    if (it->remaining > 0 && --it->remaining == 0) m_rules.erase(it);
    return action;
  }
  return std::nullopt;
}

}  // namespace tpslurm::fault_proxy
