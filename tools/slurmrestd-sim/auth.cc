#include "auth.h"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "base/digest.h"

namespace tpslurm::sim {

namespace json = boost::json;

namespace {
constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int b64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-' || c == '+') return 62;
  if (c == '_' || c == '/') return 63;
  return -1;
}
}  // namespace

std::string base64url_encode(std::string_view data) {
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char c : data) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(kB64[(buffer >> bits) & 0x3f]);
    }
  }
  if (bits > 0) out.push_back(kB64[(buffer << (6 - bits)) & 0x3f]);
  return out;
}

bool base64url_decode(std::string_view text, std::string& out) {
  out.clear();
  std::uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    int v = b64_value(c);
    if (v < 0) return false;
    buffer = (buffer << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  return true;
}

bool read_credentials(Release release, const HttpRequest& request, Credentials& out) {
  const std::string* name = request.header("X-SLURM-USER-NAME");
  const std::string* token = request.header("X-SLURM-USER-TOKEN");
  const std::string* authorization = request.header("Authorization");
  if (release == Release::r22_05_8) {
    // jwt.c@22.05 knows only the two X- headers, and needs both.
    if (!name || !token || token->empty()) return false;
    out.user_header = *name;
    out.token = *token;
    return true;
  }
  constexpr std::string_view kBearer = "Bearer ";
  const bool bearer = authorization && authorization->compare(0, kBearer.size(), kBearer) == 0;
  if (!token && !bearer) return false;
  if (token && bearer) return false;  // mutually exclusive headers
  out.token = token ? *token : authorization->substr(kBearer.size());
  out.user_header = name ? *name : "";
  return !out.token.empty();
}

TokenCheck verify_token(std::string_view key, const Credentials& credentials, std::int64_t now_s,
                        std::string_view slurm_user) {
  TokenCheck out;
  std::string_view token = credentials.token;
  std::size_t first = token.find('.');
  std::size_t second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    out.reason = "token is not three base64url parts";
    return out;
  }
  std::string header_json;
  std::string payload_json;
  std::string signature;
  if (!base64url_decode(token.substr(0, first), header_json) ||
      !base64url_decode(token.substr(first + 1, second - first - 1), payload_json) ||
      !base64url_decode(token.substr(second + 1), signature)) {
    out.reason = "token has invalid base64url";
    return out;
  }
  boost::system::error_code ec;
  json::value header = json::parse(header_json, ec);
  if (ec || !header.is_object()) {
    out.reason = "token header is not JSON";
    return out;
  }
  const json::value* alg = header.get_object().if_contains("alg");
  if (!alg || !alg->is_string() || alg->get_string() != "HS256") {
    out.reason = "token algorithm is not HS256";
    return out;
  }
  // libjwt compares the base64url text of the signature, so even bits that only pad the
  // last character must match.
  auto mac = hmac_sha256(key, token.substr(0, second));
  std::string expected = base64url_encode(std::string_view(reinterpret_cast<const char*>(mac.data()), mac.size()));
  std::string_view given = token.substr(second + 1);
  while (!given.empty() && given.back() == '=') given.remove_suffix(1);
  if (!constant_time_equal(expected, given)) {
    out.reason = "token signature does not verify";
    return out;
  }
  json::value payload = json::parse(payload_json, ec);
  if (ec || !payload.is_object()) {
    out.reason = "token payload is not JSON";
    return out;
  }
  const json::object& claims = payload.get_object();
  std::int64_t exp = 0;  // jwt_get_grant_int() reads a missing claim as 0: expired
  if (const json::value* v = claims.if_contains("exp")) {
    if (v->is_int64()) exp = v->get_int64();
    if (v->is_uint64()) exp = static_cast<std::int64_t>(v->get_uint64());
  }
  if (exp < now_s) {
    out.reason = "token expired";
    return out;
  }
  std::string token_user;
  for (const char* claim : {"sun", "username"}) {
    if (const json::value* v = claims.if_contains(claim); v && v->is_string()) {
      token_user = std::string(v->get_string());
      break;
    }
  }
  if (token_user.empty()) {
    out.reason = "token names no user (sun)";
    return out;
  }
  out.user = token_user;
  if (!credentials.user_header.empty() && credentials.user_header != token_user) {
    if (token_user != "root" && token_user != slurm_user) {
      out.reason = "attempt to authenticate as alternate user";
      return out;
    }
    out.user = credentials.user_header;  // root or SlurmUser acting for another user
  }
  out.ok = true;
  return out;
}

std::uint32_t uid_of(std::string_view user) {
  if (user == "root") return 0;
  if (user == "nobody") return 65534;
  if (user == "slurm") return 64030;
  std::uint32_t h = 0;
  for (char c : user) h = h * 31 + static_cast<unsigned char>(c);
  return 1000 + h % 50000;
}

std::string group_of(std::string_view user) {
  if (user == "nobody") return "nogroup";
  return std::string(user);
}

}  // namespace tpslurm::sim
