// The deployment a journal belongs to (journal/records.h Deployment): the instance name and the
// storage root its jobs' tags and attempt directories were made under. A Slurm job keeps the
// name and working directory it was given, so `serve` runs only under the deployment the journal
// recorded at its first start; moving one is an operator's step (`journal move-deployment`).
//
// The instance is the journal's own when TUNEPLANE_INSTANCE is not set (journal_instance): its
// default, the host's name, is taken only by a journal that has recorded none yet, so a host
// renamed under a running deployment changes nothing. Only a setting that names another
// instance is refused (check_deployment).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "journal/journal.h"
#include "model/settings.h"

namespace tpslurm::cli {

// The deployment these settings describe.
journal::Deployment configured_deployment(const model::Settings& settings);

// The instance the journal at `journal_path` recorded with its deployment; empty when there is
// no journal there, it records none, or it cannot be read (the command that opens it says why).
// Read-only: nothing is created or changed.
std::optional<std::string> journal_instance(const std::string& journal_path, const Clock& clock);

// serve, at start: records the configured deployment when the journal has none (its first
// start, or a journal from before deployments were recorded); invalid_argument naming both and
// the ways on when the journal's differs (for the instance: unset TUNEPLANE_INSTANCE, so that
// the journal's is used, or move the deployment).
Status check_deployment(journal::Journal& journal, const model::Settings& settings);

// `journal move-deployment`: records the configured deployment in place of the journal's. A
// new instance name needs every open attempt (cleanup not closed) to have its tag journaled;
// a new storage root needs no open attempt at all (their directories are under the old one).
// Returns what was done, in words; invalid_argument naming the attempts in the way.
Result<std::string> move_deployment(journal::Journal& journal, const model::Settings& settings, std::string_view by,
                                    std::string_view reason);

}  // namespace tpslurm::cli
