// The gate of the `anchor` requirement (rule: src/plan/rules/anchor.cpp): a member of a
// co-scheduled stack follows the anchor once the anchor's pod is bound to a node that is there,
// not cordoned, and where the whole group still fits (docs/coscheduling.md). It watches the
// cluster's nodes and pods; the fit is the stack-fits gate's. When the anchor was bound where
// planter chose and that node is then cordoned or gone (or the group no longer fits there) while
// members still wait, the anchor is declared again, to a node chosen again (its pod is replaced by
// its StatefulSet's rollout), so that no member follows it onto a dead node.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "plant/gates/gate.h"
#include "plant/gates/stack_fits.h"

namespace planter::plant {

class AnchorGate : public Gate {
 public:
  AnchorGate(GateContext& context, StackFitsGate& fits);

  void require(size_t u, const Requirement& r, std::vector<std::string>& keys) override;
  std::optional<Wait> check(size_t u, const Requirement& r) override;
  std::vector<std::string_view> kinds_read() const override {
    return StackFitsGate::snapshot_kinds();
  }
  void changed(const std::string& cluster, const boost::json::object& o) override;

 private:
  // Where the anchor pod of `stack` (in namespace `ns`) is: bound to a node (node set), and why
  // it does not hold (empty when it holds).
  struct Pod {
    std::string node;
    std::string why;
  };
  Pod pod(const std::string& cluster, const std::string& ns, const std::string& stack);
  void replace_if_stranded(const std::string& cluster, const std::string& stack);
  static std::string key(std::string_view cluster, std::string_view stack);

  GateContext& c_;
  StackFitsGate& fits_;
  std::unordered_map<std::string, size_t> anchor_unit_;  // stack-fits key -> the anchor's unit
  std::unordered_map<std::string, std::vector<size_t>> followers_;  // stack-fits key -> units
  std::set<std::string> posted_;  // clusters with a look at their anchors due
};

}  // namespace planter::plant
