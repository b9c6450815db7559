#include "operator/shards.h"

namespace planter::op {

namespace {

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

uint32_t shard_of(std::string_view seed_key, uint32_t shards) {
  return shards <= 1 ? 0 : static_cast<uint32_t>(fnv1a(seed_key) % shards);
}

std::string shard_lease_name(std::string_view base, uint32_t shard) {
  return std::string(base) + "-shard-" + std::to_string(shard);
}

std::optional<uint32_t> acquire_shard(std::vector<std::unique_ptr<daemon::LeaderElector>>& electors,
                                      std::string_view identity, std::chrono::milliseconds retry,
                                      std::stop_token stop) {
  if (electors.empty()) return std::nullopt;
  const size_t n = electors.size();
  const size_t first = fnv1a(identity) % n;
  while (!stop.stop_requested()) {
    for (size_t k = 0; k < n && !stop.stop_requested(); ++k) {
      size_t i = (first + k) % n;
      if (electors[i]->try_once()) return static_cast<uint32_t>(i);
    }
    if (!daemon::sleep_for(stop, retry)) break;
  }
  return std::nullopt;
}

}  // namespace planter::op
