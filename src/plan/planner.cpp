#include "plan/planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <thread>
#include <tuple>

#include "plan/cluster_choice.h"
#include "plan/grouping.h"
#include "plan/node_providers.h"
#include "plan/placement.h"
#include "plan/rules.h"
#include "plan/seed_index.h"
#include "plan/set_aside.h"
#include "plan/stacks/stack_policy.h"
#include "seed/validate.h"

namespace planter {

namespace {

std::string unit_name(const Plan& plan, const Unit& u) {
  const Object& o = plan.objects[u.object];
  return fmt::format("{} on {} ({})", o.display(), u.cluster, o.where());
}

// Reports one cycle through the units Kahn's algorithm could not order.
void report_cycle(const Plan& plan, const std::vector<int>& remaining_in, Diagnostics& diags) {
  // Walk requirements from any unordered unit: in a graph where every unordered unit has an
  // unordered requirement, the walk must come back to a unit it has seen.
  size_t start = 0;
  while (start < remaining_in.size() && remaining_in[start] == 0) ++start;
  std::vector<int> seen_at(plan.units.size(), -1);
  std::vector<size_t> path;
  size_t cur = start;
  while (seen_at[cur] < 0) {
    seen_at[cur] = static_cast<int>(path.size());
    path.push_back(cur);
    size_t next = cur;
    for (const Requirement& r : plan.units[cur].requirements)
      if (r.unit && remaining_in[*r.unit] > 0) {
        next = *r.unit;
        break;
      }
    if (next == cur) return;  // cannot happen; be safe rather than loop
    cur = next;
  }
  std::string cycle;
  for (size_t i = static_cast<size_t>(seen_at[cur]); i < path.size(); ++i) {
    const Unit& u = plan.units[path[i]];
    const Unit& v = plan.units[i + 1 < path.size() ? path[i + 1] : cur];
    std::string rule;
    for (const Requirement& r : u.requirements)
      if (r.unit && &plan.units[*r.unit] == &v) rule = r.rule;
    cycle += fmt::format("\n    {}\n      requires ({})", unit_name(plan, u), rule);
  }
  cycle += fmt::format("\n    {}", unit_name(plan, plan.units[cur]));
  const Object& first = plan.objects[plan.units[cur].object];
  diags.add(first.where(), first.display(), "a dependency cycle:" + cycle,
            "remove one of these dependencies (planter.nephio.org/dependencies) or the "
            "annotation that places an object on the wrong cluster");
}

// Orders units by wave (longest path from a unit that needs nothing), then seed order; remaps
// requirement indices. Reports a cycle when there is one.
void order_units(Plan& plan, Diagnostics& diags) {
  size_t n = plan.units.size();
  Grouping dependents;  // the units that require each unit
  std::vector<int> in(n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (const Requirement& r : plan.units[i].requirements) {
      if (!r.unit) continue;
      dependents.add(static_cast<uint32_t>(*r.unit), i);
      ++in[i];
    }
  }
  dependents.finish(static_cast<uint32_t>(n));
  std::vector<size_t> order;
  order.reserve(n);
  for (size_t i = 0; i < n; ++i)
    if (in[i] == 0) order.push_back(i);
  int waves = n > 0 ? 1 : 0;
  for (size_t head = 0; head < order.size(); ++head) {
    size_t u = order[head];
    for (size_t d : dependents.members(static_cast<uint32_t>(u))) {
      plan.units[d].wave = std::max(plan.units[d].wave, plan.units[u].wave + 1);
      waves = std::max(waves, plan.units[d].wave + 1);
      if (--in[d] == 0) order.push_back(d);
    }
  }
  if (order.size() != n) {
    report_cycle(plan, in, diags);
    return;
  }
  // A counting sort by wave keeps seed order within a wave.
  std::vector<size_t> wave_start(static_cast<size_t>(waves) + 1, 0);
  for (const Unit& u : plan.units) ++wave_start[static_cast<size_t>(u.wave) + 1];
  for (size_t w = 0; w + 1 < wave_start.size(); ++w) wave_start[w + 1] += wave_start[w];
  std::vector<size_t> new_index(n);
  for (size_t i = 0; i < n; ++i)
    new_index[i] = wave_start[static_cast<size_t>(plan.units[i].wave)]++;
  for (Unit& u : plan.units)
    for (Requirement& r : u.requirements)
      if (r.unit) r.unit = new_index[*r.unit];
  // Moved in place, cycle by cycle, rather than into a second vector of every unit (8 MB of fresh
  // pages at 100,000 units).
  for (size_t i = 0; i < n; ++i)
    while (new_index[i] != i) {
      size_t to = new_index[i];
      std::swap(plan.units[i], plan.units[to]);
      std::swap(new_index[i], new_index[to]);
    }
}

// The requirements of units [from, to), each rule's in turn, without the repeats.
void derive_requirements(const RuleContext& ctx, std::vector<Unit>& units, size_t from, size_t to) {
  std::vector<Requirement> derived;
  std::vector<size_t> kept;
  for (size_t u = from; u < to; ++u) {
    Unit& unit = units[u];
    derived.clear();
    kept.clear();
    for (const RequirementRule& rule : requirement_rules()) rule.derive(ctx, unit, derived);
    for (size_t d = 0; d < derived.size(); ++d) {
      const Requirement& r = derived[d];
      if (r.unit == u) continue;  // an object never waits for itself
      // Rules run most specific first: a later rule naming the same object adds nothing. (Two
      // requirements on one cluster name the same unit exactly when they name the same object.)
      bool taken = false;
      for (size_t k : kept)
        taken = taken || (derived[k].unit == r.unit && derived[k].cluster == r.cluster &&
                          (r.unit || derived[k].external_object->same_object(*r.external_object)));
      if (!taken) kept.push_back(d);
    }
    unit.requirements.reserve(kept.size());
    for (size_t k : kept) unit.requirements.push_back(std::move(derived[k]));
  }
}

}  // namespace

Plan make_plan(std::vector<Object> objects, const KindTable& kinds, const PlanOptions& options,
               Diagnostics& diags, std::vector<StackNeeds> stacks) {
  Plan plan;
  plan.approval_namespace = std::string(options.approval_namespace);  // the rollout rule reads it
  plan.stacks = std::move(stacks);
  plan.objects = std::move(objects);
  const auto& objs = plan.objects;
  SeedIndex index(objs);
  std::vector<ClusterInfo> given = options.clusters;
  bool offline = false;
  if (ClusterReferences refs = cluster_references(objs, given, options.default_cluster);
      refs.need_existing() && options.existing_clusters) {
    auto existing = options.existing_clusters();
    if (!existing) {
      diags.add("the management cluster", "",
                "cannot read the cluster objects on it: " + existing.error().message,
                "the seed names clusters it does not define; check the connection to the "
                "management cluster, or pass --cluster NAME=CONTEXT for each");
      return plan;
    }
    given.insert(given.begin(), std::make_move_iterator(existing->begin()),
                 std::make_move_iterator(existing->end()));
  } else if (refs.need_existing()) {
    offline = true;
    for (const std::string& name : refs.unknown) {
      diags.warn("", "",
                 fmt::format("cluster \"{}\" is not in the seed or --cluster; planting looks for "
                             "a cluster object of that name on the management cluster",
                             name));
      given.push_back({name, "unresolved", {}, std::nullopt, {}, {}, std::nullopt});
    }
  }
  Inventory inventory = Inventory::build(objs, std::move(given), diags, offline);
  plan.clusters = inventory.clusters();
  auto default_cluster = inventory.index_of(options.default_cluster);
  if (!default_cluster) {
    diags.add("", "",
              fmt::format("the default cluster \"{}\" is not known", options.default_cluster),
              fmt::format("known clusters: {}", inventory.names()));
    return plan;
  }
  std::vector<Placement> placements =
      place_objects(objs, index, inventory, *default_cluster, diags);
  ClusterChoices choices =
      read_cluster_choices(objs, index, placements, inventory, plan.stacks, kinds, diags);

  for (size_t i = 0; i < objs.size(); ++i) {
    if (const auto* rw = string_in(index.annotations(i), kReadyWhenAnnotation)) {
      const Object& o = objs[i];
      auto p = ReadinessPredicate::parse(*rw);
      if (!p)
        diags.add(o.where(), o.display(),
                  fmt::format("{}: {}", kReadyWhenAnnotation, p.error().message));
    }
  }

  // One unit per (object, cluster); the same object twice on one cluster is an error.
  std::vector<size_t> first_unit(objs.size() + 1, 0);
  NodeNeeds node_needs = read_node_needs(objs, kinds, diags);
  plan.node_needs = std::move(node_needs.needs);
  plan.node_providers = std::move(node_needs.providers);
  plan.choices = std::move(choices.choices);
  warn_unmatched_providers(objs, placements, inventory, diags);
  std::unordered_map<uint64_t, size_t> unit_by_key;  // filled as units are made
  std::vector<FamilyIndex> families;                 // prepared once every unit is made
  // What the rules read, with where they report (the second half of a large plan has its own).
  auto context = [&](Diagnostics& reported) {
    return RuleContext{.objects = objs,
                       .placements = placements,
                       .index = index,
                       .kinds = kinds,
                       .inventory = inventory,
                       .plan = plan,
                       .units = plan.units,
                       .first_unit = first_unit,
                       .conventions = options.conventions,
                       .unit_by_key = unit_by_key,
                       .families = families,
                       .diags = reported};
  };
  RuleContext ctx = context(diags);
  // One unit per object and cluster it is placed on: room made once (a seed a little larger than
  // its objects would double a 100,000-unit vector at its end).
  size_t unit_count = 0;
  for (const Placement& p : placements) unit_count += p.clusters.size();
  plan.units.reserve(unit_count);
  unit_by_key.reserve(unit_count);
  for (size_t i = 0; i < objs.size(); ++i) {
    first_unit[i] = plan.units.size();
    for (uint32_t cluster : placements[i].clusters) {
      const std::string& name = inventory.clusters()[cluster].name;
      // Units made so far: the earlier objects', so first_unit[j + 1] is set for each of them.
      if (auto earlier = ctx.unit_on(index.same_key(i), cluster)) {
        const Object& first = objs[plan.units[*earlier].object];
        diags.add(objs[i].where(), objs[i].display(),
                  fmt::format("the same object is already in the seed for cluster {} at {}", name,
                              first.where()),
                  "remove one of the two, or place them on different clusters");
        continue;
      }
      unit_by_key.emplace(RuleContext::unit_key(index.key_group(i), cluster), plan.units.size());
      plan.units.push_back({i, name, cluster, {}, 0});
    }
    first_unit[i + 1] = plan.units.size();
  }

  // Each rule family's index, once (rules of one family name the same prepare).
  std::vector<FamilyIndex (*)(const RuleContext&)> prepared;
  for (const RequirementRule& rule : requirement_rules()) {
    if (!rule.prepare ||
        std::find(prepared.begin(), prepared.end(), rule.prepare) != prepared.end())
      continue;
    prepared.push_back(rule.prepare);
    families.push_back(rule.prepare(ctx));
  }

  // The rules read nothing but the context and write nothing but a unit's requirements and the
  // diagnostics: a large plan's units are derived in two halves on two threads, the second half
  // with diagnostics of its own appended after the first's (what one thread says, in its order).
  constexpr size_t kTwoHalvesFrom = 20'000;
  size_t half = plan.units.size() >= kTwoHalvesFrom ? plan.units.size() / 2 : plan.units.size();
  Diagnostics second_diags;
  RuleContext second = context(second_diags);
  std::thread deriving;
  if (half < plan.units.size())
    deriving =
        std::thread([&] { derive_requirements(second, plan.units, half, plan.units.size()); });
  derive_requirements(ctx, plan.units, 0, half);
  if (deriving.joinable()) deriving.join();
  diags.append(std::move(second_diags));
  // A cycle is reported with the seed's other problems, in one round (it only walks the
  // requirements, which every unit has, whatever else is wrong with its object).
  order_units(plan, diags);
  return plan;
}

PlanOutcome plan_seed(Seed seed, const PlanOptions& options) {
  PlanOutcome out;
  KindTable kinds = KindTable::builtin();
  // The cluster definitions planter knows without their CRDs in the seed: namespaced, so a
  // Cluster without metadata.namespace lands in --namespace (the Seed's, for the operator), not
  // in the kubeconfig context's.
  for (const auto& [group, kind, resource] :
       {std::tuple{"planter.nephio.org", "Cluster", "clusters"},
        std::tuple{"planter.nephio.org", "Seed", "seeds"},
        std::tuple{"cluster.x-k8s.io", "Cluster", "clusters"}})
    if (!kinds.find(group, kind)) kinds.add({group, kind, resource, Scope::kNamespaced, {}, false});
  if (options.create_namespace && !options.default_namespace.empty()) {
    bool present = false;
    for (const Object& o : seed.objects)
      present |= o.ref.kind == "Namespace" && o.ref.group().empty() &&
                 o.ref.name == options.default_namespace;
    if (!present) {
      Object ns;
      ns.body = {{"apiVersion", "v1"},
                 {"kind", "Namespace"},
                 {"metadata", {{"name", options.default_namespace}}}};
      ns.ref = {"v1", "Namespace", "", options.default_namespace};
      ns.source = {"--create-namespace", 0};
      seed.objects.push_back(std::move(ns));
    }
  }
  // What other tools read but never apply leaves the seed first (the plan lists it).
  std::vector<SetAside> aside = set_aside(seed.objects, options.conventions, out.diags);
  if (seed.objects.empty() && !aside.empty()) {
    out.diags.add(aside.front().source.str(), aside.front().ref.display(),
                  fmt::format("nothing of the seed would be declared: its {} object{} {} read "
                              "but never applied ({})",
                              aside.size(), aside.size() == 1 ? "" : "s",
                              aside.size() == 1 ? "is" : "are", aside.front().why),
                  "give planter the objects to declare, or --ignore-annotations=" +
                      std::string(aside.front().convention) + " to declare these");
    return out;
  }
  // Stacks are read and written into their members' pods before anything else looks at them.
  std::vector<StackNeeds> needs = apply_stacks(seed.objects, kinds, options.stacks, out.diags);
  ValidateOptions vopts{options.default_namespace};
  validate_seed(seed, kinds, vopts, out.diags);
  out.plan = make_plan(std::move(seed.objects), kinds, options, out.diags, std::move(needs));
  out.plan.set_aside = std::move(aside);
  out.plan.conventions = options.conventions;
  return out;
}

PlanOutcome build_plan(const PlanRequest& request) {
  Diagnostics diags;
  Seed seed = load_seed(request.sources, diags, request.load);
  return plan_loaded(std::move(seed), std::move(diags), request.plugins, request.plugin_limits,
                     request.options);
}

PlanOutcome plan_loaded(Seed seed, Diagnostics diags, const std::vector<std::string>& plugins,
                        const PluginLimits& limits, const PlanOptions& options) {
  PlanOutcome out;
  out.diags = std::move(diags);
  if (seed.objects.empty()) {
    if (out.diags.empty())
      out.diags.add("", "", "the seed holds no objects", "give planter at least one object");
    return out;
  }
  // Plugins only ever see a seed that loaded cleanly; a broken one is still planned, so that
  // every problem is reported in one go.
  if (out.diags.empty() && !run_plugins(plugins, seed, limits, out.diags)) return out;
  PlanOutcome planned = plan_seed(std::move(seed), options);
  out.diags.append(std::move(planned.diags));
  out.plan = std::move(planned.plan);
  return out;
}

}  // namespace planter
