#include "cli/mint_journal.h"

#include "config/logging.h"

namespace tpslurm::cli {

Result<std::unique_ptr<MintJournal>> MintJournal::open(const model::Settings& settings, const Clock& clock) {
  if (!model::mints_tokens(settings)) {
    return std::unique_ptr<MintJournal>(new MintJournal(nullptr));
  }
  auto journal = journal::Journal::open(settings.journal_path, clock);
  if (!journal.ok()) return journal.error().with_context("open the journal for the token mints");
  return std::unique_ptr<MintJournal>(new MintJournal(std::move(*journal)));
}

slurm::MintingTokenSource::MintListener MintJournal::listener() {
  if (!m_journal) return {};
  return [this](const slurm::Mint& mint) { record(mint); };
}

void MintJournal::record(const slurm::Mint& mint) {
  const journal::MintRecord row{format_utc(mint.at), mint.user, format_utc(mint.expires_at),
                                mint.service ? "service" : "job_user"};
  if (Status recorded = m_journal->record_mint(row); !recorded.ok()) {
    config::log_error({}, "a Slurm token minted for " + row.user + " (valid until " + row.expires_at +
                              ") is not journaled: " + recorded.error().message());
  }
}

}  // namespace tpslurm::cli
