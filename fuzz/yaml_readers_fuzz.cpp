// libFuzzer target: the two YAML readers against each other. The block reader promises that for
// every stream it accepts it returns exactly what libfyaml's reading returns (model/yaml_block.h);
// a difference is a crash here, so the fuzzer keeps the input. With PLANTER_FUZZ_READERS_REPORT
// set (CI does), a difference is printed ("readers differ") and fuzzing goes on: the differences
// found so far were libfyaml 0.7.12's own misreadings, which the block reader then declines and
// yaml_block_test pins (docs/fuzzing.md says why CI does not fail on them). Crashes always stop
// it, and so does a decoded string with a byte its reader never wrote (check_written).
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "model/utf8.h"
#include "model/yaml_block.h"
#include "model/yaml_libfyaml.h"

namespace json = boost::json;

namespace {

[[noreturn]] void differ() {
  std::abort();
}

// Every byte of a decoded string was written by the reader: it is valid UTF-8 (the input is; ASan
// fills fresh memory with 0xbe, a lone continuation byte) and holds a NUL only where the input can
// make one (an escape, or a NUL byte of its own). libfyaml 0.7.12 once returned a string of the
// right length with its tail never written (docs/yaml.md); this finds the like of it.
bool may_hold_nul(std::string_view text) {
  return text.find('\0') != std::string_view::npos || text.find("\\0") != std::string_view::npos ||
         text.find("\\x00") != std::string_view::npos ||
         text.find("\\u0000") != std::string_view::npos ||
         text.find("\\U00000000") != std::string_view::npos;
}

bool written(const json::value& v, bool nul_allowed) {
  auto ok = [&](std::string_view s) {
    if (!nul_allowed && s.find('\0') != std::string_view::npos) return false;
    for (size_t i = 0; i < s.size();) {
      uint32_t cp = 0;
      size_t len = planter::utf8_sequence(s, i, cp);
      if (len == 0) return false;
      i += len;
    }
    return true;
  };
  if (v.is_string()) return ok(v.get_string());
  if (v.is_array()) {
    for (const json::value& x : v.get_array())
      if (!written(x, nul_allowed)) return false;
    return true;
  }
  if (v.is_object()) {
    for (const auto& [k, x] : v.get_object())
      if (!ok(k) || !written(x, nul_allowed)) return false;
    return true;
  }
  return true;
}

void check_written(const std::vector<planter::YamlDocument>& docs, std::string_view text,
                   const char* reader) {
  bool nul_allowed = may_hold_nul(text);
  for (const auto& d : docs)
    if (!written(d.value, nul_allowed)) {
      std::fprintf(stderr, "%s decoded bytes it never wrote: %s\n", reader,
                   json::serialize(d.value).c_str());
      std::abort();
    }
}

bool report_only() {
  static const bool report = std::getenv("PLANTER_FUZZ_READERS_REPORT") != nullptr;
  return report;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  // What parse_yaml_stream lets through to the readers: UTF-8 only.
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    size_t len = planter::utf8_sequence(text, i, cp);
    if (len == 0) return 0;
    i += len;
  }
  auto full = planter::read_yaml_libfyaml(text, "fuzz.yaml",
                                          json::make_shared_resource<json::monotonic_resource>());
  if (full) check_written(*full, text, "libfyaml's reading");
  auto fast =
      planter::read_block_yaml(text, json::make_shared_resource<json::monotonic_resource>());
  if (!fast) return 0;
  check_written(*fast, text, "the block reader");
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
