#include "sluid.h"

namespace tpslurm::sim {

namespace {
constexpr char kAlphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
constexpr std::uint64_t kSequenceMask = 0x3ff;
constexpr std::uint64_t kTimestampMask = (std::uint64_t{1} << 42) - 1;

int decode_char(char c) {
  if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  if (c == 'O') return 0;
  if (c == 'I' || c == 'L') return 1;
  for (int i = 0; i < 32; ++i) {
    if (kAlphabet[i] == c) return i;
  }
  return -1;
}
}  // namespace

std::uint64_t SluidGenerator::next(std::int64_t now_ms) {
  if (now_ms > m_last_ms) {
    m_last_ms = now_ms;
    m_sequence = 0;
  } else if (++m_sequence > kSequenceMask) {
    // Sequence exhausted within one millisecond: borrow the next millisecond.
    ++m_last_ms;
    m_sequence = 0;
  }
  return (m_cluster << 52) | ((static_cast<std::uint64_t>(m_last_ms) & kTimestampMask) << 10) | m_sequence;
}

std::string format_sluid(std::uint64_t sluid) {
  std::string out(14, '0');
  out[0] = 's';
  for (int i = 13; i >= 1; --i) {
    out[static_cast<std::size_t>(i)] = kAlphabet[sluid & 31u];
    sluid >>= 5;
  }
  return out;
}

std::optional<std::uint64_t> parse_sluid(std::string_view text) {
  if (text.size() != 14 || (text[0] != 's' && text[0] != 'S')) return std::nullopt;
  // 13 characters carry 65 bits: the first one may only hold the top 4.
  int first = decode_char(text[1]);
  if (first < 0 || first > 15) return std::nullopt;
  std::uint64_t value = 0;
  for (std::size_t i = 1; i < text.size(); ++i) {
    int digit = decode_char(text[i]);
    if (digit < 0) return std::nullopt;
    value = (value << 5) | static_cast<std::uint64_t>(digit);
  }
  if (value == 0) return std::nullopt;
  return value;
}

}  // namespace tpslurm::sim
