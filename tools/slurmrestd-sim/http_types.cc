#include "http_types.h"

#include <strings.h>

namespace tpslurm::sim {

const std::string* HttpRequest::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key.size() == name.size() && strncasecmp(key.data(), name.data(), name.size()) == 0) return &value;
  }
  return nullptr;
}

HttpReply text_reply(int status, std::string body, bool close) {
  HttpReply reply;
  reply.status = status;
  reply.content_type = "text/plain";
  reply.body = std::move(body);
  reply.close = close;
  return reply;
}

}  // namespace tpslurm::sim
