// Rule "rollout": an object placed on several clusters (a cluster selector, a list) and annotated
// planter.nephio.org/rollout is declared batch by batch, as a telco hub rolls a change out
// (Topology Aware Lifecycle Manager's canaries and maxConcurrency), or stage by stage, as
// KubeFleet's staged update strategy does:
//
//   planter.nephio.org/rollout: "{maxConcurrency: 2, canaries: [edge3]}"
//   planter.nephio.org/rollout: "{maxConcurrency: 2, stages: [{name: canary, selector: ring=0,
//     approval: web-canary}, {name: europe, selector: region=eu, after: 10m}, {name: rest}]}"
//
// The canaries (cluster names, or a count: the first N clusters by name; none by default) are the
// first batch; the other clusters follow by name, maxConcurrency at a time. With stages, each
// cluster is in the first stage whose label selector matches it (a stage without one takes every
// cluster left), and each stage's clusters go by name, its maxConcurrency (else the roll-out's) at
// a time. Each unit of a batch waits for every unit of the batch before it to be healthy (or its
// ready-when), so a batch that fails, or never becomes healthy, stops the rest: its units are
// blocked by the failure, or wait.
//
// After a stage (or the canaries): `after: 10m` makes the next stage's first batch wait until the
// stage's last batch has been healthy that long (healthy-for); `approval: NAME` makes it wait for a
// person: for the ConfigMap kube-system/planter-approval-NAME on the management cluster (`planter
// approve NAME` writes it), as KubeFleet's approval after a stage or Argo CD's RollingSync step
// with maxUpdate 0.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <optional>
#include <set>

#include "model/duration.h"
#include "model/label_selector.h"
#include "model/names.h"
#include "model/yaml.h"
#include "plan/inventory.h"
#include "plan/rules.h"

