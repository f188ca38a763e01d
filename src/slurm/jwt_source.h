// TokenSource: where the Slurm client gets the JWT for each request (ARCHITECTURE.md §7).
//
// Two implementations:
//   - FileTokenSource (the default) reads TUNEPLANE_SLURM_JWT_FILE: `SLURM_JWT=<token>` as
//     `scontrol token` prints it, or the bare token, with or without a trailing newline. The
//     file is re-read whenever its identity (inode, size, mtime, ctime) changes, so an external
//     rotation just works; an unchanged file costs one stat().
//   - MintingTokenSource (opt-in) mints HS256 tokens from the cluster's key file for the one
//     configured user only, and mints a new one once 80 % of the lifespan has passed. One
//     refresh at a time: concurrent callers wait for it and share its token. A failed refresh
//     is reported to the failure listener every time (an error event, never silence); the old
//     token is used while it is still valid, after that credentials() fails.
//
// Errors (kind `permanent`: an operator has to fix a file) name the file and the fix and never
// contain a token or key byte. Both classes are thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

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
  virtual ~TokenSource() = default;
  virtual Result<Credentials> credentials() = 0;
  // "token file /etc/tuneplane/jwt" or "tokens minted for alice from key file /k": for messages.
  virtual std::string describe() const = 0;
};

class FileTokenSource final : public TokenSource {
 public:
  FileTokenSource(std::string user, std::string path, const Clock& clock);
  Result<Credentials> credentials() override;
  std::string describe() const override { return "token file " + m_path; }

 private:
  struct Identity {
    unsigned long long device = 0, inode = 0, size = 0;
    long long mtime_ns = 0, ctime_ns = 0;
    bool operator==(const Identity&) const = default;
  };
  Result<Credentials> load();

  std::string m_user;
  std::string m_path;
  const Clock& m_clock;
  std::mutex m_mutex;
  std::optional<Identity> m_identity;
  std::optional<Credentials> m_cached;
};

class MintingTokenSource final : public TokenSource {
 public:
  using KeyReader = std::function<Result<std::string>()>;
  using FailureListener = std::function<void(const Error&)>;

  // `read_key` defaults to reading `key_file` whole; tests inject their own to count or fail.
  MintingTokenSource(std::string user, std::string key_file, std::chrono::seconds lifespan, const Clock& clock,
                     FailureListener on_failure = {}, KeyReader read_key = {});
  Result<Credentials> credentials() override;
  std::string describe() const override;

 private:
  std::string m_user;
  std::string m_key_file;
  std::chrono::seconds m_lifespan;
  const Clock& m_clock;
  FailureListener m_on_failure;
  KeyReader m_read_key;
  std::mutex m_mutex;
  std::optional<Credentials> m_current;
  TimePoint m_refresh_at{};
};

// Reads a whole file; `what` names it in the error ("JWT key file").
Result<std::string> read_secret_file(const std::string& path, std::string_view what);

// The source Settings ask for: the token file, or minting when only the key file is set.
// invalid_argument when neither (or the user for minting) is configured.
Result<std::unique_ptr<TokenSource>> make_token_source(const model::Settings& settings, const Clock& clock,
                                                       MintingTokenSource::FailureListener on_failure = {});

}  // namespace tpslurm::slurm
