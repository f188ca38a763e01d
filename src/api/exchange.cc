#include "api/exchange.h"

#include "operations/job_views.h"
#include "storage/log_tail.h"

namespace tpslurm::api {

Reply json_reply(unsigned status, const boost::json::value& body) {
  return {status, operations::json_text(body), {}, nullptr, nullptr};
}

Reply deferred_reply(std::function<Reply()> work) {
  Reply reply;
  reply.later = std::make_shared<Deferred>(Deferred{std::move(work), {}});
  return reply;
}

Reply started_reply(std::function<void(std::function<void(Reply)> done)> start) {
  Reply reply;
  reply.later = std::make_shared<Deferred>(Deferred{{}, std::move(start)});
  return reply;
}

Reply error_reply(unsigned status, std::string_view code, std::string_view message, const model::Problems& problems) {
  boost::json::array list;
  for (const auto& problem : problems.list()) {
    list.push_back(boost::json::object{{"field", storage::valid_utf8(problem.path)},
                                       {"value", storage::valid_utf8(problem.value)},
                                       {"fix", storage::valid_utf8(problem.message)}});
  }
  // Messages quote what the client sent (a path, a job id), which need not be UTF-8.
  return json_reply(
      status,
      boost::json::object{{"error", code}, {"message", storage::valid_utf8(message)}, {"problems", std::move(list)}});
}

}  // namespace tpslurm::api
