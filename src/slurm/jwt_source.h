// TokenSource: where the Slurm client gets the JWT for each request (docs/architecture.md §7).
//
// Two implementations:
//   - FileTokenSource (the default) reads TUNEPLANE_SLURM_JWT_FILE: `SLURM_JWT=<token>` as
//     `scontrol token` prints it, or the bare token, with or without a trailing newline. The
//     file is re-read whenever its identity (inode, size, mtime, ctime) changes, so an external
//     rotation just works; an unchanged file costs one stat(). A file that cannot be used (gone,
//     empty, half-written during a rotation: not a JWT, or an HS256 signature that is not 32
//     bytes) keeps the last good token while it is valid; the failure goes to the failure
//     listener once per file state. A token with bytes an HTTP header cannot carry (CR, LF,
//     ...) is refused.
//   - MintingTokenSource (opt-in) mints HS256 tokens from the cluster's key file: for the
//     configured user (credentials()) and, in per-user mode, for a job's user
//     (credentials_for(): `sun` names that user). The key is read once, at the first mint,
//     kept in one buffer zeroed when the source goes, and each copy a mint used is zeroed
//     after it; the settings refuse a key file group or others may read (it signs tokens for
//     every user of the cluster). Each user's token is minted anew once 80 % of the lifespan
//     has passed, or earlier so that at least `margin` of validity is left. One refresh at a
//     time: concurrent callers wait for it and share its token. Until the key has been read,
//     each mint reads it again and a failure is reported to the failure listener every time
//     (an error event, never silence) and fails the call. A rotated cluster key needs a restart.
//
// credentials_for(user), the identity a job's calls go as in per-user mode: a token minted for
// that user; from a token file, the file's token with `user` in X-SLURM-USER-NAME, which Slurm
// accepts only when the token is SlurmUser's or root's (slurmrestd's auth/jwt).
//
// `margin` is how long a request may take (connect + request timeout): a token handed out has
// at least that much validity left, so it cannot expire while a request is under way. A file
// token closer to its expiry than that is refused, as an expired one is.
//
// Errors (kind `permanent`: an operator has to fix a file) name the file and the fix and never
// contain a token or key byte. Both classes are thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/result.h"
#include "model/settings.h"

namespace tpslurm::slurm {

struct Credentials {
  std::string user;   // sent as X-SLURM-USER-NAME
  std::string token;  // sent as X-SLURM-USER-TOKEN; a secret
  std::optional<TimePoint> expires_at;
};

class TokenSource {
 public:
  using FailureListener = std::function<void(const Error&)>;
  virtual ~TokenSource() = default;
  virtual Result<Credentials> credentials() = 0;
  // A job's user (per-user mode). This default: credentials() naming `user` in the header.
  virtual Result<Credentials> credentials_for(std::string_view user);
  // "token file /etc/tuneplane/jwt" or "tokens minted for alice from key file /k": for messages.
  virtual std::string describe() const = 0;
};

class FileTokenSource final : public TokenSource {
 public:
  FileTokenSource(std::string user, std::string path, const Clock& clock, std::chrono::seconds margin = {},
                  FailureListener on_failure = {});
  Result<Credentials> credentials() override;
  std::string describe() const override { return "token file " + m_path; }

 private:
  struct Identity {
    unsigned long long device = 0, inode = 0, size = 0;
    long long mtime_ns = 0, ctime_ns = 0;
    bool operator==(const Identity&) const = default;
  };
  Result<Credentials> load();
  // The last good token when it is still usable after `failure`, which is reported once per
  // file state; else `failure`.
  Result<Credentials> keep_last_good(const Error& failure, const Identity& identity);
  // The token unless it has expired or expires within the margin.
  Result<Credentials> usable(const Credentials& credentials) const;

  std::string m_user;
  std::string m_path;
  const Clock& m_clock;
  std::chrono::seconds m_margin;
  FailureListener m_on_failure;
  std::mutex m_mutex;
  std::optional<Identity> m_identity;
  std::optional<Credentials> m_cached;
  std::optional<Identity> m_reported;  // the file state (all zero: missing) whose failure was reported
};

// A token MintingTokenSource minted: for whom, when and until when, and whether for the
// service identity (credentials()) or for a job's user (credentials_for()). Never the token.
struct Mint {
  std::string user;
  TimePoint at{};
  TimePoint expires_at{};
  bool service = false;
};

class MintingTokenSource final : public TokenSource {
 public:
  using KeyReader = std::function<Result<std::string>()>;
  // Told of each mint, after the source's lock is released (so it may take its time: the
  // daemon journals it), on the thread that asked for the token.
  using MintListener = std::function<void(const Mint&)>;

  // `read_key` defaults to reading `key_file` whole; tests inject their own to count or fail.
  MintingTokenSource(std::string user, std::string key_file, std::chrono::seconds lifespan, const Clock& clock,
                     FailureListener on_failure = {}, KeyReader read_key = {}, std::chrono::seconds margin = {});
  ~MintingTokenSource() override;
  Result<Credentials> credentials() override;
  Result<Credentials> credentials_for(std::string_view user) override;
  std::string describe() const override;
  // Set before the first call.
  void on_mint(MintListener listener) { m_on_mint = std::move(listener); }

 private:
  struct Minted {
    Credentials credentials;
    TimePoint refresh_at{};
  };
  Status read_key_once();

  std::string m_user;
  std::string m_key_file;
  std::chrono::seconds m_lifespan;
  std::chrono::seconds m_margin;
  const Clock& m_clock;
  FailureListener m_on_failure;
  KeyReader m_read_key;
  MintListener m_on_mint;
  std::mutex m_mutex;
  std::string m_key;                           // read once; zeroed in the destructor
  std::map<std::string, Minted, std::less<>> m_minted;  // by user
};

// Reads a whole file; `what` names it in the error ("JWT key file").
Result<std::string> read_secret_file(const std::string& path, std::string_view what);

// How long one request may take by Settings: the connect timeout plus the request timeout.
std::chrono::seconds request_margin(const model::Settings& settings);

// The source Settings ask for: the token file, or minting when only the key file is set, both
// with request_margin(). invalid_argument when neither (or the user) is configured, or when
// the minting lifespan is not more than twice the margin.
// `on_mint` is given to a MintingTokenSource.
Result<std::unique_ptr<TokenSource>> make_token_source(const model::Settings& settings, const Clock& clock,
                                                       MintingTokenSource::FailureListener on_failure = {},
                                                       MintingTokenSource::MintListener on_mint = {});

}  // namespace tpslurm::slurm