namespace planter {

namespace {

// The batches of one rolled-out object, in order.
struct Batch {
  std::vector<size_t> units;
  // What its units wait for beyond the batch before it: the stage before it ended with these.
  std::chrono::milliseconds after{0};  // healthy that long; 0: healthy
  std::vector<std::string> approvals;
};

// What the rule reads: the batch of each unit whose object rolls out over its clusters, and each
// such object's batches.
struct RolloutIndex {
  std::vector<int> batch;                        // by unit: 0 for the first batch; -1 when none
  std::map<size_t, std::vector<Batch>> batches;  // by object
  std::map<size_t, int64_t> max_unavailable;     // by object: its clusters not available at once
};

constexpr int64_t kMaxConcurrency = 100;  // docs/limits.md: each unit waits on at most this many
constexpr size_t kMaxStages = 20;

struct Stage {
  std::string name;
  std::optional<LabelSelector> selector;  // none: every cluster left
  int64_t max_concurrency = 0;            // 0: the roll-out's
  std::chrono::milliseconds after{0};     // the next stage waits until this one is healthy so long
  std::string approval;                   // the next stage waits for this approval
};

struct Rollout {
  int64_t max_concurrency = 0;
  int64_t canary_count = 0;
  std::vector<std::string> canaries;
  std::string approval;  // the approval the batch after the canaries waits for; empty: none
  std::vector<Stage> stages;
  // maxUnavailable: a count, or a percentage of the object's clusters (rounded down, at least 1);
  // 0: none.
  int64_t max_unavailable = 0;
  bool max_unavailable_percent = false;
};

Result<int64_t> max_concurrency_of(const boost::json::value& value) {
  if (!value.is_int64() || value.as_int64() < 1 || value.as_int64() > kMaxConcurrency)
    return Error{
        fmt::format("maxConcurrency must be a whole number from 1 to {}", kMaxConcurrency)};
  return value.as_int64();
}

// It names a ConfigMap: planter-approval-NAME, a DNS subdomain of at most 253 characters.
Result<std::string> approval_of(const boost::json::value& value) {
  std::string name = value.is_string() ? std::string(value.as_string()) : "";
  if (name.empty() || name.size() > 253 - kApprovalPrefix.size() ||
      !is_dns_subdomain(std::string(kApprovalPrefix) + name))
    return Error{
        "approval must name the approval, lowercase letters, digits, '-' and '.' (e.g. "
        "web-canary)"};
  return name;
}

Result<Stage> parse_stage(const boost::json::value& value, size_t i) {
  if (!value.is_object())
    return Error{
        fmt::format("stages[{}] is not a mapping such as {{name: canary, selector: "
                    "ring=0}}",
                    i)};
  Stage stage;
  for (const auto& [key, v] : value.as_object()) {
    auto in = [&, key = std::string_view(key)](std::string_view what) {
      return fmt::format("stages[{}].{} {}", i, key, what);
    };
    if (key == "name") {
      if (!v.is_string() || !is_dns_label(v.as_string()))
        return Error{in("must be a name: lowercase letters, digits and '-' (e.g. europe)")};
      stage.name = v.as_string();
    } else if (key == "selector") {
      auto selector =
          v.is_string() ? LabelSelector::parse(v.as_string()) : LabelSelector::from_json(v);
      if (!selector)
        return Error{
            in(fmt::format("is not a label selector ({}): write one as kubectl -l "
                           "takes it, such as region=eu, or a mapping of "
                           "matchLabels/matchExpressions",
                           selector.error().message))};
      stage.selector = std::move(*selector);
    } else if (key == "maxConcurrency") {
      auto n = max_concurrency_of(v);
      if (!n) return Error{fmt::format("stages[{}]: {}", i, n.error().message)};
      stage.max_concurrency = *n;
    } else if (key == "after") {
      auto d = v.is_string() ? parse_duration(v.as_string()) : std::nullopt;
      if (!d || *d < std::chrono::seconds(1))
        return Error{in("must be a duration of at least 1s, such as 30s, 10m or 1h")};
      stage.after = *d;
    } else if (key == "approval") {
      auto name = approval_of(v);
      if (!name) return Error{fmt::format("stages[{}]: {}", i, name.error().message)};
      stage.approval = std::move(*name);
    } else {
      return Error{fmt::format(
          "stages[{}]: \"{}\" is not a field of a stage (name, selector, maxConcurrency, after, "
          "approval)",
          i, std::string_view(key))};
    }
  }
  if (stage.name.empty()) return Error{fmt::format("stages[{}] has no name", i)};
  return stage;
}

Result<Rollout> parse_rollout(std::string_view text) {
  auto docs = parse_yaml_stream(text, kRolloutAnnotation);
  if (!docs || docs->size() != 1 || !docs->front().value.is_object())
    return Error{"is not a mapping such as {maxConcurrency: 2, canaries: [edge1]}"};
  Rollout r;
  for (const auto& [key, value] : docs->front().value.as_object()) {
    if (key == "maxConcurrency") {
      auto n = max_concurrency_of(value);
      if (!n) return n.error();
      r.max_concurrency = *n;
    } else if (key == "canaries") {
      if (value.is_int64() && value.as_int64() >= 0) {
        r.canary_count = value.as_int64();
      } else if (value.is_array()) {
        for (const auto& c : value.as_array()) {
          if (!c.is_string() || c.as_string().empty())
            return Error{"canaries must be a count or a list of cluster names"};
          r.canaries.emplace_back(c.as_string());
        }
      } else {
        return Error{"canaries must be a count or a list of cluster names"};
      }
    } else if (key == "approval") {
      auto name = approval_of(value);
      if (!name) return name.error();
      r.approval = std::move(*name);
    } else if (key == "maxUnavailable") {
      std::string_view text = value.is_string() ? std::string_view(value.as_string()) : "";
      int64_t n = value.is_int64() ? value.as_int64() : 0;
      if (text.ends_with('%')) {
        n = 0;
        for (char c : text.substr(0, text.size() - 1))
          n = std::isdigit(static_cast<unsigned char>(c)) && n < 1000 ? n * 10 + (c - '0') : -1;
        r.max_unavailable_percent = true;
      }
      if (n < 1 || (r.max_unavailable_percent && n > 100))
        return Error{
            "maxUnavailable must be a whole number of clusters (at least 1) or a "
            "percentage of them, such as 25%"};
      r.max_unavailable = n;
    } else if (key == "stages") {
      if (!value.is_array() || value.as_array().empty() || value.as_array().size() > kMaxStages)
        return Error{fmt::format("stages must be a list of 1 to {} stages", kMaxStages)};
      std::set<std::string> names;
      for (size_t i = 0; i < value.as_array().size(); ++i) {
        auto stage = parse_stage(value.as_array()[i], i);
        if (!stage) return stage.error();
        if (!names.insert(stage->name).second)
          return Error{fmt::format("two stages are named {}", stage->name)};
        r.stages.push_back(std::move(*stage));
      }
    } else {
      return Error{
          fmt::format("\"{}\" is not a field of it (maxConcurrency, maxUnavailable, canaries, "
                      "approval, stages)",
                      std::string_view(key))};
    }
  }
  bool each_stage_says =
      !r.stages.empty() && std::all_of(r.stages.begin(), r.stages.end(),
                                       [](const Stage& s) { return s.max_concurrency > 0; });
  // With maxUnavailable, the batches may be as large as they come: it bounds them.
  if (r.max_concurrency == 0 && r.max_unavailable > 0) r.max_concurrency = kMaxConcurrency;
  if (r.max_concurrency == 0 && !each_stage_says)
    return Error{"maxConcurrency is missing (or give maxUnavailable)"};
  bool canaries = !r.canaries.empty() || r.canary_count > 0;
  if (!r.stages.empty() && (canaries || !r.approval.empty()))
    return Error{
        "stages and canaries (or a top-level approval) do not go together: make the canaries "
        "the first stage, with its approval"};
  if (!r.approval.empty() && !canaries)
    return Error{"approval waits after the canaries, and there are none: add canaries"};
  return r;
}

// Cuts `units` (in cluster-name order) into batches of `size`; the first carries `first`'s gates.
void add_batches(const std::vector<size_t>& units, int64_t size, Batch first,
                 std::vector<Batch>& out) {
  for (size_t i = 0; i < units.size(); ++i) {
    if (i % static_cast<size_t>(size) == 0) out.push_back(i == 0 ? std::move(first) : Batch{});
    out.back().units.push_back(units[i]);
  }
}

}  // namespace

// Each rolled-out object's batches; a malformed annotation is reported at its object.
FamilyIndex prepare_rollouts(const RuleContext& ctx) {
  const std::vector<Object>& objects = ctx.objects;
  const std::vector<Unit>& units = ctx.units;
  Diagnostics& diags = ctx.diags;
  RolloutIndex out;
  out.batch.assign(units.size(), -1);
  for (size_t o = 0; o < objects.size(); ++o) {
    const auto* text = string_in(ctx.index.annotations(o), kRolloutAnnotation);
    if (!text) continue;
    const Object& obj = objects[o];
    auto rollout = parse_rollout(*text);
    if (!rollout) {
      diags.add(obj.where(), obj.display(),
                fmt::format("{}: {}", kRolloutAnnotation, rollout.error().message),
                "e.g. planter.nephio.org/rollout: \"{maxConcurrency: 2, canaries: [edge1]}\"");
      continue;
    }
    // Its units by cluster name.
    std::vector<size_t> by_name;
    for (size_t u = ctx.first_unit[o]; u < ctx.first_unit[o + 1]; ++u) by_name.push_back(u);
    std::sort(by_name.begin(), by_name.end(),
              [&](size_t a, size_t b) { return units[a].cluster < units[b].cluster; });
    std::vector<Batch> batches;
    // Planned without its clusters (offline, where a selector matches none): nothing to order.
    if (by_name.empty()) continue;
    if (!rollout->stages.empty()) {
      // Each cluster in the first stage that selects it.
      std::vector<std::vector<size_t>> in_stage(rollout->stages.size());
      std::vector<std::string> left_out;
      for (size_t u : by_name) {
        const Labels& labels = ctx.inventory.clusters()[units[u].cluster_index].labels;
        auto it = std::find_if(rollout->stages.begin(), rollout->stages.end(), [&](const Stage& s) {
          return !s.selector || s.selector->matches(labels);
        });
        if (it == rollout->stages.end())
          left_out.push_back(units[u].cluster);
        else
          in_stage[static_cast<size_t>(it - rollout->stages.begin())].push_back(u);
      }
      if (!left_out.empty()) {
        diags.add(obj.where(), obj.display(),
                  fmt::format("{}: no stage selects cluster(s) {}", kRolloutAnnotation,
                              fmt::join(left_out, ", ")),
                  "end the stages with one without a selector, which takes every cluster left");
        continue;
      }
      // The gates after a stage carry over a stage that selects no cluster.
      Batch gates;
      for (size_t i = 0; i < rollout->stages.size(); ++i) {
        const Stage& stage = rollout->stages[i];
        if (!in_stage[i].empty()) {
          add_batches(in_stage[i],
                      stage.max_concurrency ? stage.max_concurrency : rollout->max_concurrency,
                      std::move(gates), batches);
          gates = Batch{};
        }
        gates.after = std::max(gates.after, stage.after);
        if (!stage.approval.empty()) gates.approvals.push_back(stage.approval);
      }
    } else {
      std::set<size_t> canary;
      for (const std::string& name : rollout->canaries) {
        auto it = std::find_if(by_name.begin(), by_name.end(),
                               [&](size_t u) { return units[u].cluster == name; });
        if (it == by_name.end()) {
          diags.add(obj.where(), obj.display(),
                    fmt::format("{}: canary {} is not a cluster the object is placed on",
                                kRolloutAnnotation, name),
                    "name clusters its planter.nephio.org/cluster, /clusters or "
                    "/cluster-selector place it on");
          continue;
        }
        canary.insert(*it);
      }
      // More canaries than clusters would silently make one batch of them all: refused.
      if (rollout->canary_count > static_cast<int64_t>(by_name.size())) {
        diags.add(obj.where(), obj.display(),
                  fmt::format("{}: canaries: {} is more than the {} cluster(s) the object is "
                              "placed on",
                              kRolloutAnnotation, rollout->canary_count, by_name.size()),
                  fmt::format("write a count below {}, so that clusters are left for the "
                              "batches after the canaries, or name the canary clusters",
                              by_name.size()));
        continue;
      }
      for (size_t i = 0; i < by_name.size() && static_cast<int64_t>(i) < rollout->canary_count; ++i)
        canary.insert(by_name[i]);
      std::vector<size_t> canaries, rest;
      for (size_t u : by_name) (canary.contains(u) ? canaries : rest).push_back(u);
      if (!canaries.empty()) batches.push_back(Batch{canaries, {}, {}});
      Batch after_canaries;
      if (!rollout->approval.empty()) after_canaries.approvals.push_back(rollout->approval);
      add_batches(rest, rollout->max_concurrency, std::move(after_canaries), batches);
    }
    for (size_t b = 0; b < batches.size(); ++b)
      for (size_t u : batches[b].units) out.batch[u] = static_cast<int>(b);
    if (rollout->max_unavailable > 0)
      out.max_unavailable[o] =
          rollout->max_unavailable_percent
              ? std::max<int64_t>(
                    1, rollout->max_unavailable * static_cast<int64_t>(by_name.size()) / 100)
              : rollout->max_unavailable;
    out.batches[o] = std::move(batches);
  }
  return FamilyIndex::of(std::move(out));
}

void require_rollout(const RuleContext& ctx, const Unit& unit, std::vector<Requirement>& out) {
  const RolloutIndex& rollouts = ctx.family<RolloutIndex>();
  size_t u = ctx.unit_index(unit);
  // maxUnavailable: the unit's own object, on the other clusters it rolls out to, leaves room.
  // A requirement outside the graph: it names no unit (the gate counts the object's units).
  if (auto it = rollouts.max_unavailable.find(unit.object); it != rollouts.max_unavailable.end())
    out.push_back(
        {std::nullopt, ctx.objects[unit.object].ref, unit.cluster,
         ReadinessPredicate{ReadinessPredicate::Type::kRolloutRoom, std::to_string(it->second), {}},
         "rollout"});
  int b = rollouts.batch[u];
  if (b <= 0) return;
  const std::vector<Batch>& batches = rollouts.batches.at(unit.object);
  const Batch& batch = batches[static_cast<size_t>(b)];
  // Healthy, unless the object says what ready means for it; after a stage with `after`,
  // healthy that long.
  ReadinessPredicate when = string_in(ctx.index.annotations(unit.object), kReadyWhenAnnotation)
                                ? ctx.ready_when(unit.object)
                                : ReadinessPredicate::of(ReadinessPredicate::Type::kHealthy);
  if (batch.after.count() > 0)
    when =
        ReadinessPredicate{ReadinessPredicate::Type::kHealthyFor, format_duration(batch.after), {}};
  for (size_t before : batches[static_cast<size_t>(b) - 1].units)
    out.push_back(ctx.need(unit.object, ctx.units[before].cluster_index, when, "rollout"));
  // After the canaries or a stage, a person's approval, on the management cluster.
  for (const std::string& approval : batch.approvals)
    out.push_back(ctx.need(ObjectRef{"v1", "ConfigMap", ctx.plan.approval_namespace,
                                     std::string(kApprovalPrefix) + approval},
                           kSelfIndex, ReadinessPredicate::of(ReadinessPredicate::Type::kExists),
                           "rollout"));
}

std::string_view approval_of(const Plan& plan, const Requirement& r) {
  if (r.rule != "rollout" || !r.external()) return {};
  const ObjectRef& ref = plan.target(r);
  if (ref.kind != "ConfigMap" || ref.ns != plan.approval_namespace ||
      !std::string_view(ref.name).starts_with(kApprovalPrefix))
    return {};
  return std::string_view(ref.name).substr(kApprovalPrefix.size());
}

}  // namespace planter
