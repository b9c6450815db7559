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

// `planter.nephio.org/on-immutable: replace`: when a replant changes a field the server lets no
// update change (ApiError::immutable), planting deletes the object and creates it again instead
// of failing, and `planter diff` says it will (Flux's `force: enabled`, Argo CD's
// `Replace=true`). planter writes it on what it makes itself (a mode-gang stack's Workload and
// PodGroup, whose specs are immutable). Without it such a change is bad input.
inline constexpr std::string_view kOnImmutableAnnotation = "planter.nephio.org/on-immutable";
bool replaced_on_immutable(const Object& o);

// Every annotation key planter reads or writes on a seed's objects.
std::span<const std::string_view> planter_annotation_keys();

void check_planter_annotations(const Object& o, Diagnostics& diags);

}  // namespace planter
