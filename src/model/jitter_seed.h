#pragma once

#include <atomic>
#include <cstdint>
#include <random>

namespace planter {

// A seed for a generator that only spreads retries and backoffs (jitter), distinct per call: one
// std::random_device read per process, then SplitMix64 over a counter. Opening the system's
// entropy source for each transport and informer was a measurable share of an operator making
// thousands of them.
inline uint64_t jitter_seed() {
  static const uint64_t base = [] {
    std::random_device rd;
    return (uint64_t{rd()} << 32) ^ rd();
  }();
  static std::atomic<uint64_t> counter{0};
  uint64_t z = base + 0x9e3779b97f4a7c15ULL * (counter.fetch_add(1, std::memory_order_relaxed) + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A generator that only spreads retries (jitter), seeded by jitter_seed(): 8 bytes, where
// std::mt19937_64 keeps 2.5 KiB in each of the thousands of transports and informers of a fleet.
inline std::minstd_rand jitter_generator() {
  return std::minstd_rand(static_cast<std::minstd_rand::result_type>(jitter_seed()));
}

}  // namespace planter
