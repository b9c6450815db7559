// Lookups over a seed's objects that placement and the requirement rules share. Built once per
// plan in one pass; every lookup is one probe of a flat hash table, and its answer is a span of
// object indices (in seed order) laid out in one array, so planning stays linear in the seed and
// allocates per distinct key, not per object.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/object.h"

namespace planter {

class SeedIndex {
 public:
  using Objects = std::span<const size_t>;

  explicit SeedIndex(const std::vector<Object>& objects);
  ~SeedIndex();
  SeedIndex(const SeedIndex&) = delete;
  SeedIndex& operator=(const SeedIndex&) = delete;

  // Every object with this version-free key (one per cluster it is written for).
  Objects by_key(std::string_view key) const;
  // Objects in a namespace (by metadata.namespace).
  Objects in_namespace(std::string_view ns) const;
  // Objects of a kind: "group|Kind".
  Objects of_kind(std::string_view group_kind) const;
  // Objects of a kind name in any group: "Kind" (for the `Kind/name` dependency form).
  Objects of_kind_name(std::string_view kind) const;
  // CRD objects defining "group|Kind".
  Objects crds_for(std::string_view group_kind) const;
  // APIService objects serving "group/version".
  Objects apiservices_for(std::string_view group_version) const;

  static std::string group_kind(std::string_view group, std::string_view kind);

 private:
  class Table;
  std::unique_ptr<Table> by_key_, in_namespace_, of_kind_, of_kind_name_, crds_, apiservices_;
};

}  // namespace planter
