// Lookups over a seed's objects that placement and the requirement rules share. Built once per
// plan in one pass that numbers each distinct kind, namespace and identity; an answer is a span of
// object indices (in seed order) laid out in one array. Lookups by an object's own index
// (same_key, namespace_of, crds_of) need no hashing; lookups by name probe flat hash tables keyed
// by views of the objects' own strings, so the objects must outlive the index and stay unchanged
// while it is used.
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
  // The group of objects of one identity `object` is in (what same_key lists): a number.
  uint32_t key_group(size_t object) const;
  // objects[object]'s metadata.annotations, read once for every rule; nullptr when it has none.
  const boost::json::object* annotations(size_t object) const;
  // The seed's Namespace objects named by objects[object]'s metadata.namespace.
  Objects namespace_of(size_t object) const;
  // The seed's CRDs that define objects[object]'s kind.
  Objects crds_of(size_t object) const;
  // Objects in a namespace (by metadata.namespace).
  Objects in_namespace(std::string_view ns) const;
  // The seed's Namespace objects with this name.
  Objects namespaces_named(std::string_view name) const;
  // Objects of a kind.
  Objects of_kind(std::string_view group, std::string_view kind) const;
  // Objects of a kind name in any group (for the `Kind/name` dependency form).
  Objects of_kind_name(std::string_view kind) const;
  // APIService objects serving an API version ("group/version").
  Objects apiservices_for(std::string_view api_version) const;

 private:
  struct Tables;
  std::unique_ptr<Tables> t_;
};

}  // namespace planter
