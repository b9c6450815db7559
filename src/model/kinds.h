// What planter knows about kinds before it talks to any cluster: the built-in kinds of a
// kube-apiserver (generated from shared/k8s-api, see scripts/gen-builtin-kinds and
// docs/decisions.md) extended by the CustomResourceDefinitions of a seed.
//
// Lookups are by (group, kind), version-free: scope does not change between versions. A kind
// that is in neither table has Scope::kUnknown until discovery says otherwise.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace planter {

enum class Scope { kNamespaced, kCluster, kUnknown };

struct KindInfo {
  std::string group;
  std::string kind;
  std::string resource;  // plural, e.g. "deployments"
  Scope scope = Scope::kUnknown;
  std::vector<std::string> versions;  // served versions
  bool builtin = false;
};

class KindTable {
 public:
  // The built-in kinds only.
  static KindTable builtin();

  const KindInfo* find(std::string_view group, std::string_view kind) const;
  // By plural resource name, for admission webhook rules.
  const KindInfo* find_resource(std::string_view group, std::string_view resource) const;
  Scope scope(std::string_view group, std::string_view kind) const;

  // True for groups a kube-apiserver serves itself ("", "apps", "rbac.authorization.k8s.io"…):
  // no CRD can define kinds in them.
  bool is_builtin_group(std::string_view group) const;
  // Every kind of a group, sorted (for error messages: it walks the whole table).
  std::vector<std::string> kinds_in_group(std::string_view group) const;

  // Adds or replaces a kind (a seed's CRD).
  void add(KindInfo info);

 private:
  // Maps probed with a string_view (planning looks kinds up per object; no key is allocated).
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept;
  };
  template <class V>
  using Map = std::unordered_map<std::string, V, Hash, std::equal_to<>>;
  static std::string key(std::string_view group, std::string_view kind);
  template <class V>
  static const V* lookup(const Map<V>& map, std::string_view group, std::string_view name);
  Map<KindInfo> by_kind_;
  Map<std::string> by_resource_;  // group|resource -> group|kind
  Map<bool> builtin_groups_;
};

}  // namespace planter
