// The kinds and versions a kube-apiserver serves in its own groups are known before any cluster
// is asked (model/kinds.h, from shared/k8s-api). An object of a built-in group whose kind or
// version was never served (`apps/v7`, `kind: ConfigMapp`) would wait forever, so it is bad input;
// one that Kubernetes served once and removed (`policy/v1beta1 PodSecurityPolicy`, gone in 1.25)
// is a warning, since an older cluster may still serve it.
#pragma once

#include "model/diagnostics.h"
#include "model/kinds.h"
#include "model/object.h"

namespace planter {

// `info` is kinds.find(group, kind) for the object; the check applies to built-in groups only.
void check_builtin_kind(const Object& o, const KindInfo* info, const KindTable& kinds,
                        Diagnostics& diags);

}  // namespace planter
