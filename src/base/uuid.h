// Random (version 4) UUIDs, used as submit tokens: "0b6f8c1e-4d2a-4c1f-9a7e-3f1d2c4b5a69".
// Drawn from the operating system's CSPRNG (OpenSSL RAND_bytes); thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace tpslurm {

std::string new_uuid();
bool is_uuid(std::string_view text);

}  // namespace tpslurm
