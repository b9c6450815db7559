// A hash that is the same from every build on every machine (FNV-1a, 64 bits): for names and
// shard numbers that must not change when planter is rebuilt, unlike std::hash.
#pragma once

#include <cstdint>
#include <string_view>

namespace planter {

inline constexpr uint64_t kStableHashSeed = 14695981039346656037ull;

// `h`: where a hash of what came before left off (kStableHashSeed to start).
inline uint64_t stable_hash(std::string_view s, uint64_t h = kStableHashSeed) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace planter
