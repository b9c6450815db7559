// Apply-time mutation at declare time: each substitution of a unit's
// config.kubernetes.io/apply-time-mutation reads its source (the unit's requirement on that
// object, on the cluster the plan chose) and writes the value into the body to be applied. Pure:
// the engine hands in how to read an object from its watch caches.
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <optional>
#include <string>

#include "model/result.h"
#include "plan/plan.h"

namespace planter::plant {

using ReadObject = std::function<std::optional<boost::json::object>(const std::string& cluster,
                                                                    const ObjectRef& object)>;

// Substitutes into `body`; an error says which source or field is not there (yet).
Result<bool> apply_substitutions(const Plan& plan, const Unit& unit, boost::json::object& body,
                                 const ReadObject& read);

}  // namespace planter::plant
