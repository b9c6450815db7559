// Which seed owns an object, told by server-side apply itself. Each seed applies as a field
// manager of its own, `planter/<seed>`, so an object another seed planted holds that seed's
// manager on the planter.nephio.org/seed label, and applying it with another value conflicts
// (409) naming the owner: the object is not taken over unless the user adopts it (kapp's "already
// associated with a different app", helm's "invalid ownership metadata"). Taking fields over from
// any other manager (kubectl, a controller) is --force-conflicts, as with kubectl.
//
// An adopted object records whom it was taken from (planter.nephio.org/adopted-from).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "kube/api_error.h"

namespace planter::plant {

inline constexpr std::string_view kFieldManagerPrefix = "planter/";
// The labels on everything a seed plants: who manages it, and which seed.
inline constexpr std::string_view kManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr std::string_view kSeedLabel = "planter.nephio.org/seed";
inline constexpr std::string_view kAdoptedFromAnnotation = "planter.nephio.org/adopted-from";

// The field manager a seed applies as.
std::string seed_field_manager(std::string_view seed);

// The seed, other than `own`, whose field manager a conflict names; nullopt when none does.
std::optional<std::string> owning_seed(const kube::ApiError& conflict, std::string_view own);

// What to do about an apply's conflict.
struct ConflictCall {
  enum Kind {
    kRefuse,  // say so and fail
    kForce,   // apply again, forced
  } kind = kRefuse;
  std::string owner;  // the other seed that planted it ("": another manager's fields)
  std::string why;    // kRefuse: what the unit fails with (after the server's words)
};
// `adopt_hint`: how the user takes an object over ("use --adopt to take it over").
ConflictCall decide_conflict(const kube::ApiError& conflict, std::string_view own_seed, bool adopt,
                             bool force_conflicts, std::string_view adopt_hint,
                             std::string_view force_hint);

}  // namespace planter::plant
