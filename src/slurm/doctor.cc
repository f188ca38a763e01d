#include "slurm/doctor.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/algorithm/string/join.hpp>
#include <memory>

#include "base/duration.h"
#include "base/file_system.h"
#include "model/deploy_guide.h"
#include "model/rest_endpoint.h"
#include "slurm/dialect.h"
#include "slurm/doctor_nodes.h"
#include "slurm/doctor_users.h"
#include "slurm/jwt.h"
#include "slurm/jwt_source.h"
#include "slurm/rest_client.h"

namespace tpslurm::slurm {
namespace {

using model::DeployStep;
using model::fix_with_step;

// A token file's token that expires sooner than this is a warning: nothing in the daemon
// renews a file, so whoever writes it has a day left to.
constexpr std::chrono::hours kTokenWarnWithin{24};

DoctorCheck passed(std::string name, std::string detail) { return {std::move(name), true, std::move(detail), {}}; }
DoctorCheck failed(std::string name, std::string detail, std::string fix) {
  return {std::move(name), false, std::move(detail), std::move(fix)};
}
// A failure whose fix is a step of docs/deploy.md.
DoctorCheck failed(std::string name, std::string detail, std::string fix, DeployStep step) {
  return failed(std::move(name), std::move(detail), fix_with_step(std::move(fix), step));
}

// "a, b, c".
std::string join(const std::vector<std::string>& words) { return boost::algorithm::join(words, ", "); }

DoctorCheck check_configuration(const model::Settings& settings) {
  std::vector<std::string> problems;
  std::vector<std::string> fixes;
  const auto& url = settings.rest_url;
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0 && url.rfind("unix:/", 0) != 0) {
    problems.push_back("TUNEPLANE_SLURM_REST_URL \"" + url + "\" is not http://, https:// or unix:/");
    fixes.push_back("set TUNEPLANE_SLURM_REST_URL, e.g. http://127.0.0.1:6820");
  }
  if (settings.rest_api_version != "auto" && make_dialect(settings.rest_api_version) == nullptr) {
    problems.push_back("TUNEPLANE_SLURM_REST_API_VERSION \"" + settings.rest_api_version + "\" is not supported");
    fixes.push_back("use auto (the newest the server offers) or one of " + supported_dialects_text());
  }
  if (settings.rest_user.empty()) {
    problems.push_back("TUNEPLANE_SLURM_REST_USER is not set");
    fixes.push_back("set it to the Slurm user jobs run as");
  }
  if (settings.jwt_file.empty() && settings.jwt_key_file.empty()) {
    problems.push_back("no TUNEPLANE_SLURM_JWT_FILE (or TUNEPLANE_SLURM_JWT_KEY_FILE)");
    fixes.push_back("set TUNEPLANE_SLURM_JWT_FILE to a file holding SLURM_JWT=<token>");
  }
  if (settings.partition.empty()) {
    problems.push_back("TUNEPLANE_SLURM_PARTITION is not set");
    fixes.push_back("set it to the partition GPU jobs go to");
  }
  if (!problems.empty()) return failed("configuration", join(problems), join(fixes), DeployStep::configure_daemon);
  return passed("configuration", "REST " + url + ", API " + settings.rest_api_version + ", user " + settings.rest_user);
}

// A secret file must belong to the service account and be closed to group and others.
std::optional<std::string> secret_file_problem(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return path + " does not exist or cannot be read";
  if (!S_ISREG(info.st_mode)) return path + " is not a regular file";
  if (info.st_uid != ::geteuid()) {
    return path + " is owned by uid " + std::to_string(info.st_uid) + ", not by this process (uid " +
           std::to_string(::geteuid()) + ")";
  }
  if ((info.st_mode & 077) != 0) {
    return path + " has mode " + mode_text(info.st_mode) + "; group and others must have no access";
  }
  return std::nullopt;
}

DoctorCheck check_secret_files(const model::Settings& settings) {
  std::vector<std::string> files;
  if (!settings.jwt_file.empty()) files.push_back(settings.jwt_file);
  if (!settings.jwt_key_file.empty()) files.push_back(settings.jwt_key_file);
  if (files.empty()) {
    return failed("secret files", "no token or key file configured", "set TUNEPLANE_SLURM_JWT_FILE",
                  DeployStep::service_user);
  }
  std::vector<std::string> problems;
  for (const auto& file : files) {
    if (auto problem = secret_file_problem(file)) problems.push_back(*problem);
  }
  if (!problems.empty()) {
    return failed("secret files", join(problems), "chown the file to the service account and chmod 600 it",
                  DeployStep::service_user);
  }
  return passed("secret files", join(files) + ": owned by this user, mode 0600 or stricter");
}

DoctorCheck check_token(TokenSource* tokens, const Error* setup_error, const model::Settings& settings,
                        const Clock& clock) {
  if (tokens == nullptr) {
    return failed("token", setup_error->message(), "fix the configuration above", DeployStep::configure_daemon);
  }
  auto credentials = tokens->credentials();
  if (!credentials.ok()) {
    return failed("token", credentials.error().message(), "write a fresh token (scontrol token lifespan=<seconds>)",
                  DeployStep::service_user);
  }
  if (!credentials->expires_at) {
    return passed("token", tokens->describe() + ": a token without an expiry (Slurm treats a missing exp as expired)");
  }
  const auto left = std::chrono::duration_cast<std::chrono::seconds>(*credentials->expires_at - clock.now());
  const std::string until = " (until " + format_utc(*credentials->expires_at) + ")";
  if (left.count() < 300) {
    return failed("token", tokens->describe() + ": expires in " + format_duration(left) + until,
                  "rotate the token now; use a longer lifespan or minting", DeployStep::service_user);
  }
  const std::string valid = tokens->describe() + ": valid for " + format_duration(left) + until;
  // A minted token is renewed by the daemon before it expires; a file only by whoever writes it.
  if (model::mints_tokens(settings)) return passed("token", valid + "; the daemon mints the next one before it expires");
  if (left < kTokenWarnWithin) {
    return {"token", true, valid + ": it expires within a day and nothing in the daemon renews a token file",
            fix_with_step("renew the file before then (scontrol token lifespan=<seconds>; the package's "
                          "tuneplane-slurm-token.timer does it on a host that keeps the key), or set "
                          "TUNEPLANE_SLURM_JWT_KEY_FILE instead for the daemon to mint its own",
                          DeployStep::service_user),
            true};
  }
  return passed("token", valid);
}

// Which user the token acts as. A token for another user than the REST user, or for root, is
// a finding: Slurm lets a root (or SlurmUser) token act for any user named in the header.
// slurmrestd does not report SlurmUser, so only root and users with uid 0 are recognised.
DoctorCheck check_token_user(TokenSource& tokens, const model::Settings& settings) {
  auto credentials = tokens.credentials();
  if (!credentials.ok()) return failed("token user", credentials.error().message(), "fix the token first");
  auto claims = read_claims(credentials->token);
  const std::string user = claims.ok() ? claims->user : std::string();
  if (user.empty()) {
    return failed("token user", "the token names no user (`sun`)",
                  "write a token for " + settings.rest_user + " (scontrol token username=" + settings.rest_user + ")",
                  DeployStep::service_user);
  }
  if (user != settings.rest_user) {
    return failed("token user", "the token is for " + user + ", not TUNEPLANE_SLURM_REST_USER " + settings.rest_user,
                  "write a token for " + settings.rest_user + " (scontrol token username=" + settings.rest_user + ")",
                  DeployStep::service_user);
  }
  const struct passwd* account = ::getpwnam(user.c_str());
  if (user == "root" || (account != nullptr && account->pw_uid == 0)) {
    return failed("token user", "the token is for " + user + " (uid 0), which Slurm lets act as any user",
                  "run jobs as an unprivileged Slurm user with a token of its own", DeployStep::service_user);
  }
  return passed("token user", "the token is for " + user +
                                  ", not root (SlurmUser is not checked: slurmrestd does not report it)");
}

// Whether the JWT crosses the network unencrypted (model/rest_endpoint.h).
DoctorCheck check_token_transport(const model::Settings& settings) {
  const auto host = model::cleartext_token_host(settings.rest_url, settings.proxy);
  if (!host) return passed("token transport", "the JWT goes over https://, a unix socket or loopback only");
  const std::string detail = "the JWT goes unencrypted over http:// to " + *host;
  if (settings.allow_insecure_http) return passed("token transport", detail + " (TUNEPLANE_SLURM_ALLOW_INSECURE_HTTP=1)");
  return failed("token transport", detail,
                "use https:// or a unix: socket, or set TUNEPLANE_SLURM_ALLOW_INSECURE_HTTP=1 to accept it",
                DeployStep::slurmrestd);
}

// Whether slurmdbd answers through slurmrestd. A cluster without accounting is supported: what
// slurmctld purged is then known only from the attempt's own evidence files.
DoctorCheck check_accounting(const AccountingResult& found) {
  if (!found.ok()) {
    return failed("accounting", found.message,
                  "start slurmdbd (or fix AccountingStorageHost); while it does not answer no search is complete",
                  DeployStep::min_job_age);
  }
  if (found.present) return passed("accounting", "slurmdbd answers: a job slurmctld purged is still found there");
  return passed("accounting", "none (" + found.message +
                                  "), a supported configuration: a job slurmctld purged is known only from its "
                                  "attempt's logs/exit.json and logs/slurm-job.json");
}

}  // namespace

