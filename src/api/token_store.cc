#include "api/token_store.h"

#include <openssl/crypto.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

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

struct LineWords {
  std::string_view name, token, scopes, rest;
  bool ended = true;  // the line's newline is there
};

// The problem with one line's words, or nothing. Never quotes the token, nor any word that
// might be one.
std::optional<std::string> line_problem(const LineWords& words) {
  if (!words.ended) {
    return "the line has no newline at its end, so it may be cut short (the file read while it was being "
           "written); end every line with a newline";
  }
  if (words.token.empty() || !words.rest.empty()) {
    return "expected `NAME TOKEN SCOPES` (SCOPES: read, submit and operate, comma-separated)";
  }
  if (words.name.size() > kMaxNameBytes) return "the name is longer than 64 bytes";
  for (char c : words.name) {
    if (!is_name_char(c)) return "the name may hold only letters, digits and . _ @ -";
  }
  if (words.token.size() < kMinTokenBytes || words.token.size() > kMaxTokenBytes) {
    return "the token must be 16 to 4096 bytes long";
  }
  for (char c : words.token) {
    if (c < 0x21 || c > 0x7e) return "the token may hold only printable ASCII without blanks";
  }
  if (!words.scopes.empty() && !parse_scopes(words.scopes)) {
    return "SCOPES must be read, submit and operate, comma-separated without blanks (e.g. read,submit)";
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

// Why `entry` cannot join `entries`, or nothing.
std::optional<std::string> repeated(const TokenEntry& entry, const std::vector<TokenEntry>& entries) {
  for (const auto& other : entries) {
    if (other.name == entry.name) {
      return "the name " + entry.name + " is used twice (line " + std::to_string(other.line) + " has it)";
    }
    if (CRYPTO_memcmp(other.digest.data(), entry.digest.data(), entry.digest.size()) == 0) {
      return "the token of " + entry.name + " is also " + other.name + "'s; give every client its own token";
    }
  }
  return std::nullopt;
}

FileIdentity identity_of(const struct stat& info) {
  return {static_cast<unsigned long long>(info.st_dev), static_cast<unsigned long long>(info.st_ino),
          static_cast<unsigned long long>(info.st_size),
          static_cast<long long>(info.st_mtim.tv_sec) * 1'000'000'000LL + info.st_mtim.tv_nsec,
          static_cast<long long>(info.st_ctim.tv_sec) * 1'000'000'000LL + info.st_ctim.tv_nsec};
}

std::string setting(const std::string& path) { return "TUNEPLANE_API_TOKENS_FILE " + path; }

// Each load says which lines hold every scope because they name none.
void warn_unscoped(const TokensFile& file, const std::string& path) {
  const std::string lines = file.unscoped_lines();
  if (lines.empty()) return;
  config::log_warn({}, setting(path) + ": lines " + lines +
                           " name no scopes, so each holds every scope (read, submit, operate); give each the "
                           "scopes its client needs: NAME TOKEN read,submit");
}

// The tokens of `now` that `file` still holds, with the scopes both give them: what a file
// that may not be trusted can do, which is only to take away.
std::vector<TokenEntry> narrowed(const std::vector<TokenEntry>& now, const std::vector<TokenEntry>& file) {
  std::vector<TokenEntry> kept;
  for (const TokenEntry& entry : now) {
    for (const TokenEntry& line : file) {
      if (line.name != entry.name || CRYPTO_memcmp(line.digest.data(), entry.digest.data(), entry.digest.size()) != 0) {
        continue;
      }
      TokenEntry narrower = entry;
      narrower.scopes = entry.scopes.common(line.scopes);
      if (!narrower.scopes.empty()) kept.push_back(std::move(narrower));
    }
  }
  return kept;
}

}  // namespace

std::array<std::uint8_t, 32> token_digest(std::string_view token) {
  return hmac_sha256("tuneplane-slurm api token", token);
}

std::string TokensFile::unscoped_lines() const {
  std::string lines;
  for (const TokenEntry& entry : entries) {
    if (!entry.scoped) lines += (lines.empty() ? "" : ", ") + std::to_string(entry.line) + " (" + entry.name + ")";
  }
  return lines;
}

TokensFile parse_tokens(std::string_view text, const std::string& path) {
  TokensFile file;
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    LineWords words;
    words.name = next_word(line);
    if (words.name.empty() || words.name.front() == '#') continue;
    words.token = next_word(line);
    words.scopes = next_word(line);
    words.rest = next_word(line);
    words.ended = newline != std::string_view::npos;
    const std::string where = setting(path) + " line " + std::to_string(number) + ": ";
    if (auto problem = line_problem(words)) {
      file.problems.push_back(where + *problem);
      continue;
    }
    TokenEntry entry{std::string(words.name), token_digest(words.token),
                     words.scopes.empty() ? Scopes::all() : *parse_scopes(words.scopes), !words.scopes.empty(), number};
    if (auto problem = repeated(entry, file.entries)) {
      file.problems.push_back(where + *problem);
      continue;
    }
    file.entries.push_back(std::move(entry));
  }
  return file;
}

Result<TokensFile> read_tokens_file(const std::string& path, uid_t reader_uid) {
  const SecretFileCheck check = check_secret_file(path, reader_uid);
  if (check.refusal) return invalid_argument(setting(path) + ": " + *check.refusal);
  auto text = read_file(path, kMaxFileBytes);
  if (!text.ok()) return text.error().with_context("TUNEPLANE_API_TOKENS_FILE");
  return parse_tokens(*text, path);
}

Result<std::unique_ptr<TokenStore>> TokenStore::open(const std::string& path, uid_t reader_uid) {
  std::unique_ptr<TokenStore> store(new TokenStore(path, reader_uid));
  // Taken before the read: a change in between makes the first request read again.
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) store->m_seen = identity_of(info);
  auto file = read_tokens_file(path, reader_uid);
  if (!file.ok()) return file.error();
  if (!file->problems.empty()) {
    const std::size_t more = file->problems.size() - 1;
    return invalid_argument(file->problems.front() +
                            (more == 0 ? "" : " (and " + std::to_string(more) + " more bad line(s))"));
  }
  warn_unscoped(*file, path);
  store->m_entries = std::move(file->entries);
  return store;
}

