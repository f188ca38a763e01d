#include "storage/attempt_evidence.h"

#include <boost/json.hpp>

#include "base/printable.h"
#include "model/attempt_layout.h"
#include "storage/attempt_tree.h"

namespace tpslurm::storage {

Result<std::string> read_exit_evidence(const std::string& attempt_dir) {
  return read_attempt_file(attempt_dir, model::kExitEvidenceFile, kExitEvidenceMaxBytes);
}

Result<std::string> read_job_evidence(const std::string& attempt_dir) {
  return read_attempt_file(attempt_dir, model::kJobEvidenceFile, kJobEvidenceMaxBytes);
}

std::optional<ExitEvidence> parse_exit_evidence(std::string_view text) {
  boost::system::error_code error;
  const boost::json::value value = boost::json::parse(text, error);
  if (error || !value.is_object()) return std::nullopt;
  const auto& o = value.as_object();
  const auto* status = o.if_contains("exit_status");
  if (status == nullptr || !status->is_int64() || status->as_int64() < 0 || status->as_int64() > 255) {
    return std::nullopt;
  }
  ExitEvidence out;
  out.exit_status = static_cast<int>(status->as_int64());
  if (const auto* phase = o.if_contains("failed_phase"); phase != nullptr && phase->is_string()) {
    out.failed_phase = printable(phase->as_string());
  }
  return out;
}

std::optional<ExitEvidence> read_exit(const std::string& attempt_dir) {
  auto text = read_exit_evidence(attempt_dir);
  if (!text.ok()) return std::nullopt;
  return parse_exit_evidence(*text);
}

std::optional<std::uint32_t> parse_job_evidence(std::string_view text) {
  boost::system::error_code error;
  const boost::json::value value = boost::json::parse(text, error);
  if (error || !value.is_object()) return std::nullopt;
  const auto* id = value.as_object().if_contains("het_job_id");
  if (id == nullptr || !id->is_int64()) id = value.as_object().if_contains("job_id");
  if (id == nullptr || !id->is_int64() || id->as_int64() <= 0 || id->as_int64() > 0x03FFFFFF) return std::nullopt;
  return static_cast<std::uint32_t>(id->as_int64());
}

std::optional<std::uint32_t> read_job_id(const std::string& attempt_dir) {
  auto text = read_job_evidence(attempt_dir);
  if (!text.ok()) return std::nullopt;
  return parse_job_evidence(*text);
}

Result<bool> attempt_started(const std::string& attempt_dir) {
  auto logs = open_in_attempt(attempt_dir, "logs", Expect::directory);
  if (!logs.ok()) {
    if (logs.error().kind() == ErrorKind::not_found) return false;
    if (logs.error().kind() == ErrorKind::invalid_argument) return true;  // a link or a file: not ours
    return logs.error();
  }
  auto listing = list_directory(logs->fd.get(), logs->path, 1);
  if (!listing.ok()) return listing.error();
  return !listing->entries.empty();
}

}  // namespace tpslurm::storage
