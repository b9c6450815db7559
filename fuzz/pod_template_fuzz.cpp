// libFuzzer target: a tenant's planter.nephio.org/pod-template annotation (the input's first
// line) and the spec of the custom resource it addresses (the rest, as JSON), through the stack
// layer (src/plan/stacks) as the member of a co-located, dedicated, atomic stack, so that every
// write path runs. The objects are built directly, not read from YAML, so that the target spends
// its time on paths and pod templates (planner_fuzz covers the whole pipeline). Bad input ends in
// diagnostics, never in a crash, a hang, or memory out of proportion to the input.
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/diagnostics.h"
#include "model/kinds.h"
#include "model/object.h"
#include "plan/stacks/mutate.h"

namespace {

namespace json = boost::json;

planter::Object object(json::object body) {
  planter::Object o;
  const json::object& meta = body.at("metadata").as_object();
  o.ref.api_version = std::string(body.at("apiVersion").as_string());
  o.ref.kind = std::string(body.at("kind").as_string());
  o.ref.name = std::string(meta.at("name").as_string());
  if (const json::value* ns = meta.if_contains("namespace"))
    o.ref.ns = std::string(ns->as_string());
  o.source = {"fuzz.yaml", 1};
  o.body = std::move(body);
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const planter::KindTable kinds = planter::KindTable::builtin();
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t eol = input.find('\n');
  std::string_view annotation = input.substr(0, eol);
  std::string_view rest = eol == std::string_view::npos ? "" : input.substr(eol + 1);
  json::parse_options limits;
  limits.max_depth = 64;
  boost::system::error_code ec;
  json::value spec = json::parse(rest, ec, {}, limits);
  if (ec || !spec.is_object()) spec = json::object{};

  std::vector<planter::Object> objects;
  objects.push_back(object(json::object{
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata",
       {{"name", "widgets.example.com"},
        {"annotations", {{"planter.nephio.org/pod-template", annotation}}}}},
      {"spec",
       {{"group", "example.com"},
        {"names", {{"kind", "Widget"}, {"plural", "widgets"}}},
        {"scope", "Namespaced"},
        {"versions",
         json::array{json::object{{"name", "v1"}, {"served", true}, {"storage", true}}}}}}}));
  objects.push_back(
      object(json::object{{"apiVersion", "planter.nephio.org/v1alpha1"},
                          {"kind", "Stack"},
                          {"metadata", {{"name", "fuzz"}}},
                          {"spec",
                           {{"selector", {{"matchLabels", {{"stack", "fuzz"}}}}},
                            {"colocate", true},
                            {"dedicated", {{"key", "tenant"}, {"value", "gold"}}},
                            {"atomic", {{"defaults", {{"cpu", "1"}, {"memory", "1Gi"}}}}}}}}));
  objects.push_back(object(json::object{
      {"apiVersion", "example.com/v1"},
      {"kind", "Widget"},
      {"metadata", {{"name", "w"}, {"namespace", "default"}, {"labels", {{"stack", "fuzz"}}}}},
      {"spec", std::move(spec)}}));
  planter::Diagnostics diags;
  auto needs = planter::apply_stacks(objects, kinds, planter::StackOptions{}, diags);
  (void)needs;
  return 0;
}
