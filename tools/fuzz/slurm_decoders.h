// The Slurm answer targets' common part: every dialect this build speaks (slurm/dialect.h),
// so that each answer is decoded by all four codecs, and the one rule every decoder keeps:
// an answer it cannot read is refused as `corrupt`, never with another kind, and a reply it
// gives carries a release that SlurmRelease::parse reads without fault.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "slurm/dialect.h"
#include "slurm/server_info.h"

namespace tpslurm::fuzz {

inline const std::vector<std::unique_ptr<slurm::Dialect>>& all_dialects() {
  static const std::vector<std::unique_ptr<slurm::Dialect>> dialects = [] {
    std::vector<std::unique_ptr<slurm::Dialect>> out;
    for (const auto version : slurm::supported_dialects()) out.push_back(slurm::make_dialect(version));
    if (out.empty()) fail("no dialect");
    return out;
  }();
  return dialects;
}

// Checks one decoder's answer; `what` names the decoder in the failure.
template <typename Reply>
void check_decoded(const Result<Reply>& decoded, std::string_view what) {
  if (!decoded.ok()) {
    if (decoded.error().kind() != ErrorKind::corrupt) fail(what, decoded.error().message());
    return;
  }
  const slurm::ReplyBase& base = *decoded;
  if (auto release = slurm::SlurmRelease::parse(base.release)) {
    if (release->to_string().empty()) fail("a release that prints empty", base.release);
  }
}

}  // namespace tpslurm::fuzz
