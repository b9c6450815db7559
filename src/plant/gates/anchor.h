// The gate of the `anchor` requirement (rule: src/plan/rules/anchor.cpp): a member of a
// co-scheduled stack follows the anchor once the anchor's pod is bound to a node that is there,
// not cordoned, and where the whole group still fits (docs/coscheduling.md). It watches the
// cluster's nodes and pods; the fit is the stack-fits gate's.
#pragma once

#include <optional>
#include <string>

#include "plant/fleet.h"
#include "plant/gates/stack_fits.h"

namespace planter::plant {

class AnchorGate {
 public:
  AnchorGate(Fleet& fleet, StackFitsGate& fits) : fleet_(fleet), fits_(fits) {}

  // A unit follows the anchor of a stack on `cluster`.
  void require(const std::string& cluster);

  // Where the anchor pod of `stack` (in namespace `ns`) is: bound to a node (node set), and why
  // it does not hold (empty when it holds).
  struct Pod {
    std::string node;
    std::string why;
  };
  Pod pod(const std::string& cluster, const std::string& ns, const std::string& stack);

  // Holds when the anchor's pod holds; else why not.
  std::optional<std::string> check(const std::string& cluster, const std::string& ns,
                                   const std::string& stack);

 private:
  Fleet& fleet_;
  StackFitsGate& fits_;
};

}  // namespace planter::plant
