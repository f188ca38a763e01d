// Name tables for enums: one array of {value, name} pairs per enum, looked up both ways.
// Internal to model/ .cc files.
#pragma once

#include <optional>
#include <string_view>
#include <utility>

namespace tpslurm::model::detail {

template <class Enum, class Table>
std::string_view name_of(const Table& names, Enum value, std::string_view fallback = "unknown") {
  for (const auto& [candidate, name] : names) {
    if (candidate == value) return name;
  }
  return fallback;
}

template <class Enum, class Table>
std::optional<Enum> value_of(const Table& names, std::string_view text) {
  for (const auto& [candidate, name] : names) {
    if (name == text) return candidate;
  }
  return std::nullopt;
}

}  // namespace tpslurm::model::detail
