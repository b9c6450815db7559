// YAML in and out. Reading takes a fast path for the block YAML manifests are written in and
// libfyaml for everything else, with the same results (model/yaml_block.h); writing is planter's
// own.
//
// Reading follows what kubectl accepts: YAML 1.2 core schema (so a bare `=` is the string "=",
// `yes` is a string, `0x1F` an int), multi-document streams, anchors, aliases and `<<` merge keys,
// duplicate keys rejected, non-string keys turned into their text. Each document remembers the line
// where its content starts, and, for `*List` documents, the line of each element of `items`.
// Functions here are pure and thread-safe (each call has its own parser).
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

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

// Parses a whole stream. On malformed YAML, the error message is "NAME:LINE:COL: what".
Result<std::vector<YamlDocument>> parse_yaml_stream(std::string_view text, std::string_view name);

// Writes one value as a block-style YAML document (no leading `---`), strings quoted where a
// reader would otherwise take them for another type.
std::string to_yaml(const boost::json::value& v);

// Writes values as a multi-document stream, each introduced by `---`.
std::string to_yaml_stream(const std::vector<const boost::json::value*>& docs);

}  // namespace planter
