// Custom resources against their CRD's structural schema (openAPIV3Schema), as kube-apiserver
// treats them after pruning unknown fields: nulls of fields that are not `nullable` dropped,
// `default`s applied, then every value validated (type, `x-kubernetes-int-or-string`, `enum`,
// `required`, `pattern`, minimum/maximum (exclusive too), min/max length, items and properties,
// `multipleOf`, `x-kubernetes-validations` rules in CEL, transition rules on updates), each
// violation with kube-apiserver's reason, field path and message.
//
// The sim's own code (it shares nothing with planter's client). Pure and thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <vector>

namespace planter::sim {

struct SchemaViolation {
  std::string reason;   // FieldValueInvalid, FieldValueRequired, FieldValueNotSupported, ...
  std::string field;    // spec.replicas
  std::string message;  // Invalid value: "x": spec.replicas in body must be of type integer: "x"
};

// Drops nulls the schema does not allow and applies defaults, in place. `metadata`, `apiVersion`
// and `kind` are left alone (kube-apiserver checks them elsewhere).
void apply_schema_defaults(const boost::json::value& schema, boost::json::object& object);

// Every violation of `object` against `schema`, in field order. `old`: the object before, on an
// update (its transition rules are checked against it).
std::vector<SchemaViolation> validate_against_schema(const boost::json::value& schema,
                                                     const boost::json::object& object,
                                                     const boost::json::object* old = nullptr);

}  // namespace planter::sim
