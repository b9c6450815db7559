// libFuzzer target: a tenant's planter.nephio.org/pod-template annotation (the input's first
// line) and the custom resource it addresses (the rest, as YAML under spec), planned as a stack
// member dedicated, co-located and atomic, so that every write path runs. Bad input ends in
// diagnostics, never in a crash, a hang, or a plan larger than its input allows.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "plan/planner.h"
#include "seed/seed.h"

namespace {

// The annotation as a YAML single-quoted scalar.
std::string single_quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string indented(std::string_view text, std::string_view by) {
  std::string out(by);
  for (char c : text) {
    out += c;
    if (c == '\n') out += by;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t eol = input.find('\n');
  std::string_view annotation = input.substr(0, eol);
  std::string_view body = eol == std::string_view::npos ? "" : input.substr(eol + 1);
  if (annotation.find('\r') != std::string_view::npos) return 0;
  std::string seed = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
  annotations:
    planter.nephio.org/pod-template: )" +
                     single_quoted(annotation) +
                     R"(
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
---
apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: fuzz}
spec:
  selector: {matchLabels: {stack: fuzz}}
  colocate: true
  dedicated: {key: tenant, value: gold}
  atomic: {defaults: {cpu: "1", memory: 1Gi}}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: default, labels: {stack: fuzz}}
spec:
)" + indented(body, "  ") +
                     "\n";
  planter::Seed s;
  planter::Diagnostics diags;
  planter::parse_seed_text(seed, "fuzz.yaml", s, diags);
  if (!diags.empty()) return 0;
  planter::PlanOutcome out = planter::plan_seed(std::move(s), planter::PlanOptions{});
  (void)out;
  return 0;
}
