// Sharding Seeds across operator replicas, for when one operator is not enough. As Argo CD's
// application-controller shards clusters across its replicas, each Seed belongs to one of N
// shards by a stable hash of "namespace/name"; each shard has a Lease of its own
// (`<lease name>-shard-<i>`), and a replica plants the Seeds of the one shard whose Lease it holds.
// Replicas beyond N stand by and take over a shard whose holder stopped renewing.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/leader.h"

namespace planter::op {

// The shard of a Seed: FNV-1a (64 bits) of "namespace/name", modulo `shards`. Stable across
// replicas, restarts and versions.
uint32_t shard_of(std::string_view seed_key, uint32_t shards);

// The Lease of one shard: "<base>-shard-<i>".
std::string shard_lease_name(std::string_view base, uint32_t shard);

// Tries the shards' Leases in turn, starting at one chosen by this replica's identity (so that
// replicas starting together do not all go for shard 0), once per `retry` round, until one is
// held: its index. nullopt when `stop` is requested first.
std::optional<uint32_t> acquire_shard(std::vector<std::unique_ptr<daemon::LeaderElector>>& electors,
                                      std::string_view identity, std::chrono::milliseconds retry,
                                      std::stop_token stop);

}  // namespace planter::op
