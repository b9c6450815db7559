// Writes a stack's policies into one pod target of a member (mutate.h lists them): the stack
// label, co-location and separation as required pod (anti-)affinity, a dedicated pool's toleration
// and node affinity, atomic sizes. What the author wrote stays; a contradiction is an error on the
// member, and each change is noted in its `mutations`.
#pragma once

#include <boost/json/object.hpp>
#include <string>

#include "model/diagnostics.h"
#include "model/object.h"
#include "plan/stacks/pod_targets.h"
#include "plan/stacks/stack_policy.h"

namespace planter {

struct PolicyWriter {
  const StackPolicy& stack;
  Object& object;
  Diagnostics& diags;
  bool is_anchor = false;  // the stack's own anchor: it leads, it does not follow
  // A custom resource: its containers' amounts were checked by no rule of the seed's kinds.
  bool check_amounts = false;

  void error(std::string message, std::string hint = {});
  void note(std::string change);
  void write(PodTarget& t);
  void dedicate(PodTarget& t);
  // requests = limits for cpu and memory.
  void size(boost::json::object& res, const std::string& path, const std::string& name);
};

// Every place a policy was written into must survive the API server's pruning: a field the CRD's
// `schema` does not keep would be dropped with a warning and the policy lost.
void check_policies_kept(const boost::json::object& schema, const PodTarget& t, const Object& o,
                         Diagnostics& diags);

}  // namespace planter
