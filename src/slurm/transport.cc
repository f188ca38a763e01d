#include "slurm/transport.h"

namespace tpslurm::slurm {

std::string_view to_string(HttpMethod method) {
  switch (method) {
    case HttpMethod::get:
      return "GET";
    case HttpMethod::post:
      return "POST";
    case HttpMethod::del:
      return "DELETE";
  }
  return "GET";
}

std::string_view to_string(Delivery delivery) {
  switch (delivery) {
    case Delivery::not_sent:
      return "not_sent";
    case Delivery::uncertain:
      return "uncertain";
    case Delivery::answered:
      return "answered";
  }
  return "uncertain";
}

std::string_view to_string(TransportFault fault) {
  switch (fault) {
    case TransportFault::none:
      return "none";
    case TransportFault::dns:
      return "could not resolve the host";
    case TransportFault::connect_refused:
      return "connection refused";
    case TransportFault::connect_timeout:
      return "timed out connecting";
    case TransportFault::tls_handshake:
      return "TLS handshake failed";
    case TransportFault::send_timeout:
      return "timed out waiting for the answer";
    case TransportFault::reset:
      return "connection reset";
    case TransportFault::empty_reply:
      return "connection closed with no answer";
    case TransportFault::truncated:
      return "answer cut short";
    case TransportFault::too_large:
      return "answer too large";
    case TransportFault::other:
      return "transport failure";
  }
  return "transport failure";
}

std::optional<std::string> header_value_problem(std::string_view value) {
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto byte = static_cast<unsigned char>(value[i]);
    if ((byte >= 0x20 && byte < 0x7f) || byte == '\t') continue;
    const std::string what = byte == '\r' ? "CR" : byte == '\n' ? "LF" : byte < 0x20 || byte == 0x7f ? "a control byte" : "a non-ASCII byte";
    return "contains " + what + " at byte " + std::to_string(i + 1) + ", which an HTTP header cannot carry";
  }
  return std::nullopt;
}

}  // namespace tpslurm::slurm
