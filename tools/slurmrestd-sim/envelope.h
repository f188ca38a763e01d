// Envelope: the parts every slurmrestd JSON answer shares (meta, errors, warnings),
// written per dialect.
//
// v0.0.4x: `meta` {plugin, client, command, slurm{version{major,micro,minor as strings},
// release, cluster}}, `errors[]` {description, error_number, error, source} and
// `warnings[]` {description, source}. A successful answer puts its payload first, then
// meta, errors, warnings; an answer that failed before producing a payload puts errors
// and warnings first and meta last (as the 26.05 transcripts show).
// v0.0.38: `meta` {plugin{type,name}, Slurm{version{ints}, release}}, then `errors[]`
// whose items come in the several shapes the 22.05 handlers produce, no warnings.
// Value types; thread-compatible.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "json_writer.h"
#include "release.h"

namespace tpslurm::sim {

// Who asked, as `meta.client` reports it.
struct RequestContext {
  Release release = Release::r26_05_3;
  Dialect dialect = Dialect::v0045;
  bool slurmdbd = false;  // openapi/slurmdbd plugin instead of openapi/slurmctld
  std::string user = "root";
  std::string group = "root";
  std::string client_source;  // "127.0.0.1:6820(fd:9)"
  std::string cluster_name;
  bool accounting = true;  // the cluster runs slurmdbd
};

struct ErrorItem {
  // The shapes an item of `errors[]` takes.
  enum class Form {
    full,         // {description, error_number, error, source}
    code_first,   // v0.0.38 {error_code, error}
    error_first,  // v0.0.38 {error, error_code}
    no_number,    // v0.0.38 {description, source} (resp_error with rc 0)
  };
  int number = 0;
  std::string description;
  std::string source;
  Form form = Form::full;
  std::string error_text;  // overrides slurm_strerror(number) when set
};

struct WarningItem {
  std::string description;
  std::string source;
};

struct Diagnostics {
  std::vector<ErrorItem> errors;
  std::vector<WarningItem> warnings;

  void error(int number, std::string description, std::string source) {
    errors.push_back({number, std::move(description), std::move(source), ErrorItem::Form::full, {}});
  }
  void warn(std::string description, std::string source) {
    warnings.push_back({std::move(description), std::move(source)});
  }
  // The first error's number (0 if none): what decides the HTTP status.
  int rc() const;
};

void write_meta(JsonWriter& out, const RequestContext& ctx);
void write_errors(JsonWriter& out, const std::vector<ErrorItem>& errors);
void write_warnings(JsonWriter& out, const std::vector<WarningItem>& warnings);

// meta, errors, warnings (v0.0.4x) or meta, errors (v0.0.38) as members of an open object.
void write_tail(JsonWriter& out, const RequestContext& ctx, const Diagnostics& diag);
// A listing's members in its dialect's order: on v0.0.4x the list (`list` writes it), then
// "last_update" (`last_update`), then the tail; on v0.0.38 the tail, then the list.
void write_listing(JsonWriter& out, const RequestContext& ctx, const Diagnostics& diag, std::int64_t last_update,
                   const std::function<void()>& list);
// The v0.0.4x order of an answer without payload: errors, warnings, meta.
void write_errors_first(JsonWriter& out, const RequestContext& ctx, const Diagnostics& diag);

// {"set": true, "infinite": false, "number": n} and friends (v0.0.4x NO_VAL structs).
void write_no_val(JsonWriter& out, std::int64_t number, bool set = true, bool infinite = false);
// "name": and write_no_val().
void no_val_field(JsonWriter& out, std::string_view name, std::int64_t number, bool set = true, bool infinite = false);
void write_no_val_double(JsonWriter& out, double number, bool set);

}  // namespace tpslurm::sim
