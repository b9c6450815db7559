// What kube-apiserver checks of every object's metadata and of a few built-in kinds' fields,
// checked on the seed so that a seed it would reject is refused before the first write (as the
// API server would answer each object, but for all of them at once).
//
// Each check reports into Diagnostics with the object, its file:line, the field, the API server's
// own words for the rule, and what to do. Pure and thread-safe.
#pragma once

#include <cstddef>

#include "model/diagnostics.h"
#include "model/object.h"

namespace planter {

// kube-apiserver's limit on a request body (and so on an object planter sends).
inline constexpr size_t kMaxObjectBytes = 3u << 20;
// kube-apiserver's limit on all of one object's annotations together.
inline constexpr size_t kMaxAnnotationBytes = 256u << 10;

// metadata.name by the kind's rule, metadata.namespace, labels, annotations, the data keys of
// ConfigMaps and Secrets, and the size of the whole object.
void check_metadata(const Object& o, Diagnostics& diags);

}  // namespace planter
