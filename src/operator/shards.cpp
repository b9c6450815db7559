#include "operator/shards.h"

#include "model/stable_hash.h"

namespace planter::op {

uint32_t shard_of(std::string_view seed_key, uint32_t shards) {
  return shards <= 1 ? 0 : static_cast<uint32_t>(stable_hash(seed_key) % shards);
}

std::string shard_lease_name(std::string_view base, uint32_t shard) {
  return std::string(base) + "-shard-" + std::to_string(shard);
}

std::optional<uint32_t> acquire_shard(std::vector<std::unique_ptr<daemon::LeaderElector>>& electors,
                                      std::string_view identity, std::chrono::milliseconds retry,
                                      std::stop_token stop) {
  if (electors.empty()) return std::nullopt;
  const size_t n = electors.size();
  const size_t first = stable_hash(identity) % n;
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
