// Times in slurmdbd queries as 22.05's dbv0.0.38 plugin reads them: with Slurm's
// parse_time() (src/common/parse_time.c).
//
// parse_time() takes "uts<N>" (any case; N a decimal Unix time of at least 1000000 and
// nothing after it) and calendar forms; it never takes a bare number, which is why
// `start_time=1796040374` is refused by 22.05 and `start_time=uts1796040374` works. Of the
// calendar forms the simulator reads "YYYY-MM-DD[THH:MM[:SS]]" (escaped colons in a URL),
// in the server's time zone, which for the simulator is UTC; the other forms (today,
// MMDDYY, now+N...) it refuses. parse_time() signals failure with 0, so a time that
// evaluates to 0 is refused too. Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tpslurm::sim {

std::optional<std::int64_t> parse_slurm_time(std::string_view text);

}  // namespace tpslurm::sim
