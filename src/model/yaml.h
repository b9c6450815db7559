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
#include "model/yaml_document.h"

namespace planter {

// Parses a whole stream. On malformed YAML, the error message is "NAME:LINE:COL: what".
Result<std::vector<YamlDocument>> parse_yaml_stream(std::string_view text, std::string_view name);

// Writes one value as a block-style YAML document (no leading `---`), strings quoted where a
// reader would otherwise take them for another type.
std::string to_yaml(const boost::json::value& v);

// Writes values as a multi-document stream, each introduced by `---`.
std::string to_yaml_stream(const std::vector<const boost::json::value*>& docs);

}  // namespace planter
