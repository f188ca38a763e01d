#include "slurm/jwt_source.h"

#include <openssl/crypto.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "slurm/jwt.h"
#include "slurm/transport.h"

namespace tpslurm::slurm {

Result<Credentials> TokenSource::credentials_for(std::string_view user) {
  auto credentials = this->credentials();
  if (credentials.ok()) credentials->user = std::string(user);
  return credentials;
}

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\r' || text.front() == '\n')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' || text.back() == '\n')) {
    text.remove_suffix(1);
  }
  return text;
}

// The first non-empty line, without a `SLURM_JWT=` prefix (scontrol token's output).
std::string_view token_text(std::string_view content) {
  while (!content.empty()) {
    const auto end = content.find('\n');
    std::string_view line = trim(content.substr(0, end));
    if (!line.empty()) {
      constexpr std::string_view kPrefix = "SLURM_JWT=";
      if (line.rfind(kPrefix, 0) == 0) line = trim(line.substr(kPrefix.size()));
      return line;
    }
    if (end == std::string_view::npos) break;
    content.remove_prefix(end + 1);
  }
  return {};
}

std::optional<TimePoint> expiry_of(std::string_view token) {
  auto claims = read_claims(token);
  if (!claims.ok() || !claims->expires_at) return std::nullopt;
  return from_unix_seconds(*claims->expires_at);
}

}  // namespace

Result<std::string> read_secret_file(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return permanent(std::string(what) + " " + path + ": cannot be read; check that it exists and its owner and mode");
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return permanent(std::string(what) + " " + path + ": read failed");
  return content.str();
}

FileTokenSource::FileTokenSource(std::string user, std::string path, const Clock& clock, std::chrono::seconds margin,
                                 FailureListener on_failure)
    : m_user(std::move(user)),
      m_path(std::move(path)),
      m_clock(clock),
      m_margin(margin),
      m_on_failure(std::move(on_failure)) {}

