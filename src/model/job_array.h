// Job arrays: the spec a submit asks for, and the pending tasks a meta record lists.
//
// ArraySpec is `--array=first-last[%max_running]`, the one shape this project submits (a sweep
// of N runs is tasks 0..N-1); text() is what every dialect sends as `job.array` ("0-999%8").
//
// parse_array_task_string reads `array_task_string` of a pending meta record, as libslurm
// prints it (bit_fmt, then "%P" when the array has a throttle): comma-separated `N`, `A-B`
// and the stride `A-B:S` (printed when more than 5 tasks span more than 10 ids at one
// step), then an optional `%P`, which is dropped. slurmctld prints the list into a 64-byte
// buffer (SLURM_BITSTR_LEN): a list longer than 61 characters ends in "..." and the item
// before it may itself be cut. Such a string gives only the items before the last comma
// ahead of the dots, and says it is incomplete: the tasks it does not show are unknown,
// never absent. An empty string is no pending task. Anything else is invalid_argument.
// Pure functions over values; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace tpslurm::model {

struct ArraySpec {
  std::uint32_t first = 0;
  std::uint32_t last = 0;
  std::optional<std::uint32_t> max_running;  // `%P`: at most P tasks run at once

  std::uint32_t size() const { return last >= first ? last - first + 1 : 0; }
  std::string text() const;  // "0-999%8"; "4" when first == last
  bool operator==(const ArraySpec&) const = default;
};

struct ArrayTasks {
  std::vector<std::uint32_t> tasks;  // ascending, no duplicates
  // False when the string was cut ("..."): tasks beyond those listed may be pending too.
  bool complete = true;
};

Result<ArrayTasks> parse_array_task_string(std::string_view text);

}  // namespace tpslurm::model
