// SLUIDs as slurmctld generates and prints them (src/common/sluid.[ch], Slurm >= 24.11).
//
// A SLUID is 64 bits: [12-bit cluster][42-bit Unix ms][10-bit sequence], printed as "s"
// followed by 13 Crockford base32 characters, most significant first. The alphabet is in
// ASCII order, so string order is numeric order: by cluster, then creation time. The
// generator keeps the timestamp monotonic and bumps it by one ms when the sequence
// overflows within a millisecond, as Slurm does. A SLUID names one run of a job: every
// het component gets its own and a requeue gets a new one. Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tpslurm::sim {

class SluidGenerator {
 public:
  explicit SluidGenerator(std::uint16_t cluster_id) : m_cluster(cluster_id & 0xfffu) {}
  std::uint64_t next(std::int64_t now_ms);

 private:
  std::uint64_t m_cluster;
  std::int64_t m_last_ms = 0;
  std::uint64_t m_sequence = 0;
};

std::string format_sluid(std::uint64_t sluid);
// Accepts "s" or "S", lower-case letters and Crockford's O->0, I/L->1; exactly 14 chars.
std::optional<std::uint64_t> parse_sluid(std::string_view text);

}  // namespace tpslurm::sim
