#include "slurm/jwt.h"

#include <array>
#include <boost/json.hpp>
#include <limits>

#include "base/digest.h"
#include "slurm/json_reader.h"

namespace tpslurm::slurm {
namespace {

constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int value_of(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

std::optional<std::int64_t> int_claim(const boost::json::object& claims, std::string_view name) {
  const auto* value = claims.if_contains(name);
  // A claim past int64's range is no time.
  return value == nullptr ? std::nullopt : json::int64_number(*value);
}

}  // namespace

std::string base64url_encode(std::string_view data) {
  std::string out;
  out.reserve((data.size() * 4 + 2) / 3);
  std::size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    const auto n = (static_cast<std::uint32_t>(static_cast<unsigned char>(data[i])) << 16) |
                   (static_cast<std::uint32_t>(static_cast<unsigned char>(data[i + 1])) << 8) |
                   static_cast<unsigned char>(data[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  const std::size_t rest = data.size() - i;
  if (rest == 1) {
    const auto n = static_cast<std::uint32_t>(static_cast<unsigned char>(data[i])) << 16;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
  } else if (rest == 2) {
    const auto n = (static_cast<std::uint32_t>(static_cast<unsigned char>(data[i])) << 16) |
                   (static_cast<std::uint32_t>(static_cast<unsigned char>(data[i + 1])) << 8);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
  }
  return out;
}

std::optional<std::string> base64url_decode(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    const int v = value_of(c);
    if (v < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xff);
    }
  }
  return out;
}

std::string mint_hs256(std::string_view key, std::string_view user, TimePoint issued, std::chrono::seconds lifespan) {
  const std::int64_t iat = unix_seconds(issued);
  boost::json::object claims;
  claims["iat"] = iat;
  claims["exp"] = iat + lifespan.count();
  claims["sun"] = user;
  const std::string signing_input =
      base64url_encode(R"({"alg":"HS256","typ":"JWT"})") + "." + base64url_encode(boost::json::serialize(claims));
  const auto mac = hmac_sha256(key, signing_input);
  return signing_input + "." +
         base64url_encode(std::string_view(reinterpret_cast<const char*>(mac.data()), mac.size()));
}

Result<JwtClaims> read_claims(std::string_view token) {
  const auto first = token.find('.');
  const auto second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    return invalid_argument("not a JWT: expected three dot-separated parts");
  }
  const auto payload = base64url_decode(token.substr(first + 1, second - first - 1));
  if (!payload) return invalid_argument("not a JWT: the claims are not base64url");
  boost::system::error_code ec;
  const boost::json::value parsed = boost::json::parse(*payload, ec);
  if (ec || !parsed.is_object()) return invalid_argument("not a JWT: the claims are not a JSON object");
  const auto& object = parsed.as_object();
  JwtClaims claims;
  if (const auto* sun = object.if_contains("sun"); sun != nullptr && sun->is_string()) {
    claims.user = std::string(sun->as_string());
  }
  claims.issued_at = int_claim(object, "iat");
  claims.expires_at = int_claim(object, "exp");
  return claims;
}

std::optional<std::string> token_shape_problem(std::string_view token) {
  if (!read_claims(token).ok()) return "not a JWT";
  const auto first = token.find('.');
  const auto last = token.rfind('.');
  const auto header = base64url_decode(token.substr(0, first));
  boost::system::error_code ec;
  const boost::json::value parsed = header ? boost::json::parse(*header, ec) : boost::json::value();
  if (!header || ec || !parsed.is_object()) return "the JWT's header is not base64url JSON";
  const auto* alg = parsed.as_object().if_contains("alg");
  const auto signature = base64url_decode(token.substr(last + 1));
  if (!signature || signature->empty()) return "the JWT's signature is missing or cut short";
  if (alg != nullptr && alg->is_string() && alg->as_string() == "HS256" && signature->size() != 32) {
    return "the JWT's HS256 signature is " + std::to_string(signature->size()) + " bytes, not 32 (cut short?)";
  }
  return std::nullopt;
}

bool verify_hs256(std::string_view token, std::string_view key) {
  const auto last = token.rfind('.');
  if (last == std::string_view::npos) return false;
  const auto mac = hmac_sha256(key, token.substr(0, last));
  const std::string expected =
      base64url_encode(std::string_view(reinterpret_cast<const char*>(mac.data()), mac.size()));
  return constant_time_equal(expected, token.substr(last + 1));
}

}  // namespace tpslurm::slurm
