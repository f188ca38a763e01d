// The job id of a submit receipt (internal to src/slurm/ codecs): the one check every dialect's
// decode_submit uses, so that only a value Slurm could have assigned becomes a receipt.
//
// A receipt's `job_id` must be a whole JSON number from 1 to MAX_JOB_ID (0x03FFFFFF,
// slurm/slurm.h at slurm-22-05-8-1:140 and slurm-26-05-3-1:124; slurm.conf's MaxJobId cannot
// exceed it, read_config.c). Anything else — a fraction, zero, a negative, a larger value, a
// string, null — is a problem, which the classification turns into `uncertain` (outcome.h):
// the server said something about a job, but not which one. Federated job ids (the cluster's
// bits above bit 25) are beyond the range and so `uncertain` too: federation is not supported.
// Pure function; thread-safe.
#pragma once

#include <boost/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace tpslurm::slurm {

inline constexpr std::uint32_t kMaxJobId = 0x03FFFFFF;

struct ReceiptJobId {
  std::optional<std::uint32_t> id;  // set when the value is a valid job id
  std::string problem;              // set when a value is there but is not one
};

// `value` null (the field is absent): neither id nor problem.
ReceiptJobId read_receipt_job_id(const boost::json::value* value);

}  // namespace tpslurm::slurm
