// libfyaml's reader behind parse_yaml_stream (model/yaml.h): any YAML 1.2 stream the block reader
// (yaml_block.h) declines, read into the same values; exposed for tests and benchmarks.
#pragma once

#include <boost/json/storage_ptr.hpp>
#include <string_view>
#include <vector>

#include "model/result.h"
#include "model/yaml_document.h"

namespace planter {

// libfyaml's reading of any YAML 1.2 stream; errors are "NAME:LINE:COL: what".
Result<std::vector<YamlDocument>> read_yaml_libfyaml(std::string_view text, std::string_view name,
                                                     const boost::json::storage_ptr& sp);

}  // namespace planter
