// `planter diff`: what planting the seed now would change, as `kubectl diff` shows it. Per unit
// whose cluster can be asked: the live object (a GET) and the object as it would be after the very
// apply planting sends (a server-side dry run, forced: what the seed declares over whatever else
// owns those fields, as `replant --force-conflicts` would make it; a plain replant refuses fields
// another manager took), managed fields left out of both. Read only: the servers see GETs and dry
// runs, nothing else.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kube/client.h"
#include "plan/plan.h"

namespace planter::plant {

struct DiffOptions {
  std::string seed_name;
  kube::ClientOptions client;
  std::chrono::steady_clock::time_point deadline;
  // Why a cluster of the plan cannot be asked (created_clusters.h), for the units placed on it.
  std::map<std::string, std::string> not_reached;
};

struct ObjectDiff {
  enum class State {
    kSame,     // planting would change nothing
    kChanged,  // live and merged differ
    kCreated,  // not there: planting creates it
    // An immutable field changes and the object says to be made again (on-immutable: replace):
    // planting deletes it and creates it. `merged` is the object as planter sends it (the
    // server fills its defaults when it creates it), `note` the fields.
    kReplaced,
    kLater,  // cannot be asked now: its cluster or kind is not there yet (`note` says which)
    kError,  // a server refused the dry run, or did not answer (`note`)
  };
  size_t unit = 0;
  State state = State::kSame;
  // Keys sorted; managed fields, resourceVersion and status left out (planting changes none).
  std::optional<boost::json::object> live, merged;
  std::string note;
};

std::vector<ObjectDiff> diff_seed(const Plan& plan,
                                  const std::map<std::string, kube::RestConfig>& reachable,
                                  const DiffOptions& options);

// The fields where `live` and `merged` differ, as dotted paths ("spec.replicas",
// "data.mode", "spec.template.spec.containers[0].image"), at most `max` of them; the server's
// bookkeeping (metadata.resourceVersion, generation, managedFields) is not a change.
std::vector<std::string> changed_fields(const boost::json::object& live,
                                        const boost::json::object& merged, size_t max);

// kubectl diff's name for an object's file: "apps.v1.Deployment.shop.web" ("v1.ConfigMap..." for
// the core group; a cluster-scoped object has no namespace part).
std::string diff_file_name(const ObjectRef& ref);

}  // namespace planter::plant
