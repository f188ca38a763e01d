// Slurm's slurmctld job lists (GET job/{id} and jobs): one JobSnapshot per component, decoded by
// every dialect (Dialect::decode_jobs). The listing is read one entry at a time
// (slurm/json_listing.h); the same bytes parsed as one tree must give the same entries and the
// same rest, and what the tree refuses the listing refuses too (doubles within a few units in the
// last place: the listing converts them exactly, Boost.JSON's tree does not always). The same
// bytes fed in pieces (as a body arrives from the network, slurm::json::ListingParser) must read
// exactly as the whole.
#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
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

// The listing converts every double from its text, correctly rounded; boost::json::parse's
// conversion may be a few units in the last place off (json_listing.h). Everything else must be
// exactly the tree's.
bool close_double(double a, double b) {
  if (a == b || (std::isnan(a) && std::isnan(b))) return true;
  if (std::isinf(a) || std::isinf(b)) return false;
  const double scale = std::max(std::fabs(a), std::fabs(b));
  return std::fabs(a - b) <= 1e-14 * scale || scale < 1e-300;
}

bool same_as_tree(const bj::value& listed, const bj::value& tree) {
  if (listed.is_double() && tree.is_double()) return close_double(listed.get_double(), tree.get_double());
  if (listed.kind() != tree.kind()) return false;
  if (const auto* array = listed.if_array()) {
    const auto& other = tree.get_array();
    if (array->size() != other.size()) return false;
    for (std::size_t i = 0; i < array->size(); ++i) {
      if (!same_as_tree((*array)[i], other[i])) return false;
    }
    return true;
  }
  if (const auto* object = listed.if_object()) {
    const auto& other = tree.get_object();
    if (object->size() != other.size()) return false;
    auto it = other.begin();
    for (const auto& [key, value] : *object) {
      if (key != it->key() || !same_as_tree(value, it->value())) return false;
      ++it;
    }
    return true;
  }
  return bj::serialize(listed) == bj::serialize(tree);  // compared as text: NaN equals nothing
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
  bj::object& object = tree.as_object();
  if (auto* listed = object.if_contains("jobs"); listed != nullptr && listed->is_array()) {
    if (!same_as_tree(bj::value(bj::array(entries.begin(), entries.end())), *listed)) {
      fuzz::fail("parse_listing's entries differ from the tree's", body);
    }
    *listed = bj::array();
  }
  if (!same_as_tree(*top, tree)) fuzz::fail("parse_listing's rest differs from the tree's", body);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body = fuzz::as_text(data, size);
  for (const auto& dialect : fuzz::all_dialects()) fuzz::check_decoded(dialect->decode_jobs(body), "decode_jobs");
  check_listing_matches_tree(body);
  return 0;
}
