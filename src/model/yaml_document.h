// What a YAML reader makes of one document of a stream, and the limits every reader keeps
// (model/yaml.h reads; yaml_block.h and yaml_libfyaml.h are its two readers).
#pragma once

#include <boost/json/value.hpp>
#include <cstddef>
#include <vector>

namespace planter {

// What one stream may build, so that hostile input ends in an error instead of exhausting the stack
// or memory (docs/limits.md lists every limit). kube-apiserver itself accepts JSON nested 10,000
// levels deep; no manifest comes near 1,000 (cert-manager's CRDs, among the deepest, reach 40).
inline constexpr size_t kYamlMaxDepth = 1000;
// Aliases are copies: at most this many in a stream, adding at most this much.
inline constexpr size_t kYamlMaxAliases = 100'000;
inline constexpr size_t kYamlMaxAliasBytes = 64u << 20;

struct YamlDocument {
  boost::json::value value;     // null for an empty document
  int line = 0;                 // 1-based line of the document's content
  std::vector<int> item_lines;  // lines of the elements of a top-level `items` sequence
};

}  // namespace planter
