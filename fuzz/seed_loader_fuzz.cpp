// libFuzzer target: the seed loader on any bytes. Whatever comes in, loading returns objects and
// diagnostics; it never crashes, hangs or grows without bound (docs/limits.md).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "seed/seed.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  planter::Seed seed;
  planter::Diagnostics diags;
  planter::parse_seed_text(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.yaml",
                           seed, diags);
  return 0;
}
