#include "envelope.h"

#include <cstdio>

#include "slurm_errors.h"

namespace tpslurm::sim {

int Diagnostics::rc() const {
  for (const auto& e : errors) {
    if (e.number != 0) return e.number;
  }
  return 0;
}

void write_meta(JsonWriter& out, const RequestContext& ctx) {
  out.key("meta").begin_object();
  if (!is_v4x(ctx.dialect)) {
    out.key("plugin").begin_object();
    out.str_field("type", ctx.slurmdbd ? "openapi/dbv0.0.38" : "openapi/v0.0.38");
    out.str_field("name", ctx.slurmdbd ? "Slurm OpenAPI DB v0.0.38" : "Slurm OpenAPI v0.0.38");
    out.end_object();
    out.key("Slurm").begin_object();
    out.key("version").begin_object();
    out.int_field("major", release_major(ctx.release));
    out.int_field("micro", release_micro(ctx.release));
    out.int_field("minor", release_minor(ctx.release));
    out.end_object();
    out.str_field("release", release_name(ctx.release));
    out.end_object();
    out.end_object();
    return;
  }
  out.key("plugin").begin_object();
  out.str_field("type", ctx.slurmdbd ? "openapi/slurmdbd" : "openapi/slurmctld");
  out.str_field("name", ctx.slurmdbd ? "Slurm OpenAPI slurmdbd" : "Slurm OpenAPI slurmctld");
  out.str_field("data_parser", "data_parser/" + std::string(dialect_name(ctx.dialect)));
  out.str_field("accounting_storage", ctx.accounting ? "accounting_storage/slurmdbd" : "");
  out.end_object();
  out.key("client").begin_object();
  out.str_field("source", ctx.client_source);
  out.str_field("user", ctx.user);
  out.str_field("group", ctx.group);
  out.end_object();
  out.empty_array_field("command");
  out.key("slurm").begin_object();
  out.key("version").begin_object();
  out.str_field("major", std::to_string(release_major(ctx.release)));
  out.str_field("micro", std::to_string(release_micro(ctx.release)));
  char minor[8];
  std::snprintf(minor, sizeof minor, "%02d", release_minor(ctx.release));
  out.str_field("minor", minor);
  out.end_object();
  out.str_field("release", release_name(ctx.release));
  out.str_field("cluster", ctx.cluster_name);
  out.end_object();
  out.end_object();
}

void write_errors(JsonWriter& out, const std::vector<ErrorItem>& errors) {
  out.key("errors").begin_array();
  for (const auto& e : errors) {
    std::string text = e.error_text.empty() ? std::string(err::strerror(e.number)) : e.error_text;
    out.begin_object();
    switch (e.form) {
      case ErrorItem::Form::full:
        out.str_field("description", e.description);
        out.int_field("error_number", e.number);
        out.str_field("error", text);
        out.str_field("source", e.source);
        break;
      case ErrorItem::Form::code_first:
        out.int_field("error_code", e.number);
        out.str_field("error", text);
        break;
      case ErrorItem::Form::error_first:
        out.str_field("error", text);
        out.int_field("error_code", e.number);
        break;
      case ErrorItem::Form::no_number:
        out.str_field("description", e.description);
        out.str_field("source", e.source);
        break;
    }
    out.end_object();
  }
  out.end_array();
}

void write_warnings(JsonWriter& out, const std::vector<WarningItem>& warnings) {
  out.key("warnings").begin_array();
  for (const auto& w : warnings) {
    out.begin_object();
    out.str_field("description", w.description);
    out.str_field("source", w.source);
    out.end_object();
  }
  out.end_array();
}

void write_listing(JsonWriter& out, const RequestContext& ctx, const Diagnostics& diag, std::int64_t last_update,
                   const std::function<void()>& list) {
  if (is_v4x(ctx.dialect)) {
    list();
    out.key("last_update");
    write_no_val(out, last_update);
    write_tail(out, ctx, diag);
  } else {
    write_tail(out, ctx, diag);
    list();
  }
}

void write_tail(JsonWriter& out, const RequestContext& ctx, const Diagnostics& diag) {
  write_meta(out, ctx);
  write_errors(out, diag.errors);
  if (is_v4x(ctx.dialect)) write_warnings(out, diag.warnings);
}

void write_errors_first(JsonWriter& out, const RequestContext& ctx, const Diagnostics& diag) {
  write_errors(out, diag.errors);
  write_warnings(out, diag.warnings);
  write_meta(out, ctx);
}

void no_val_field(JsonWriter& out, std::string_view name, std::int64_t number, bool set, bool infinite) {
  out.key(name);
  write_no_val(out, number, set, infinite);
}

void write_no_val(JsonWriter& out, std::int64_t number, bool set, bool infinite) {
  out.begin_object();
  out.bool_field("set", set);
  out.bool_field("infinite", infinite);
  out.int_field("number", number);
  out.end_object();
}

void write_no_val_double(JsonWriter& out, double number, bool set) {
  out.begin_object();
  out.bool_field("set", set);
  out.bool_field("infinite", false);
  out.key("number").number(number);
  out.end_object();
}

}  // namespace tpslurm::sim
