// MintJournal: every Slurm token the daemon mints from the cluster's key, journaled as it is
// minted (journal::Journal::record_mint: user, time, expiry, purpose; never the token), through
// a journal connection of its own, so a mint on any thread never waits for the reconciler's
// connection. A mint that cannot be journaled is logged (the user and the expiry) and does not
// fail the Slurm call that needed the token. Created by the commands that talk to Slurm with a
// key (serve, resolve); without a key file it opens nothing. Thread-safe.
#pragma once

#include <memory>

#include "base/clock.h"
#include "base/result.h"
#include "journal/journal.h"
#include "model/settings.h"
#include "slurm/jwt_source.h"

namespace tpslurm::cli {

class MintJournal {
 public:
  // Opens its own connection to the journal at settings.journal_path when tokens are minted
  // (TUNEPLANE_SLURM_JWT_KEY_FILE set, no token file); else holds none.
  static Result<std::unique_ptr<MintJournal>> open(const model::Settings& settings, const Clock& clock);

  // For slurm::make_token_source; empty when nothing is minted. Valid while this lives.
  slurm::MintingTokenSource::MintListener listener();

 private:
  explicit MintJournal(std::unique_ptr<journal::Journal> journal) : m_journal(std::move(journal)) {}
  void record(const slurm::Mint& mint);

  std::unique_ptr<journal::Journal> m_journal;
};

}  // namespace tpslurm::cli
