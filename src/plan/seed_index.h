// Lookups over a seed's objects that placement and the requirement rules share. Built once per
// plan in one pass; every lookup is a hash-map probe, so planning stays linear in the seed.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/object.h"

namespace planter {

class SeedIndex {
 public:
  explicit SeedIndex(const std::vector<Object>& objects);

  // Every object with this version-free key (one per cluster it is written for).
  const std::vector<size_t>& by_key(const std::string& key) const;
  // Objects in a namespace (by metadata.namespace).
  const std::vector<size_t>& in_namespace(const std::string& ns) const;
  // Objects of a kind: "group|Kind".
  const std::vector<size_t>& of_kind(const std::string& group_kind) const;
  // Objects of a kind name in any group: "Kind" (for the `Kind/name` dependency form).
  const std::vector<size_t>& of_kind_name(const std::string& kind) const;
  // CRD objects defining "group|Kind".
  const std::vector<size_t>& crds_for(const std::string& group_kind) const;
  // APIService objects serving "group/version".
  const std::vector<size_t>& apiservices_for(const std::string& group_version) const;

  static std::string group_kind(std::string_view group, std::string_view kind);

 private:
  static const std::vector<size_t> kNone;
  using Map = std::unordered_map<std::string, std::vector<size_t>>;
  static const std::vector<size_t>& get(const Map& m, const std::string& k);
  Map by_key_, in_namespace_, of_kind_, of_kind_name_, crds_, apiservices_;
};

}  // namespace planter
