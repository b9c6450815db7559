// How a plain (unquoted) YAML scalar reads, as kubectl reads it: shared by both readers (the block
// reader, yaml_block.h, and libfyaml's, yaml_libfyaml.h) and by the writer, which quotes what a
// reader would take for another type.
#pragma once

#include <boost/json/storage_ptr.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace planter {

// A plain scalar's value as kubectl reads it (go-yaml v2: YAML 1.1's booleans and Go's integers;
// docs/yaml.md): null, bool, int, float or string.
boost::json::value resolve_plain_scalar(std::string_view s, const boost::json::storage_ptr& sp);

// A plain mapping key that is not a string to kubectl, as kubectl's JSON key: `yes` is "true",
// `0x1F` is "31", `010` is "8"; nullopt for a key that is the string it reads as.
std::optional<std::string> plain_key_text(std::string_view s);

// A mapping key that is not a string, as sigs.k8s.io/yaml turns it into a JSON key (for kubectl):
// true/false, an integer in decimal, a float as Go's FormatFloat(f, 'g', -1, 32) writes it.
std::string key_text(const boost::json::value& v);

}  // namespace planter
