// Slurm's slurmctld job lists (GET job/{id} and jobs): one JobSnapshot per component, decoded by every dialect
// (Dialect::decode_jobs). The listing is read one entry at a time (slurm/json_listing.h); the
// same bytes parsed as one tree must give the same entries and the same rest, and what the tree
// refuses the listing refuses too. The same bytes fed in pieces (as a body arrives from the
// network, slurm::json::ListingParser) must read exactly as the whole.
#include <boost/json.hpp>
#include <cstdint>
#include <vector>

#include "slurm/json_listing.h"
#include "slurm_decoders.h"

using namespace tpslurm;
namespace bj = boost::json;

namespace {

struct Listing {
  Result<bj::object> top;
  std::vector<bj::value> entries;
};

// `piece` 0: the whole body at once.
Listing read_listing(std::string_view body, std::size_t piece) {
  std::vector<bj::value> entries;
  const slurm::json::ListingEntry keep = [&](const bj::value& entry) {
    entries.push_back(bj::value(entry, bj::storage_ptr()));
    return ok_status();
  };
  if (piece == 0) {
    auto top = slurm::json::parse_listing(body, "jobs", keep);
    return {std::move(top), std::move(entries)};
  }
  slurm::json::ListingParser parser("jobs", keep);
  for (std::size_t at = 0; at < body.size(); at += piece) parser.write(body.substr(at, piece));
  auto top = parser.finish();
  return {std::move(top), std::move(entries)};
}

std::string as_text(const Listing& listing) {
  std::string text = bj::serialize(bj::value(bj::array(listing.entries.begin(), listing.entries.end())));
  return text + (listing.top.ok() ? bj::serialize(*listing.top) : "error: " + listing.top.error().message());
}

void check_pieces_match_whole(std::string_view body, const Listing& whole) {
  const std::size_t piece = body.empty() ? 1 : 1 + static_cast<unsigned char>(body.back()) % 61;
  if (as_text(read_listing(body, piece)) != as_text(whole)) fuzz::fail("ListingParser in pieces differs", body);
}

void check_listing_matches_tree(std::string_view body) {
  Listing whole = read_listing(body, 0);
  check_pieces_match_whole(body, whole);
  auto& top = whole.top;
  auto& entries = whole.entries;
  bj::error_code ec;
  bj::value tree = bj::parse(body, ec);
  if (ec || !tree.is_object()) {
    if (top.ok()) fuzz::fail("parse_listing read what boost::json::parse refuses");
    if (top.error().kind() != ErrorKind::corrupt) fuzz::fail("parse_listing", top.error().message());
    return;
  }
  if (!top.ok()) {
    // Two arrays under "jobs" are refused on purpose; the tree keeps only the last.
    if (top.error().message() == "the answer holds two \"jobs\" lists") return;
    fuzz::fail("parse_listing refused what boost::json::parse reads", top.error().message());
  }
  // Compared as text: a number past double's range reads as NaN, which equals nothing.
  bj::object& object = tree.as_object();
  if (auto* listed = object.if_contains("jobs"); listed != nullptr && listed->is_array()) {
    if (bj::serialize(bj::value(bj::array(entries.begin(), entries.end()))) != bj::serialize(*listed)) {
      fuzz::fail("parse_listing's entries differ from the tree's", body);
    }
    *listed = bj::array();
  }
  if (bj::serialize(*top) != bj::serialize(tree)) fuzz::fail("parse_listing's rest differs from the tree's", body);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body = fuzz::as_text(data, size);
  for (const auto& dialect : fuzz::all_dialects()) fuzz::check_decoded(dialect->decode_jobs(body), "decode_jobs");
  check_listing_matches_tree(body);
  return 0;
}
