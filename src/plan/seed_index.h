// Lookups over a seed's objects that placement and the requirement rules share. Built once per
// plan in one pass; every lookup is one probe of a flat hash table, and its answer is a span of
// object indices (in seed order) laid out in one array. Keys are views of the objects' own
// strings, so building the index allocates per table, not per object: the objects must outlive
// the index and stay unchanged while it is used.
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

  // Every object with this version-free identity (one per cluster it is written for).
  Objects by_key(std::string_view group, std::string_view kind, std::string_view ns,
                 std::string_view name) const;
  Objects by_key(const ObjectRef& ref) const {
    return by_key(ref.group(), ref.kind, ref.ns, ref.name);
  }
  // by_key() of objects[object] itself, without hashing.
  Objects same_key(size_t object) const;
  // Objects in a namespace (by metadata.namespace).
  Objects in_namespace(std::string_view ns) const;
  // Objects of a kind.
  Objects of_kind(std::string_view group, std::string_view kind) const;
  // Objects of a kind name in any group (for the `Kind/name` dependency form).
  Objects of_kind_name(std::string_view kind) const;
  // CRD objects defining a kind.
  Objects crds_for(std::string_view group, std::string_view kind) const;
  // APIService objects serving an API version ("group/version").
  Objects apiservices_for(std::string_view api_version) const;

 private:
  class Table;
  std::unique_ptr<Table> by_key_, in_namespace_, of_kind_, of_kind_name_, crds_, apiservices_;
};

}  // namespace planter
