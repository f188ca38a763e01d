// TokenStore: the platform API's bearer tokens (TUNEPLANE_API_TOKENS_FILE) and their scopes.
//
// The file holds one `NAME TOKEN SCOPES` line per client; `#` starts a comment line, blank
// lines are allowed. NAME ([A-Za-z0-9._@-], at most 64 bytes) is what the journal records as
// the actor; TOKEN is 16 to 4096 printable ASCII bytes without blanks; SCOPES is a list of
// scopes.h ("read,submit"). Names and tokens are unique. A line without SCOPES — the format
// before there were scopes — holds every scope: each load logs a warning naming those lines
// (and `doctor` warns). A line counts only once its newline is there: the last line of a file
// read while it is being written is not taken for a token cut short.
//
// The file is a secret (base/secret_file.h). At open() — `serve`'s start — every problem is
// an error: refused, unreadable, or any bad line. Afterwards it is checked at every
// authenticate() and size() by its identity (device, inode, size, modification and change
// times: one stat(2)), and each new version is read once:
//   - gone (removed, renamed away): every token is revoked until a file is there again;
//   - read, with bad lines: the good lines are the tokens; a bad line's token is revoked (a
//     line cut short, broken, or repeating a name or a token of an earlier line);
//   - read, but refused as a secret file (others may write it, another owner): it can only
//     take tokens away — a token stays where the file still has its line, with the scopes both
//     give it — until a version that is not refused;
//   - not readable (permissions, not a regular file, too large): the tokens stay as they were.
// Each is logged once per version (an error naming the file and the line; the count of tokens
// with an info line). Neither messages nor logs ever hold a token.
//
// Only SHA-256 HMACs of the tokens are kept; authenticate() compares the presented token's
// digest against every entry with CRYPTO_memcmp, visiting all of them, so neither the
// token's length nor where it differs shows in the time taken. Thread-safe (one mutex).
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/scopes.h"
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
  Scopes scopes;
  bool scoped = true;    // false: its line names no scopes, and so it holds them all
  std::size_t line = 0;  // in the file, from 1
};

// The file's good lines and what is wrong with the others.
struct TokensFile {
  std::vector<TokenEntry> entries;
  std::vector<std::string> problems;  // "TUNEPLANE_API_TOKENS_FILE PATH line N: ...", one per bad line

  // "2 (alice), 5 (ci)": the lines that name no scopes; empty when every line names them.
  std::string unscoped_lines() const;
};

// Parses the file's text; a problem names `path` and the line, never the token.
TokensFile parse_tokens(std::string_view text, const std::string& path);

// The file as the secret-file rule lets it be read: refused or unreadable is an error (naming
// the setting and the path), else its lines.
Result<TokensFile> read_tokens_file(const std::string& path, uid_t reader_uid);

// Who presented a valid token.
struct Caller {
  std::string name;
  Scopes scopes;
};

class TokenStore {
 public:
  // Fails when read_tokens_file() does or the file has a bad line.
  static Result<std::unique_ptr<TokenStore>> open(const std::string& path, uid_t reader_uid);

  // The holder of `token`, or nullopt (also for an empty token).
  std::optional<Caller> authenticate(std::string_view token);

  // How many tokens are valid now (after reading a changed file).
  std::size_t size();

  // Why no token is valid now ("the API's tokens file is gone"), in words for the client (no
  // path); empty while some are.
  std::string outage();

 private:
  TokenStore(std::string path, uid_t reader_uid) : m_path(std::move(path)), m_reader_uid(reader_uid) {}
  void refresh_locked();
  void revoke_all_locked();
  void load_locked(const struct stat& info);

  const std::string m_path;
  const uid_t m_reader_uid;
  std::mutex m_mutex;
  std::vector<TokenEntry> m_entries;
  std::optional<FileIdentity> m_seen;  // the version last read; none while the file is gone
  bool m_gone = false;
};

// The token digest: HMAC-SHA-256 under a fixed key, so every token compares in 32 bytes.
std::array<std::uint8_t, 32> token_digest(std::string_view token);

}  // namespace tpslurm::api
