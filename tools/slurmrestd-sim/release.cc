#include "release.h"

#include "slurm_errors.h"

namespace tpslurm::sim {

std::optional<Release> parse_release(std::string_view text) {
  if (text == "26.05.3" || text == "26.05") return Release::r26_05_3;
  if (text == "25.11.7" || text == "25.11") return Release::r25_11_7;
  if (text == "25.05.0" || text == "25.05") return Release::r25_05_0;
  if (text == "24.11.7" || text == "24.11") return Release::r24_11_7;
  if (text == "24.05.8" || text == "24.05") return Release::r24_05_8;
  if (text == "23.11.11" || text == "23.11") return Release::r23_11_11;
  if (text == "23.11.4") return Release::r23_11_4;
  if (text == "22.05.8" || text == "22.05") return Release::r22_05_8;
  return std::nullopt;
}

std::string_view release_name(Release release) {
  switch (release) {
    case Release::r26_05_3: return "26.05.3";
    case Release::r25_11_7: return "25.11.7";
    case Release::r25_05_0: return "25.05.0";
    case Release::r24_11_7: return "24.11.7";
    case Release::r24_05_8: return "24.05.8";
    case Release::r23_11_11: return "23.11.11";
    case Release::r23_11_4: return "23.11.4";
    case Release::r22_05_8: return "22.05.8";
  }
  return "";
}

int release_major(Release release) {
  switch (release) {
    case Release::r26_05_3: return 26;
    case Release::r25_11_7:
    case Release::r25_05_0: return 25;
    case Release::r24_11_7:
    case Release::r24_05_8: return 24;
    case Release::r23_11_11:
    case Release::r23_11_4: return 23;
    case Release::r22_05_8: return 22;
  }
  return 0;
}

int release_minor(Release release) {
  switch (release) {
    case Release::r25_11_7:
    case Release::r24_11_7:
    case Release::r23_11_11:
    case Release::r23_11_4: return 11;
    default: return 5;
  }
}

int release_micro(Release release) {
  switch (release) {
    case Release::r26_05_3: return 3;
    case Release::r25_11_7: return 7;
    case Release::r25_05_0: return 0;
    case Release::r24_11_7: return 7;
    case Release::r24_05_8: return 8;
    case Release::r23_11_11: return 11;
    case Release::r23_11_4: return 4;
    case Release::r22_05_8: return 8;
  }
  return 0;
}

int first_served_version(Release release) {
  switch (release) {
    case Release::r26_05_3: return 42;
    case Release::r25_11_7: return 41;
    case Release::r25_05_0: return 40;
    case Release::r24_11_7: return 40;
    case Release::r24_05_8: return 39;
    case Release::r23_11_11:
    case Release::r23_11_4: return 38;
    case Release::r22_05_8: return 36;
  }
  return 0;
}

int last_served_version(Release release) {
  switch (release) {
    case Release::r26_05_3: return 45;
    case Release::r25_11_7: return 44;
    case Release::r25_05_0: return 43;
    case Release::r24_11_7: return 42;
    case Release::r24_05_8: return 41;
    case Release::r23_11_11:
    case Release::r23_11_4: return 40;
    case Release::r22_05_8: return 38;
  }
  return 0;
}

VersionSupport version_support(Release release, std::string_view segment, Dialect* dialect) {
  constexpr std::string_view kPrefix = "v0.0.";
  if (segment.size() != kPrefix.size() + 2 || segment.substr(0, kPrefix.size()) != kPrefix) {
    return VersionSupport::not_served;
  }
  char tens = segment[kPrefix.size()];
  char ones = segment[kPrefix.size() + 1];
  if (tens < '0' || tens > '9' || ones < '0' || ones > '9') return VersionSupport::not_served;
  int version = (tens - '0') * 10 + (ones - '0');
  if (version < first_served_version(release) || version > last_served_version(release)) {
    return VersionSupport::not_served;
  }
  Dialect found;
  switch (version) {
    case 38: found = Dialect::v0038; break;
    case 40: found = Dialect::v0040; break;
    case 41: found = Dialect::v0041; break;
    case 42: found = Dialect::v0042; break;
    case 43: found = Dialect::v0043; break;
    case 44: found = Dialect::v0044; break;
    case 45: found = Dialect::v0045; break;
    default: return VersionSupport::served_not_implemented;
  }
  if (dialect) *dialect = found;
  return VersionSupport::implemented;
}

std::string_view dialect_name(Dialect dialect) {
  switch (dialect) {
    case Dialect::v0038: return "v0.0.38";
    case Dialect::v0040: return "v0.0.40";
    case Dialect::v0041: return "v0.0.41";
    case Dialect::v0042: return "v0.0.42";
    case Dialect::v0043: return "v0.0.43";
    case Dialect::v0044: return "v0.0.44";
    case Dialect::v0045: return "v0.0.45";
  }
  return "";
}

bool is_v4x(Dialect dialect) { return dialect != Dialect::v0038; }

int dialect_number(Dialect dialect) {
  switch (dialect) {
    case Dialect::v0038: return 38;
    case Dialect::v0040: return 40;
    case Dialect::v0041: return 41;
    case Dialect::v0042: return 42;
    case Dialect::v0043: return 43;
    case Dialect::v0044: return 44;
    case Dialect::v0045: return 45;
  }
  return 0;
}

bool is_23_11(Release release) { return release == Release::r23_11_11 || release == Release::r23_11_4; }

bool binds_jobs_state(Release release) { return release != Release::r23_11_4 && release != Release::r22_05_8; }

bool submit_needs_top_level_script(Release release) { return release == Release::r23_11_4; }

bool kill_jobs_rpc(Release release) {
  return release != Release::r24_05_8 && !is_23_11(release) && release != Release::r22_05_8;
}

bool kill_jobs_endpoint(Release release) { return release != Release::r23_11_4 && release != Release::r22_05_8; }

bool slurmctld_calls_open_dbd(Release release) { return is_23_11(release); }

bool sluid_in_paths(Release release) { return release == Release::r26_05_3; }

int invalid_path_status(Release release) {
  return release == Release::r26_05_3 || release == Release::r25_11_7 ? 404 : 400;
}

namespace {

bool is_comms_error(int rc) {
  return (rc >= err::kCommunicationsConnection && rc <= err::kCommunicationsShutdown) ||
         (rc >= err::kCtldCommunicationsConnection && rc <= err::kCtldCommunicationsHardDrop);
}


// The explicit table of http_status_from_error() (src/common/http.c, 25.11 and later),
// consulted before anything else; 0 when the error is not in it.
int table_status(int rc) {
  switch (rc) {
    case err::kRestInvalidQuery: return 422;
    case err::kRestFailParsing:
    case err::kRestInvalidJobsDesc: return 400;
    case err::kInvalidJobId: return 404;
    case err::kDbConnection: return 502;
    case err::kSocketTimeout: return 504;
    case err::kProtocolAuthentication: return 511;
    case err::kAuthCredInvalid:
    case err::kAuthExpired: return 401;
    default: return is_comms_error(rc) && rc != err::kCtldCommunicationsHardDrop ? 502 : 0;
  }
}

}  // namespace

int http_status_for_error(Release release, int rc) {
  if (rc == 0) return 200;
  switch (release) {
    case Release::r22_05_8:
      // operations.c@22.05: parse errors are the client's fault, everything else is 500.
      if (rc == err::kRestInvalidQuery || rc == err::kRestFailParsing || rc == err::kRestInvalidJobsDesc) {
        return 400;
      }
      return 500;
    case Release::r24_05_8:
    case Release::r23_11_11:
    case Release::r23_11_4:
      // operations.c@23.11/24.05 (_call_handler): anything else, authentication and
      // communication errors included, is 500.
      if (rc == err::kRestInvalidQuery) return 422;
      if (rc == err::kRestFailParsing || rc == err::kRestInvalidJobsDesc) return 400;
      if (rc == err::kInvalidJobId) return 404;
      return 500;
    case Release::r24_11_7:
      // operations.c@24.11: the 25.05 table below, with slurmdbd unreachable as a bad gateway.
      if (rc == err::kDbConnection) return 502;
      [[fallthrough]];
    case Release::r25_05_0:
      // operations.c@25.05's table; anything else is 500.
      if (rc == err::kRestInvalidQuery) return 422;
      if (rc == err::kRestFailParsing || rc == err::kRestInvalidJobsDesc) return 400;
      if (rc == err::kInvalidJobId) return 404;
      if (is_comms_error(rc)) return 502;
      if (rc == err::kSocketTimeout) return 504;
      if (rc == err::kProtocolAuthentication) return 511;
      return 500;
    case Release::r25_11_7:
      if (int status = table_status(rc)) return status;
      return 500;
    case Release::r26_05_3:
      if (int status = table_status(rc)) return status;
      if (rc == err::kRestAuthFail) return 401;
      if (rc == 1) return 403;  // EPERM
      // Added in 26.05.0 (commit 3a848d76a8): slurmctld and slurmdbd refusals are the client's.
      if ((rc >= err::kInvalidPartitionName && rc <= err::kInvalidSluid) ||
          (rc >= err::kDbConnection && rc <= err::kNoRpcStats)) {
        return 422;
      }
      return 500;
  }
  return 500;
}

std::string_view reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 304: return "NOT MODIFIED";
    case 400: return "BAD REQUEST";
    case 401: return "UNAUTHORIZED";
    case 403: return "FORBIDDEN";
    case 404: return "NOT FOUND";
    case 405: return "NOT ALLOWED";
    case 415: return "UNSUPPORTED MEDIA TYPE";
    case 422: return "UNPROCESSABLE CONTENT";
    case 500: return "INTERNAL ERROR";
    case 502: return "BAD GATEWAY";
    case 503: return "SERVICE UNAVAILABLE";
    case 504: return "GATEWAY TIMEOUT";
    case 511: return "Network Authentication Required";
    default: return "default";
  }
}

}  // namespace tpslurm::sim
