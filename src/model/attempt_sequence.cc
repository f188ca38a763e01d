#include "model/attempt_sequence.h"

#include <string>

namespace tpslurm::model {

Status check_next_attempt(std::string_view job_id, const AttemptHistory& history, int number) {
  const std::string job(job_id);
  if (const auto& open = history.unclosed) {
    const std::string which = "job " + job + ": attempt " + std::to_string(open->number);
    if (!is_final(open->state)) {
      return invalid_argument(which + " is still " + std::string(to_string(open->state)) +
                              "; the next attempt starts only after it has ended and its cleanup is closed");
    }
    return invalid_argument(which + " has ended (" + std::string(to_string(open->state)) + ") but its cleanup is " +
                            std::string(to_string(open->cleanup)) +
                            "; the next attempt starts only after the cleanup is closed");
  }
  const int expected = history.attempts_made + 1;
  if (expected > history.max_attempts) {
    return invalid_argument("job " + job + " has made all its attempts (spec.retry.max_attempts is " +
                            std::to_string(history.max_attempts) + "); it takes no new attempt");
  }
  if (number != expected) {
    return invalid_argument("job " + job + ": the next attempt is " + std::to_string(expected) + ", not " +
                            std::to_string(number));
  }
  return ok_status();
}

}  // namespace tpslurm::model
