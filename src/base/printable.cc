#include "base/printable.h"

#include <cstdint>

namespace tpslurm {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// The code point of the valid sequence of `length` bytes at `text[at]`.
std::uint32_t decode(std::string_view text, std::size_t at, std::size_t length) {
  static constexpr unsigned char kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  std::uint32_t code = static_cast<unsigned char>(text[at]) & kLeadMask[length];
  for (std::size_t k = 1; k < length; ++k) code = (code << 6) | (static_cast<unsigned char>(text[at + k]) & 0x3F);
  return code;
}

// Valid characters that still break a line or bend the text around them where it is shown.
bool hidden_control(std::uint32_t code) {
  return (code >= 0x80 && code <= 0x9F) || code == 0x2028 || code == 0x2029 || code == 0x200E || code == 0x200F ||
         (code >= 0x202A && code <= 0x202E) || (code >= 0x2066 && code <= 0x2069);
}

void append_byte(std::string& out, unsigned char byte) {
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 0xF];
}

void append_code(std::string& out, std::uint32_t code) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(code >> shift) & 0xF];
}

}  // namespace

std::size_t utf8_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i, unsigned lo, unsigned hi) {
    if (i >= text.size()) return false;
    const auto b = static_cast<unsigned char>(text[i]);
    return b >= lo && b <= hi;
  };
  if (at >= text.size()) return 0;
  const auto lead = static_cast<unsigned char>(text[at]);
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return byte(at + 1, 0x80, 0xBF) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    const unsigned lo = lead == 0xE0 ? 0xA0 : 0x80;  // no overlong forms
    const unsigned hi = lead == 0xED ? 0x9F : 0xBF;  // no UTF-16 surrogates
    return byte(at + 1, lo, hi) && byte(at + 2, 0x80, 0xBF) ? 3 : 0;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    const unsigned lo = lead == 0xF0 ? 0x90 : 0x80;
    const unsigned hi = lead == 0xF4 ? 0x8F : 0xBF;  // nothing above U+10FFFF
    return byte(at + 1, lo, hi) && byte(at + 2, 0x80, 0xBF) && byte(at + 3, 0x80, 0xBF) ? 4 : 0;
  }
  return 0;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::size_t length = utf8_length(text, i);
    if (length == 0 || byte < 0x20 || byte == 0x7F) {
      append_byte(out, byte);
      ++i;
      continue;
    }
    if (byte == '\\' || byte == '"') {
      out += '\\';
      out += static_cast<char>(byte);
    } else if (length > 1 && hidden_control(decode(text, i, length))) {
      append_code(out, decode(text, i, length));
    } else {
      out.append(text.substr(i, length));
    }
    i += length;
  }
  return out;
}

}  // namespace tpslurm