Result<Credentials> FileTokenSource::credentials() {
  std::lock_guard lock(m_mutex);
  struct stat info {};
  if (::stat(m_path.c_str(), &info) != 0) {
    return keep_last_good(
        permanent("token file " + m_path +
                  ": cannot be read; create it (scontrol token prints SLURM_JWT=<token>) or fix TUNEPLANE_SLURM_JWT_FILE"),
        Identity{});
  }
  const Identity identity{static_cast<unsigned long long>(info.st_dev), static_cast<unsigned long long>(info.st_ino),
                          static_cast<unsigned long long>(info.st_size),
                          static_cast<long long>(info.st_mtim.tv_sec) * 1'000'000'000LL + info.st_mtim.tv_nsec,
                          static_cast<long long>(info.st_ctim.tv_sec) * 1'000'000'000LL + info.st_ctim.tv_nsec};
  if (!m_cached || !m_identity || !(*m_identity == identity)) {
    // A state that already failed is not read again until the file changes.
    if (m_reported && *m_reported == identity && m_cached) return usable(*m_cached);
    auto loaded = load();
    if (!loaded.ok()) return keep_last_good(loaded.error(), identity);
    m_cached = std::move(loaded).value();
    m_identity = identity;
    m_reported.reset();
  }
  return usable(*m_cached);
}

Result<Credentials> FileTokenSource::keep_last_good(const Error& failure, const Identity& identity) {
  const bool report = !m_reported || !(*m_reported == identity);
  m_reported = identity;
  if (!m_cached || !usable(*m_cached).ok()) return failure;
  if (report && m_on_failure) m_on_failure(failure.with_context("keeping the last good Slurm token"));
  return *m_cached;
}

Result<Credentials> FileTokenSource::usable(const Credentials& credentials) const {
  if (!credentials.expires_at) return credentials;
  const TimePoint now = m_clock.now();
  if (*credentials.expires_at <= now) {
    return permanent("token file " + m_path + ": the token expired at " + format_utc(*credentials.expires_at) +
                     "; write a fresh one (scontrol token lifespan=<seconds>)");
  }
  if (*credentials.expires_at - now < m_margin) {
    return permanent("token file " + m_path + ": the token expires at " + format_utc(*credentials.expires_at) +
                     ", sooner than a request may take (" + std::to_string(m_margin.count()) +
                     "s: TUNEPLANE_SLURM_CONNECT_TIMEOUT + TUNEPLANE_SLURM_REQUEST_TIMEOUT); write a fresh one");
  }
  return credentials;
}

Result<Credentials> FileTokenSource::load() {
  auto content = read_secret_file(m_path, "token file");
  if (!content.ok()) return content.error();
  const std::string_view token = token_text(*content);
  if (token.empty()) {
    return permanent("token file " + m_path + ": holds no token; write SLURM_JWT=<token> or the bare token");
  }
  if (auto problem = header_value_problem(token)) {
    return permanent("token file " + m_path + ": the token " + *problem +
                     "; write the token on one line (SLURM_JWT=<token> or the bare token)");
  }
  if (!read_claims(token).ok()) {
    return permanent("token file " + m_path + ": does not hold a JWT; write SLURM_JWT=<token> or the bare token");
  }
  if (auto problem = token_shape_problem(token)) {
    return permanent("token file " + m_path + ": does not hold a whole JWT (" + *problem +
                     "); write SLURM_JWT=<token> or the bare token, beside the file and rename it into place");
  }
  return Credentials{m_user, std::string(token), expiry_of(token)};
}

MintingTokenSource::MintingTokenSource(std::string user, std::string key_file, std::chrono::seconds lifespan,
                                       const Clock& clock, FailureListener on_failure, KeyReader read_key,
                                       std::chrono::seconds margin)
    : m_user(std::move(user)),
      m_key_file(std::move(key_file)),
      m_lifespan(lifespan),
      m_margin(margin),
      m_clock(clock),
      m_on_failure(std::move(on_failure)),
      m_read_key(std::move(read_key)) {
  if (!m_read_key) {
    m_read_key = [path = m_key_file] { return read_secret_file(path, "JWT key file"); };
  }
}

std::string MintingTokenSource::describe() const {
  return "tokens minted for " + m_user + " from key file " + m_key_file;
}

MintingTokenSource::~MintingTokenSource() { OPENSSL_cleanse(m_key.data(), m_key.size()); }

Result<Credentials> MintingTokenSource::credentials() { return credentials_for(m_user); }

// The key, read at the first mint that needs it and kept; a failed read is tried again by the
// next mint. The reader's copy is zeroed once taken.
Status MintingTokenSource::read_key_once() {
  if (!m_key.empty()) return ok_status();
  auto key = m_read_key();
  if (!key.ok()) return key.error();
  if (key->empty()) {
    return permanent("JWT key file " + m_key_file +
                     ": is empty; point TUNEPLANE_SLURM_JWT_KEY_FILE at the cluster's jwt_hs256.key");
  }
  m_key.assign(*key);
  OPENSSL_cleanse(key->data(), key->size());
  return ok_status();
}

Result<Credentials> MintingTokenSource::credentials_for(std::string_view user) {
  // Held across the refresh: a second caller waits and then finds the fresh token.
  std::unique_lock lock(m_mutex);
  const TimePoint now = m_clock.now();
  auto current = m_minted.find(user);
  if (current != m_minted.end() && now < current->second.refresh_at) return current->second.credentials;

  // Once read, the key stays: only the mints before a first good read can fail here.
  if (Status read = read_key_once(); !read.ok()) {
    const Error failure = read.error().with_context("refreshing the Slurm token for " + std::string(user));
    if (m_on_failure) m_on_failure(failure);
    return failure;
  }
  Credentials fresh{std::string(user), mint_hs256(m_key, user, now, m_lifespan), now + m_lifespan};
  // At 80 % of the lifespan, or earlier so that a request started just before the refresh
  // still ends before the token expires.
  const auto at_80 = std::chrono::duration_cast<std::chrono::milliseconds>(m_lifespan) * 8 / 10;
  const auto before_margin = std::chrono::duration_cast<std::chrono::milliseconds>(m_lifespan - m_margin);
  const TimePoint refresh_at = now + std::max(std::chrono::milliseconds(0), std::min(at_80, before_margin));
  Minted& minted = m_minted[std::string(user)];
  minted = {std::move(fresh), refresh_at};
  Credentials handed = minted.credentials;
  lock.unlock();
  if (m_on_mint) m_on_mint(Mint{handed.user, now, *handed.expires_at, handed.user == m_user});
  return handed;
}

std::chrono::seconds request_margin(const model::Settings& settings) {
  return settings.connect_timeout + settings.request_timeout;
}

Result<std::unique_ptr<TokenSource>> make_token_source(const model::Settings& settings, const Clock& clock,
                                                       MintingTokenSource::FailureListener on_failure,
                                                       MintingTokenSource::MintListener on_mint) {
  const std::chrono::seconds margin = request_margin(settings);
  if (settings.rest_user.empty()) {
    return invalid_argument("TUNEPLANE_SLURM_REST_USER is not set; name the Slurm user jobs run as");
  }
  if (!settings.jwt_file.empty()) {
    return std::unique_ptr<TokenSource>(
        std::make_unique<FileTokenSource>(settings.rest_user, settings.jwt_file, clock, margin, std::move(on_failure)));
  }
  if (model::mints_tokens(settings)) {
    if (settings.jwt_lifespan.count() < 10) {
      return invalid_argument("JWT lifespan " + std::to_string(settings.jwt_lifespan.count()) +
                              "s is too short; use at least 10s");
    }
    if (settings.jwt_lifespan <= 2 * margin) {
      return invalid_argument("TUNEPLANE_SLURM_JWT_LIFESPAN " + std::to_string(settings.jwt_lifespan.count()) +
                              "s is too short for requests that may take " + std::to_string(margin.count()) +
                              "s (TUNEPLANE_SLURM_CONNECT_TIMEOUT + TUNEPLANE_SLURM_REQUEST_TIMEOUT); use more than " +
                              std::to_string(2 * margin.count()) + "s");
    }
    auto minting = std::make_unique<MintingTokenSource>(settings.rest_user, settings.jwt_key_file,
                                                        settings.jwt_lifespan, clock, std::move(on_failure),
                                                        MintingTokenSource::KeyReader{}, margin);
    minting->on_mint(std::move(on_mint));
    return std::unique_ptr<TokenSource>(std::move(minting));
  }
  return invalid_argument(
      "neither TUNEPLANE_SLURM_JWT_FILE nor TUNEPLANE_SLURM_JWT_KEY_FILE is set; set the token file (or, opt-in, the HS256 key file)");
}

}  // namespace tpslurm::slurm
