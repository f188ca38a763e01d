#include "slurm/receipt.h"

#include <cmath>
#include <cstdio>

namespace tpslurm::slurm {
namespace {

std::string out_of_range(const std::string& shown) {
  return shown + " is outside Slurm's job id range 1.." + std::to_string(kMaxJobId);
}

ReceiptJobId checked(std::uint64_t number, const std::string& shown) {
  if (number < 1 || number > kMaxJobId) return {std::nullopt, out_of_range(shown)};
  return {static_cast<std::uint32_t>(number), {}};
}

}  // namespace

ReceiptJobId read_receipt_job_id(const boost::json::value* value) {
  if (value == nullptr) return {};
  if (value->is_uint64()) return checked(value->as_uint64(), std::to_string(value->as_uint64()));
  if (value->is_int64()) {
    const std::int64_t number = value->as_int64();
    if (number < 1) return {std::nullopt, out_of_range(std::to_string(number))};
    return checked(static_cast<std::uint64_t>(number), std::to_string(number));
  }
  if (value->is_double()) {
    const double number = value->as_double();
    char shown_text[32];
    std::snprintf(shown_text, sizeof shown_text, "%g", number);
    const std::string shown = shown_text;
    if (!std::isfinite(number) || std::trunc(number) != number) return {std::nullopt, shown + " is not a whole number"};
    if (number < 1 || number > kMaxJobId) return {std::nullopt, out_of_range(shown)};
    return {static_cast<std::uint32_t>(number), {}};
  }
  if (value->is_string()) return {std::nullopt, "a string, not a number"};
  if (value->is_null()) return {std::nullopt, "null"};
  if (value->is_bool()) return {std::nullopt, "a boolean, not a number"};
  return {std::nullopt, value->is_array() ? "an array, not a number" : "an object, not a number"};
}

}  // namespace tpslurm::slurm