void TokenStore::revoke_all_locked() {
  if (!m_gone) {
    config::log_error({}, setting(m_path) + " is gone: every token of the API is revoked (" +
                              std::to_string(m_entries.size()) + ") until the file is back");
  }
  m_gone = true;
  m_entries.clear();
  m_seen.reset();
}

void TokenStore::load_locked(const struct stat& info) {
  const std::string what = setting(m_path);
  const std::string keeping = "; the API keeps the tokens it has (" + std::to_string(m_entries.size()) + ")";
  // The file can be replaced between the stat and the read: its next version is read then.
  m_seen = identity_of(info);
  if (!S_ISREG(info.st_mode)) {
    config::log_error({}, what + ": expected a regular file" + keeping);
    return;
  }
  auto text = read_file(m_path, kMaxFileBytes);
  if (!text.ok()) {
    config::log_error({}, what + ": " + text.error().message() + keeping);
    return;
  }
  TokensFile file = parse_tokens(*text, m_path);
  m_gone = false;
  for (const std::string& problem : file.problems) config::log_error({}, problem + "; that line's token is not valid");
  const SecretFileCheck check = check_secret_file(m_path, m_reader_uid);
  if (check.refusal) {
    m_entries = narrowed(m_entries, file.entries);
    config::log_error({}, what + ": " + *check.refusal + "; until it is fixed the file can only revoke: " +
                              std::to_string(m_entries.size()) + " token(s) stay valid");
    return;
  }
  config::log_info({{}, {}, {}, {}, {{"tokens", std::to_string(file.entries.size())}}}, what + " re-read");
  warn_unscoped(file, m_path);
  m_entries = std::move(file.entries);
}

void TokenStore::refresh_locked() {
  struct stat info {};
  if (::stat(m_path.c_str(), &info) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) revoke_all_locked();
    // Otherwise (its directory unreadable, say) nothing is known of the file: the tokens stay.
    return;
  }
  if (m_seen && *m_seen == identity_of(info)) return;
  load_locked(info);
}

std::optional<Caller> TokenStore::authenticate(std::string_view token) {
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
  return Caller{match->name, match->scopes};
}

std::size_t TokenStore::size() {
  std::lock_guard lock(m_mutex);
  refresh_locked();
  return m_entries.size();
}

std::string TokenStore::outage() {
  std::lock_guard lock(m_mutex);
  refresh_locked();
  if (!m_entries.empty()) return {};
  return m_gone ? "the API's tokens file is gone" : "the API's tokens file holds no valid line";
}

}  // namespace tpslurm::api
