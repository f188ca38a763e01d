// TokenStore: the platform API's bearer tokens (TUNEPLANE_API_TOKENS_FILE).
//
// The file holds one `NAME TOKEN` line per client; `#` starts a comment line, blank lines are
// allowed. NAME ([A-Za-z0-9._@-], at most 64 bytes) is what the journal records as the actor;
// TOKEN is 16 to 4096 printable ASCII bytes without blanks. Names and tokens are unique.
//
// The file is a secret (base/secret_file.h): checked before every read. It is read at open()
// — where any problem is an error, so `serve` does not start with a bad file — and again
// whenever its identity (device, inode, size, modification and change times) differs from the
// last read. A re-read that fails (refused mode, unreadable, a bad line) keeps the last good
// set and logs one error naming the file and the line, once per version of the file; a good
// one replaces the set (a removed line is revoked at once) and is logged with the count.
// Neither messages nor logs ever hold a token.
//
// Only SHA-256 HMACs of the tokens are kept; authenticate() compares the presented token's
// digest against every entry with CRYPTO_memcmp, visiting all of them, so neither the
// token's length nor where it differs shows in the time taken. Thread-safe (one mutex).
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace tpslurm::api {

// Which version of the file was read: it changed when any of these did.
struct FileIdentity {
  unsigned long long device = 0, inode = 0, size = 0;
  long long modified_ns = 0, changed_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};

struct TokenEntry {
  std::string name;
  std::array<std::uint8_t, 32> digest{};
};

// Parses the file's text; the error names `path` and the line, never the token.
Result<std::vector<TokenEntry>> parse_tokens(std::string_view text, const std::string& path);

class TokenStore {
 public:
  static Result<std::unique_ptr<TokenStore>> open(const std::string& path, uid_t reader_uid);

  // The NAME whose token `token` is, or nullopt (also for an empty token).
  std::optional<std::string> authenticate(std::string_view token);

  // How many tokens the current set holds (after re-reading a changed file).
  std::size_t size();

 private:
  TokenStore(std::string path, uid_t reader_uid) : m_path(std::move(path)), m_reader_uid(reader_uid) {}
  // Reads the file as it is now; the entries and its identity, or what is wrong with it.
  Result<std::pair<std::vector<TokenEntry>, FileIdentity>> read_now() const;
  void refresh_locked();

  const std::string m_path;
  const uid_t m_reader_uid;
  std::mutex m_mutex;
  std::vector<TokenEntry> m_entries;
  std::optional<FileIdentity> m_identity;          // of the file last read successfully
  std::optional<FileIdentity> m_reported_failure;  // the version whose failure was logged
};

// The token digest: HMAC-SHA-256 under a fixed key, so every token compares in 32 bytes.
std::array<std::uint8_t, 32> token_digest(std::string_view token);

}  // namespace tpslurm::api
