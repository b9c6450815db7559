// planter's own annotations (docs/annotations.md) are its input: a key under planter.nephio.org/
// that planter does not read is a typo that would silently change where or when an object goes
// (`planter.nephio.org/clustr: edge9` planted on the management cluster), so it is bad input,
// with the key planter reads that is nearest to it. kubectl's own rule for unknown fields, applied
// to the only annotations whose meaning is planter's.
#pragma once

#include <span>
#include <string_view>

#include "model/diagnostics.h"
#include "model/object.h"

namespace planter {

// Every annotation key planter reads or writes on a seed's objects.
std::span<const std::string_view> planter_annotation_keys();

void check_planter_annotations(const Object& o, Diagnostics& diags);

}  // namespace planter
