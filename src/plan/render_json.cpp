// `planter plan -o json` (docs/plan-format.md), written as it goes: the units, which are nearly all
// of it, straight into the output text without a document of them in between (at 100k objects a
// DOM of the output cost as much as planning). The few stacks, clusters and set-aside objects are
// small documents, serialized by Boost.JSON.
#include <fmt/format.h>

#include <boost/json.hpp>

#include "fit/resources.h"
#include "plan/predicate_traits.h"
#include "plan/render.h"

namespace planter {

namespace json = boost::json;

namespace {

// A JSON string literal as Boost.JSON writes one: `"` and `\` escaped, control characters as
// \b \f \n \r \t or \u00xx, everything else (UTF-8 included) as it is.
void append_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  size_t run = 0;  // start of the bytes not yet copied
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xf];
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

void append_key(std::string& out, std::string_view key) {
  append_string(out, key);
  out += ':';
}

// `"key":"value"`, after a comma unless it is the first member.
void append_member(std::string& out, std::string_view key, std::string_view value,
                   bool first = false) {
  if (!first) out += ',';
  append_key(out, key);
  append_string(out, value);
}

void append_unit(std::string& out, const Plan& plan, const Unit& u) {
  const Object& o = plan.object_of(u);
  out += '{';
  append_member(out, "object", o.ref.id(), true);
  append_member(out, "cluster", u.cluster);
  fmt::format_to(std::back_inserter(out), ",\"wave\":{}", u.wave);
  append_member(out, "source", o.where());
  out += ",\"requires\":[";
  for (size_t i = 0; i < u.requirements.size(); ++i) {
    const Requirement& r = u.requirements[i];
    if (i > 0) out += ',';
    out += '{';
    append_member(out, "object", plan.target(r).id(), true);
    append_member(out, "cluster", r.cluster);
    append_member(out, "when", r.when.str());
    append_member(out, "rule", r.rule);
    if (r.external() && traits_of(r.when.type).about_object) out += ",\"external\":true";
    out += '}';
  }
  out += ']';
  if (!o.mutations.empty()) {
    out += ",\"mutations\":[";
    for (size_t i = 0; i < o.mutations.size(); ++i) {
      if (i > 0) out += ',';
      append_string(out, o.mutations[i]);
    }
    out += ']';
  }
  out += '}';
}

double cores(const fit::Resources& r) {
  return static_cast<double>(r.milli_cpu) / 1000;
}

// Every resource by its name, as a ResourceList's keys: cpu in cores, the rest in base units.
json::object resources_json(const fit::Resources& r) {
  json::object out{{"cpu", cores(r)}, {"memory", r.memory}};
  if (r.ephemeral_storage > 0) out["ephemeral-storage"] = r.ephemeral_storage;
  for (const auto& [name, v] : r.scalar) out[name] = v;
  return out;
}

json::array stacks_json(const Plan& plan) {
  json::array stacks;
  for (const StackNeeds& s : plan.stacks) {
    json::object js{{"name", s.name},
                    {"pods", s.pods},
                    {"cpu", cores(s.requests)},
                    {"memory", s.requests.memory},
                    {"requests", resources_json(s.requests)},
                    {"share", resources_json(s.share)}};
    if (s.per_node_pods) js["perNodePods"] = true;
    if (!s.colocated_on.empty()) js["colocatedOn"] = s.colocated_on;
    stacks.push_back(std::move(js));
  }
  return stacks;
}

json::array clusters_json(const Plan& plan) {
  json::array clusters;
  for (const ClusterInfo& c : plan.clusters) {
    json::object jc{{"name", c.name}, {"from", c.from}};
    if (c.object) jc["object"] = plan.objects[*c.object].ref.id();
    if (c.existing) jc["object"] = c.existing->id();
    if (!c.context.empty()) jc["context"] = c.context;
    if (!c.labels.empty()) {
      json::object labels;
      for (const auto& [k, v] : c.labels) labels[k] = v;
      jc["labels"] = std::move(labels);
    }
    clusters.push_back(std::move(jc));
  }
  return clusters;
}

json::array set_aside_json(const Plan& plan) {
  json::array aside;
  for (const SetAside& a : plan.set_aside)
    aside.push_back(json::object{{"object", a.ref.id()},
                                 {"source", a.source.str()},
                                 {"convention", a.convention},
                                 {"reason", a.why}});
  return aside;
}

}  // namespace

void write_json(const Plan& plan, const std::function<void(std::string_view)>& write) {
  // Written out every 64 KiB: the text of 100k units (36 MB) is never held whole.
  constexpr size_t kChunk = 64 << 10;
  std::string out;
  out.reserve(kChunk + 4096);
  out += "{\"units\":[";
  for (size_t i = 0; i < plan.units.size(); ++i) {
    if (i > 0) out += ',';
    append_unit(out, plan, plan.units[i]);
    if (out.size() >= kChunk) {
      write(out);
      out.clear();
    }
  }
  out += "],\"clusters\":";
  out += json::serialize(clusters_json(plan));
  fmt::format_to(std::back_inserter(out), ",\"waves\":{}", plan.wave_count());
  if (!plan.stacks.empty()) out += ",\"stacks\":" + json::serialize(stacks_json(plan));
  if (!plan.set_aside.empty()) out += ",\"setAside\":" + json::serialize(set_aside_json(plan));
  out += "}\n";
  write(out);
}

std::string render_json(const Plan& plan) {
  std::string text;
  write_json(plan, [&text](std::string_view chunk) { text += chunk; });
  return text;
}

}  // namespace planter
