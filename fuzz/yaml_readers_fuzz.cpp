// libFuzzer target: the two YAML readers against each other. The block reader promises that for
// every stream it accepts it returns exactly what libfyaml's reading returns (model/yaml_block.h);
// a difference is a crash here, so the fuzzer keeps the input. With PLANTER_FUZZ_READERS_REPORT
// set (CI does), a difference is printed ("readers differ") and fuzzing goes on: the differences
// found so far were libfyaml 0.7.12's own misreadings, which the block reader then declines and
// yaml_block_test pins (docs/fuzzing.md says why CI does not fail on them). Crashes always stop
// it.
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "model/yaml_block.h"

namespace json = boost::json;

namespace {

[[noreturn]] void differ() {
  std::abort();
}

bool report_only() {
  static const bool report = std::getenv("PLANTER_FUZZ_READERS_REPORT") != nullptr;
  return report;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto fast =
      planter::read_block_yaml(text, json::make_shared_resource<json::monotonic_resource>());
  if (!fast) return 0;
  auto full = planter::read_yaml_libfyaml(text, "fuzz.yaml",
                                          json::make_shared_resource<json::monotonic_resource>());
  if (!full) {
    std::fprintf(stderr, "readers differ: the block reader accepted what libfyaml rejects: %s\n",
                 full.error().message.c_str());
    if (report_only()) return 0;
    differ();
  }
  if (fast->size() != full->size()) {
    std::fprintf(stderr, "readers differ: %zu documents against %zu\n", fast->size(), full->size());
    if (report_only()) return 0;
    differ();
  }
  for (size_t i = 0; i < fast->size(); ++i) {
    const auto& a = (*fast)[i];
    const auto& b = (*full)[i];
    // Compared as text: NaN (YAML's .nan) is not equal to itself.
    if (json::serialize(a.value) != json::serialize(b.value) || a.line != b.line ||
        a.item_lines != b.item_lines) {
      std::fprintf(stderr, "readers differ: document %zu:\n%s\n%s\n", i,
                   json::serialize(a.value).c_str(), json::serialize(b.value).c_str());
      if (report_only()) return 0;
      differ();
    }
  }
  return 0;
}
