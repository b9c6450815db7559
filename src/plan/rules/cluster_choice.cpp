// cluster-choice: a unit of an object that chooses N of its candidate clusters
// (planter.nephio.org/cluster-count, a Stack's spec.clusters; plan/cluster_choice.h) waits for the
// choice, and so does a Namespace or CRD placed by usage whose every user on that cluster is in a
// choice (it goes where they go). The requirement names the choice, which is never declared; the
// engine's gate (src/plant/gates/cluster_choice.cpp) makes it with the fit model, and a unit on a
// cluster not chosen is not declared.
#include "plan/cluster_choice.h"

#include <fmt/format.h>

#include <algorithm>

#include "plan/rules.h"
#include "plan/stacks/stack_policy.h"

namespace planter {

namespace {

// The family index: each object's choice (an index into plan.choices), or -1.
struct ChoiceOf {
  std::vector<int32_t> of_object;
};

}  // namespace

FamilyIndex prepare_cluster_choices(const RuleContext& ctx) {
  ChoiceOf out{std::vector<int32_t>(ctx.objects.size(), -1)};
  for (size_t c = 0; c < ctx.plan.choices.size(); ++c)
    for (size_t i : ctx.plan.choices[c].objects) out.of_object[i] = static_cast<int32_t>(c);
  return FamilyIndex::of(std::move(out));
}

void require_cluster_choice(const RuleContext& ctx, const Unit& unit,
                            std::vector<Requirement>& out) {
  const std::vector<ClusterChoice>& choices = ctx.plan.choices;
  if (choices.empty()) return;
  const std::vector<int32_t>& choice_of = ctx.family<ChoiceOf>().of_object;
  std::vector<int32_t> by;
  if (int32_t own = choice_of[unit.object]; own >= 0) {
    by.push_back(own);
  } else if (ctx.placements[unit.object].rule == "usage") {
    for (size_t user : usage_users(ctx.objects, ctx.index, unit.object)) {
      if (!ctx.placed_on(user, unit.cluster_index)) continue;
      if (choice_of[user] < 0) return;  // needed there whatever is chosen
      by.push_back(choice_of[user]);
    }
    std::sort(by.begin(), by.end());
    by.erase(std::unique(by.begin(), by.end()), by.end());
  }
  if (by.empty()) return;
  std::string arg;
  for (int32_t c : by) arg += (arg.empty() ? "" : ",") + std::to_string(c);
  std::string name = choices[static_cast<size_t>(by.front())].name;
  if (by.size() > 1) name += fmt::format(" (or one of {} more choices)", by.size() - 1);
  out.push_back(
      {std::nullopt, ObjectRef{std::string(kStackApiVersion), "ClusterChoice", "", std::move(name)},
       unit.cluster, ReadinessPredicate{ReadinessPredicate::Type::kClusterChoice, arg, {}},
       "cluster-choice"});
}

std::vector<size_t> choices_deciding(const Unit& unit) {
  std::vector<size_t> out;
  for (const Requirement& r : unit.requirements)
    if (r.when.type == ReadinessPredicate::Type::kClusterChoice)
      for (size_t c : choice_indices(r.when.arg)) out.push_back(c);
  return out;
}

}  // namespace planter