std::vector<DoctorCheck> run_doctor(const model::Settings& settings, Transport& transport, const Clock& clock,
                                    const std::vector<model::MappedUser>* mapped,
                                    MintingTokenSource::MintListener on_mint, const model::GpuSeriesCatalog* series) {
  std::vector<DoctorCheck> checks;
  checks.push_back(check_configuration(settings));
  checks.push_back(check_token_transport(settings));
  checks.push_back(check_secret_files(settings));

  auto made = make_token_source(settings, clock, {}, std::move(on_mint));
  std::unique_ptr<TokenSource> tokens;
  std::optional<Error> setup_error;
  if (made.ok()) {
    tokens = std::move(made).value();
  } else {
    setup_error = made.error();
  }
  checks.push_back(check_token(tokens.get(), setup_error ? &*setup_error : nullptr, settings, clock));
  if (!tokens) return checks;
  checks.push_back(check_token_user(*tokens, settings));

  const std::string version = make_dialect(settings.rest_api_version) ? settings.rest_api_version : "auto";
  auto client = RestClient::create(transport, *tokens, version);
  if (!client.ok()) {
    checks.push_back(failed("REST reachability", client.error().message(), "fix TUNEPLANE_SLURM_REST_API_VERSION",
                            DeployStep::configure_daemon));
    return checks;
  }

  const ServerResult server = (*client)->detect();
  if (server.outcome == Outcome::not_sent || server.outcome == Outcome::uncertain ||
      (server.outcome == Outcome::auth && server.http_status == 0)) {
    checks.push_back(failed("REST reachability", server.message,
                            "start slurmrestd or fix TUNEPLANE_SLURM_REST_URL (" + transport.endpoint() + ")",
                            DeployStep::slurmrestd));
    return checks;
  }
  checks.push_back(passed("REST reachability", "slurmrestd at " + transport.endpoint() + " answers"));
  const std::string release = server.release.empty() ? "unknown" : server.release;
  if (!server.ok()) {
    checks.push_back(settings.rest_api_version == "auto"
                         ? failed("REST versions", server.message, "see above: no version in common",
                                  DeployStep::slurmrestd)
                         : failed("REST versions", server.message, "set TUNEPLANE_SLURM_REST_API_VERSION to auto",
                                  DeployStep::configure_daemon));
    return checks;
  }
  checks.push_back(passed("REST versions", "offers " + join(server.offered) + "; using " + server.dialect +
                                               "; Slurm release " + release));

  const CallResult auth = (*client)->preflight();
  if (auth.outcome == Outcome::auth) {
    checks.push_back(failed("authenticated call", auth.message,
                            "the token is refused: check it belongs to " + settings.rest_user +
                                " and was signed with the cluster's key; rotate it",
                            DeployStep::jwt_authentication));
  } else if (!auth.ok()) {
    checks.push_back(failed("authenticated call", auth.message, "check slurmctld is up and reachable from slurmrestd",
                            DeployStep::slurmrestd));
  } else {
    checks.push_back(passed("authenticated call", "slurmctld accepted the token for " + settings.rest_user));
  }

  std::vector<std::string> wanted;
  if (!settings.partition.empty()) wanted.push_back(settings.partition);
  if (!settings.cpu_partition.empty() && settings.cpu_partition != settings.partition) wanted.push_back(settings.cpu_partition);
  const PartitionsResult partitions = (*client)->partitions();
  if (!partitions.ok()) {
    checks.push_back(failed("partitions", partitions.message, "fix the authenticated call first"));
  } else {
    std::vector<std::string> missing;
    for (const auto& name : wanted) {
      if (std::find(partitions.names.begin(), partitions.names.end(), name) == partitions.names.end()) missing.push_back(name);
    }
    if (!missing.empty()) {
      checks.push_back(failed("partitions", "not on the cluster: " + join(missing) + " (it has " + join(partitions.names) + ")",
                              "set TUNEPLANE_SLURM_PARTITION / TUNEPLANE_SLURM_CPU_PARTITION to existing partitions",
                              DeployStep::configure_daemon));
    } else {
      checks.push_back(passed("partitions", join(wanted) + (wanted.size() == 1 ? " exists" : " exist")));
    }
  }

  if (series != nullptr) checks.push_back(check_gpu_series((*client)->nodes(), *series));

  const AccountingResult accounting = (*client)->accounting();
  checks.push_back(check_accounting(accounting));
  checks.push_back(passed("identity", server.policy.describe() + " (release " + release + ", " + server.dialect + ")"));
  if (mapped != nullptr) checks.push_back(check_slurm_users(**client, settings, *mapped, accounting.present));
  return checks;
}

std::string format_report(const std::vector<DoctorCheck>& checks) {
  std::string report;
  for (const auto& check : checks) {
    report += !check.ok ? "FAIL  " : check.warning ? "warn  " : "ok    ";
    report += check.name + ": " + check.detail;
    if ((!check.ok || check.warning) && !check.fix.empty()) report += "; fix: " + check.fix;
    report += '\n';
  }
  return report;
}

bool all_ok(const std::vector<DoctorCheck>& checks) {
  return std::all_of(checks.begin(), checks.end(), [](const DoctorCheck& check) { return check.ok; });
}

}  // namespace tpslurm::slurm
