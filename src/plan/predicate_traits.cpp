#include "plan/predicate_traits.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace planter {

namespace {

using Type = ReadinessPredicate::Type;

std::string cluster_ready(const ReadinessPredicate&, const std::string&, const ObjectRef& target) {
  return fmt::format("cluster {} ready", target.name);
}

std::string stack_fits(const ReadinessPredicate&, const std::string& cluster,
                       const ObjectRef& target) {
  return fmt::format("stack {} fits on cluster {}", target.name, cluster);
}

std::string cluster_choice(const ReadinessPredicate&, const std::string& cluster,
                           const ObjectRef& target) {
  return fmt::format("{} chooses cluster {}", target.name, cluster);
}

// "node-capability profile=performance on edge1 (its providers)".
std::string node_capability(const ReadinessPredicate& when, const std::string& cluster,
                            const ObjectRef&) {
  std::string what = fmt::format("node-capability {} on {}", when.arg, cluster);
  std::string_view by(when.value);
  by.remove_prefix(std::min(by.size(), by.find(';') + 1));
  if (!by.empty()) what += fmt::format(" ({})", by);
  return what;
}

std::string scheduler_ready(const ReadinessPredicate& when, const std::string&,
                            const ObjectRef& target) {
  return fmt::format("scheduler {} answers (Lease {}/{} held)", when.arg, target.ns, target.name);
}

std::string anchor_scheduled(const ReadinessPredicate&, const std::string&,
                             const ObjectRef& target) {
  return fmt::format("the anchor pod of {} bound", target.short_form());
}

std::string rollout_room(const ReadinessPredicate& when, const std::string&,
                         const ObjectRef& target) {
  return fmt::format("room in the roll-out of {} (maxUnavailable {})", target.short_form(),
                     when.arg);
}

PredicateTraits row(Type type) {
  PredicateTraits t;
  switch (type) {
    case Type::kExists:
      t.name = "exists";
      t.from_annotation = t.declared_is_enough = true;
      break;
    case Type::kActive:
      t.name = "active";
      t.wait = WaitKind::kNamespace;
      break;
    case Type::kEstablished:
      t.name = "established";
      t.serves_a_kind = true;
      t.wait = WaitKind::kApi;
      break;
    case Type::kAvailable:
      t.name = "available";
      t.serves_a_kind = true;
      t.wait = WaitKind::kApi;
      break;
    case Type::kEndpointsReady:
      t.name = "endpoints-ready";
      break;
    case Type::kClusterReady:
      t.name = "cluster-ready";
      t.before_provider_declared = t.names_its_cluster = true;
      t.wait = WaitKind::kCluster;
      t.describe = cluster_ready;
      break;
    case Type::kCondition:
      t.name = "condition";
      t.shown = PredicateTraits::Shown::kWithArg;
      t.from_annotation = true;
      break;
    case Type::kJsonPath:
      t.name = "jsonpath";
      t.shown = PredicateTraits::Shown::kWithArgAndValue;
      t.from_annotation = true;
      break;
    case Type::kFieldSet:
      t.name = "jsonpath";
      t.shown = PredicateTraits::Shown::kWithArg;
      t.from_annotation = true;
      break;
    case Type::kStackFits:
      t.name = "stack-fits";
      t.about_object = false;
      t.names_its_cluster = true;
      t.wait = WaitKind::kRoom;
      t.describe = stack_fits;
      break;
    case Type::kAnchorScheduled:
      t.name = "anchor-scheduled";
      t.wait = WaitKind::kRoom;
      t.describe = anchor_scheduled;
      break;
    case Type::kSchedulerReady:
      t.name = "scheduler-ready";
      t.never_in_seed = true;
      t.wait = WaitKind::kRoom;
      t.describe = scheduler_ready;
      break;
    case Type::kHealthy:
      t.name = "healthy";
      t.from_annotation = true;
      break;
    case Type::kClusterChoice:
      t.name = "cluster-choice";
      t.about_object = false;
      t.decides_the_cluster = t.names_its_cluster = true;
      t.wait = WaitKind::kCluster;
      t.describe = cluster_choice;
      break;
    case Type::kNodeCapability:
      t.name = "node-capability";
      t.shown = PredicateTraits::Shown::kWithArg;
      t.about_object = false;
      t.names_its_cluster = t.about_nodes = true;
      t.wait = WaitKind::kRoom;
      t.describe = node_capability;
      break;
    case Type::kHealthyFor:
      t.name = "healthy-for";
      t.shown = PredicateTraits::Shown::kWithArg;
      break;
    case Type::kRolloutRoom:
      t.name = "rollout-room";
      t.shown = PredicateTraits::Shown::kWithArg;
      t.about_object = false;
      t.names_its_cluster = true;
      t.describe = rollout_room;
      break;
  }
  return t;
}

// Room for every type: rows past the last are default rows no predicate has.
constexpr size_t kRows = 64;

}  // namespace

const PredicateTraits& traits_of(Type type) {
  static const auto table = [] {
    std::array<PredicateTraits, kRows> rows;
    for (size_t i = 0; i < kRows; ++i) rows[i] = row(static_cast<Type>(i));
    return rows;
  }();
  return table[std::min(static_cast<size_t>(type), kRows - 1)];
}

// readiness.h's: here, from the row, so that the predicate's file knows no type's name.
std::string ReadinessPredicate::str() const {
  const PredicateTraits& t = traits_of(type);
  switch (t.shown) {
    case PredicateTraits::Shown::kName:
      return std::string(t.name);
    case PredicateTraits::Shown::kWithArg:
      return fmt::format("{}={}", t.name, arg);
    case PredicateTraits::Shown::kWithArgAndValue:
      return fmt::format("{}={}={}", t.name, arg, value);
  }
  return std::string(t.name);
}

// readiness.h's too: the forms `ready-when` may write, read back as str() writes them.
Result<ReadinessPredicate> ReadinessPredicate::parse(std::string_view text) {
  // The forms without an argument an annotation may say: by their rows.
  for (size_t i = 0; i < kRows; ++i) {
    const PredicateTraits& t = traits_of(static_cast<Type>(i));
    if (t.from_annotation && t.shown == PredicateTraits::Shown::kName && text == t.name)
      return of(static_cast<Type>(i));
  }
  if (text.starts_with("condition=")) {
    std::string_view cond = text.substr(10);
    if (cond.empty()) return Error{"condition= needs a condition type, e.g. condition=Ready"};
    return ReadinessPredicate{Type::kCondition, std::string(cond), {}};
  }
  if (text.starts_with("jsonpath=")) {
    std::string_view rest = text.substr(9);
    // The expression is `{...}`; the value follows the `=` after the closing brace.
    size_t close = rest.starts_with("{") ? rest.find('}') : std::string_view::npos;
    // `jsonpath={.status.url}` alone: the value is set.
    if (close != std::string_view::npos && close + 1 == rest.size())
      return jsonpath(Type::kFieldSet, rest);
    size_t eq = close == std::string_view::npos ? rest.rfind('=') : rest.find('=', close);
    if (eq == std::string_view::npos || eq == 0)
      return Error{
          "jsonpath= needs an expression and a value, e.g. jsonpath={.status.phase}=Ready"};
    return jsonpath(Type::kJsonPath, rest.substr(0, eq), std::string(rest.substr(eq + 1)));
  }
  return Error{
      fmt::format("unknown readiness predicate \"{}\"; use exists, healthy, condition=<Type> or "
                  "jsonpath=<expr>=<value>",
                  text)};
}

}  // namespace planter
