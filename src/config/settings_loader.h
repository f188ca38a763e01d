// Loading model::Settings from TUNEPLANE_* environment variables and an optional env file.
//
// Precedence, per key: the environment over the file; within one source, TUNEPLANE_X over the
// seeds' older FORGE_X (which is accepted with a one-line deprecation warning naming the new
// key). Every invalid value is one problem naming the key, the value, where it was set and what
// is expected; all are collected. Unknown TUNEPLANE_ keys are warnings (with the closest known
// key), so a typo never passes silently. Secret files (the JWT, the HS256 key) are checked
// here, never read: refused when owned by another user or writable by group or others, warned
// about when readable by group or others (mounted secrets are often 0444).
//
// load_settings() reads the env file and stats the secret files; everything else is pure.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "model/problems.h"
#include "model/settings.h"

namespace tpslurm::config {

using Environment = std::map<std::string, std::string, std::less<>>;

// The process environment, as a value (tests build their own).
Environment process_environment();

struct LoadOptions {
  uid_t effective_uid;        // whose secret files are acceptable
  std::string host_name;      // for the default instance id
  std::string home;           // for the default state dir of a non-root user
};

LoadOptions current_process_options();

struct LoadedSettings {
  model::Settings settings;
  std::vector<std::string> warnings;
  // Key -> where its value came from: "environment", "FILE:LINE", or "default".
  std::map<std::string, std::string> sources;
  // Key -> its value as given, for the keys that were set (no setting holds a secret: secrets
  // are read from the files the *_FILE settings name).
  std::map<std::string, std::string> given;
};

Result<LoadedSettings, model::Problems> load_settings(const Environment& environment,
                                                      const std::optional<std::string>& config_file,
                                                      const LoadOptions& options);

// The instance id derived from a host name: its first label, lower-cased, anything but
// [a-z0-9-] replaced by '-', at most 20 characters ("Login01.cluster" -> "login01").
std::string instance_from_host(std::string_view host_name);

}  // namespace tpslurm::config
