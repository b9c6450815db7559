// The fast one of the two YAML readers behind parse_yaml_stream (model/yaml.h; the other is
// yaml_libfyaml.h), exposed for tests and benchmarks.
//
// read_block_yaml reads the block-style YAML that manifests are written in, about ten times faster
// than libfyaml's event stream. It returns nullopt for anything outside that subset; it never
// reports an error, and for every stream it accepts it returns exactly what read_yaml_libfyaml
// returns (tests/unit/yaml_block_test.cpp compares both on the corpus and on mutations of it).
//
// The subset: documents separated by `---`; block mappings and sequences (compact `- key: v`, and
// sequences at their key's indentation); plain, single-quoted and double-quoted scalars on one
// line; literal and folded block scalars without an indentation indicator; flow sequences and
// mappings on one line; comments. Outside it, so read by libfyaml: anchors, aliases, tags, merge
// keys, directives, `...`, multi-line plain, quoted and flow scalars, complex keys, tabs, CR, a
// BOM, control characters, invalid UTF-8, duplicate keys and all malformed YAML.
#pragma once

#include <boost/json/storage_ptr.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/yaml_document.h"

namespace planter {

// Values are allocated from `sp`. When it declines, `declined` (if given) says where.
std::optional<std::vector<YamlDocument>> read_block_yaml(std::string_view text,
                                                         const boost::json::storage_ptr& sp,
                                                         std::string* declined = nullptr);

}  // namespace planter
