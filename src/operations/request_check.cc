#include "operations/request_check.h"

#include <unistd.h>

#include "storage/unix_user.h"

namespace tpslurm::operations {

Result<model::LaunchRequest, model::Problems> validate_request(std::string_view text, const model::Catalogs& catalogs,
                                                               const model::Settings& settings) {
  auto request = model::parse_launch_request(text, model::validation_context(catalogs, settings));
  if (!request.ok() || settings.identity_mode != model::IdentityMode::per_user || !catalogs.users) return request;
  model::Problems problems =
      storage::request_user_problems(*request, *catalogs.users, settings.first_user_id, ::geteuid());
  if (!problems.empty()) return problems;
  return request;
}

}  // namespace tpslurm::operations
