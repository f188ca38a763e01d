// HttpRequest / HttpReply: what the network layer hands the simulator and gets back.
//
// Keeping these plain structs lets everything above the socket (routing, Slurm
// semantics, faults) stay free of Boost.Beast and be driven directly. A reply carries,
// besides status and body, what the connection must do with it: answer normally, drop
// the connection without answering, answer after a delay, send half the body and close,
// or close after answering. Value types; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpslurm::sim {

struct HttpRequest {
  std::string method;  // "GET"
  std::string target;  // "/slurm/v0.0.45/jobs?update_time=1" as received
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string client_source;  // "127.0.0.1:6820(fd:9)", as meta.client.source shows it
  bool keep_alive = true;     // what the client asked for

  // Case-insensitive; nullptr when absent.
  const std::string* header(std::string_view name) const;
};

enum class Disposition {
  answer,               // send the reply; keep the connection unless `close`
  drop,                 // close the socket without sending anything
  close_mid_body,       // send the headers with the full Content-Length, half the body, close
  close_after_answer,   // send the reply as if keeping the connection, then close it
};

struct HttpReply {
  int status = 200;
  std::string reason;  // empty: Slurm's phrase for the status
  std::string content_type = "application/json";
  std::string body;
  bool close = false;        // send "Connection: Close" and close afterwards
  Disposition disposition = Disposition::answer;
  std::int64_t delay_ms = 0;  // real time to wait before acting on the reply
};

HttpReply text_reply(int status, std::string body, bool close);

}  // namespace tpslurm::sim
