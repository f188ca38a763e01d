#include "transcripts.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cctype>
#include <fstream>
#include <sstream>

namespace tpslurm::sim::test {

namespace json = boost::json;

std::string fixture_dir() { return std::string(TP_SOURCE_DIR) + "/tests/fixtures/slurm"; }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "cannot read " << path;
    return "";
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

Transcript load_v45(const std::string& relative_name) {
  Transcript t;
  t.name = relative_name;
  const std::string base = fixture_dir() + "/samples-v0.0.45/" + relative_name;
  json::value request = json::parse(read_file(base + ".request.json"));
  const json::object& req = request.as_object();
  t.method = std::string(req.at("method").as_string());
  std::string url(req.at("url").as_string());
  std::size_t path_start = url.find('/', url.find("//") + 2);
  t.path = url.substr(path_start);
  if (const json::value* headers = req.if_contains("headers")) {
    for (const auto& kv : headers->as_object()) {
      if (kv.key() == "X-SLURM-USER-NAME") t.user_header = std::string(kv.value().as_string());
      if (kv.key() == "X-SLURM-USER-TOKEN") t.has_token = true;
      if (kv.key() == "Authorization") t.bearer = true;
    }
  }
  if (const json::value* body = req.if_contains("body")) t.request_body = json::serialize(*body);
  t.response_body = read_file(base + ".response.json");
  std::istringstream status(read_file(base + ".status.txt"));
  std::string line;
  std::getline(status, line);
  t.status = std::stoi(line.substr(line.find(' ') + 1));
  while (std::getline(status, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    t.response_headers[name] = line.substr(colon + 2);
  }
  return t;
}

Transcript load_v38(const std::string& name) {
  Transcript t;
  t.name = name;
  std::string text = read_file(fixture_dir() + "/samples-v0.0.38/" + name + ".txt");
  std::istringstream in(text);
  std::string line;
  enum { head, body, response } section = head;
  std::string response_text;
  while (std::getline(in, line)) {
    if (section == response) {
      response_text += line + "\n";
      continue;
    }
    if (line.rfind("REQUEST: ", 0) == 0) {
      std::string rest = line.substr(9);
      t.method = rest.substr(0, rest.find(' '));
      t.path = rest.substr(rest.find(' ') + 1);
    } else if (line.rfind("Headers: ", 0) == 0) {
      auto pos = line.find("X-SLURM-USER-NAME: ");
      if (pos != std::string::npos) {
        std::string rest = line.substr(pos + 19);
        t.user_header = rest.substr(0, rest.find(' '));
      }
      t.has_token = line.find("X-SLURM-USER-TOKEN") != std::string::npos;
    } else if (line == "Body:") {
      section = body;
    } else if (line.rfind("RESPONSE: HTTP ", 0) == 0) {
      t.status = std::stoi(line.substr(15));
      section = response;
    } else if (section == body) {
      t.request_body += line + "\n";
    }
  }
  while (!t.request_body.empty() && t.request_body.back() == '\n') t.request_body.pop_back();
  while (!response_text.empty() && response_text.back() == '\n') response_text.pop_back();
  t.response_body = response_text;
  if (t.method.empty()) ADD_FAILURE() << name << ": no REQUEST line";
  return t;
}

}  // namespace tpslurm::sim::test
