// The submit-body keys each dialect knows.
//
// v0.0.4x: the properties of `job_desc_msg` in the OpenAPI documents 26.05.3 generates
// (an unknown key there is only a warning). v0.0.38: the sbatch option names of 22.05's
// openapi/v0.0.38 job_params table, where an unknown key is a 400 and some known keys are
// "disabled" (also rejected). Keys are compared lower-cased on v0.0.38, as 22.05 does.
#pragma once

#include <string_view>

#include "release.h"

namespace tpslurm::sim {

bool is_known_field_v4x(Dialect dialect, std::string_view key);

enum class V38Key { unknown, disabled, known };
V38Key classify_key_v38(std::string_view lower_key);

}  // namespace tpslurm::sim
