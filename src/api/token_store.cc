#include "api/token_store.h"

#include <openssl/crypto.h>
#include <sys/stat.h>

#include "base/digest.h"
#include "base/file_system.h"
#include "base/secret_file.h"
#include "config/logging.h"

namespace tpslurm::api {
namespace {

constexpr std::size_t kMaxFileBytes = 1 << 20;
constexpr std::size_t kMaxNameBytes = 64;
constexpr std::size_t kMinTokenBytes = 16;
constexpr std::size_t kMaxTokenBytes = 4096;

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '@' || c == '-';
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// The problem with one line's words, or nothing. Never quotes the token.
std::optional<std::string> line_problem(std::string_view name, std::string_view token, std::string_view rest) {
  if (token.empty() || !rest.empty()) return "expected `NAME TOKEN` (two words)";
  if (name.size() > kMaxNameBytes) return "the name is longer than 64 bytes";
  for (char c : name) {
    if (!is_name_char(c)) return "the name may hold only letters, digits and . _ @ -";
  }
  if (token.size() < kMinTokenBytes || token.size() > kMaxTokenBytes) {
    return "the token must be 16 to 4096 bytes long";
  }
  for (char c : token) {
    if (c < 0x21 || c > 0x7e) return "the token may hold only printable ASCII without blanks";
  }
  return std::nullopt;
}

std::string_view next_word(std::string_view& line) {
  std::size_t start = 0;
  while (start < line.size() && is_blank(line[start])) ++start;
  std::size_t end = start;
  while (end < line.size() && !is_blank(line[end])) ++end;
  const std::string_view word = line.substr(start, end - start);
  line.remove_prefix(end);
  return word;
}

// The file's identity now; all zero when it cannot be stat'ed.
FileIdentity file_identity(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return {};
  return {static_cast<unsigned long long>(info.st_dev), static_cast<unsigned long long>(info.st_ino),
          static_cast<unsigned long long>(info.st_size),
          static_cast<long long>(info.st_mtim.tv_sec) * 1'000'000'000LL + info.st_mtim.tv_nsec,
          static_cast<long long>(info.st_ctim.tv_sec) * 1'000'000'000LL + info.st_ctim.tv_nsec};
}

}  // namespace

std::array<std::uint8_t, 32> token_digest(std::string_view token) {
  return hmac_sha256("tuneplane-slurm api token", token);
}

Result<std::vector<TokenEntry>> parse_tokens(std::string_view text, const std::string& path) {
  std::vector<TokenEntry> entries;
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string_view words = line;
    const std::string_view name = next_word(words);
    if (name.empty() || name.front() == '#') continue;
    const std::string_view token = next_word(words);
    const std::string_view rest = next_word(words);
    const std::string where = "TUNEPLANE_API_TOKENS_FILE " + path + " line " + std::to_string(number) + ": ";
    if (auto problem = line_problem(name, token, rest)) return invalid_argument(where + *problem);
    TokenEntry entry{std::string(name), token_digest(token)};
    for (const auto& other : entries) {
      if (other.name == entry.name) return invalid_argument(where + "the name " + entry.name + " is used twice");
      if (CRYPTO_memcmp(other.digest.data(), entry.digest.data(), entry.digest.size()) == 0) {
        return invalid_argument(where + "the token of " + entry.name + " is also " + other.name +
                                "'s; give every client its own token");
      }
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

Result<std::unique_ptr<TokenStore>> TokenStore::open(const std::string& path, uid_t reader_uid) {
  std::unique_ptr<TokenStore> store(new TokenStore(path, reader_uid));
  auto read = store->read_now();
  if (!read.ok()) return read.error();
  store->m_entries = std::move(read->first);
  store->m_identity = read->second;
  return store;
}

Result<std::pair<std::vector<TokenEntry>, FileIdentity>> TokenStore::read_now() const {
  const SecretFileCheck check = check_secret_file(m_path, m_reader_uid);
  if (check.refusal) return invalid_argument("TUNEPLANE_API_TOKENS_FILE " + m_path + ": " + *check.refusal);
  // Taken before the read: a change in between makes the next call read again.
  const FileIdentity identity = file_identity(m_path);
  auto text = read_file(m_path, kMaxFileBytes);
  if (!text.ok()) return text.error().with_context("TUNEPLANE_API_TOKENS_FILE");
  auto entries = parse_tokens(*text, m_path);
  if (!entries.ok()) return entries.error();
  return std::make_pair(std::move(*entries), identity);
}

void TokenStore::refresh_locked() {
  const FileIdentity now = file_identity(m_path);
  if (m_identity && *m_identity == now) return;
  if (m_reported_failure && *m_reported_failure == now) return;
  auto read = read_now();
  if (!read.ok()) {
    m_reported_failure = now;
    config::log_error({}, read.error().message() + "; the API keeps the tokens it read last");
    return;
  }
  m_entries = std::move(read->first);
  m_identity = read->second;
  m_reported_failure.reset();
  config::log_info({{}, {}, {}, {}, {{"tokens", std::to_string(m_entries.size())}}},
                   "TUNEPLANE_API_TOKENS_FILE " + m_path + " re-read");
}

std::optional<std::string> TokenStore::authenticate(std::string_view token) {
  std::lock_guard lock(m_mutex);
  refresh_locked();
  if (token.empty()) return std::nullopt;
  const auto digest = token_digest(token);
  const TokenEntry* match = nullptr;
  for (const auto& entry : m_entries) {
    // Every entry is compared, a match or not.
    if (CRYPTO_memcmp(entry.digest.data(), digest.data(), digest.size()) == 0) match = &entry;
  }
  if (match == nullptr) return std::nullopt;
  return match->name;
}

std::size_t TokenStore::size() {
  std::lock_guard lock(m_mutex);
  refresh_locked();
  return m_entries.size();
}

}  // namespace tpslurm::api
