#include "operator/seed_resource.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <exception>
#include <functional>

#include "model/base64.h"
#include "model/duration.h"
#include "model/gzip.h"
#include "model/names.h"
#include "model/object.h"
#include "operator/flux_artifact.h"
#include "plan/planner.h"
#include "plugins/runner.h"
#include "seed/seed.h"

namespace planter::op {

namespace json = boost::json;

namespace {

const json::object* object_at(const json::object& o, std::string_view key) {
  auto* v = o.if_contains(key);
  return v && v->is_object() ? &v->as_object() : nullptr;
}

Result<std::string> string_at(const json::object& o, std::string_view key,
                              const std::string& path) {
  auto* v = o.if_contains(key);
  if (!v || v->is_null()) return std::string();
  if (!v->is_string()) return Error{fmt::format("{}.{} must be a string", path, key)};
  return std::string(v->as_string());
}

std::string meta_name(const json::object& o) {
  const json::object* m = object_at(o, "metadata");
  const json::value* name = m ? m->if_contains("name") : nullptr;
  return name && name->is_string() ? std::string(name->get_string()) : std::string();
}

Result<bool> bool_at(const json::object& o, std::string_view key, bool fallback,
                     const std::string& path) {
  auto* v = o.if_contains(key);
  if (!v || v->is_null()) return fallback;
  if (!v->is_bool()) return Error{fmt::format("{}.{} must be true or false", path, key)};
  return v->as_bool();
}

constexpr size_t kMaxErrorsShown = 10;

}  // namespace

Result<SeedSpec> parse_seed_spec(const json::object& seed) {
  SeedSpec s;
  const json::object* spec = object_at(seed, "spec");
  if (!spec) return Error{"spec is missing: a Seed needs spec.source"};
  const json::object* source = object_at(*spec, "source");
  int given = 0;
  if (source) {
    auto inl = string_at(*source, "inline", "spec.source");
    if (!inl) return inl.error();
    if (source->contains("inline")) {
      s.source = SeedSpec::Source::kInline;
      s.inline_text = *inl;
      ++given;
    }
    auto config_map_ref = [](const json::value& v,
                             const std::string& path) -> Result<SeedSpec::ConfigMapRef> {
      if (!v.is_object())
        return Error{path + " must be an object: {name: <ConfigMap>, key: <key>}"};
      auto name = string_at(v.get_object(), "name", path);
      auto key = string_at(v.get_object(), "key", path);
      if (!name) return name.error();
      if (!key) return key.error();
      if (name->empty()) return Error{path + ".name is empty: name a ConfigMap"};
      return SeedSpec::ConfigMapRef{*name, *key};
    };
    if (const json::value* ref = source->if_contains("configMapRef"); ref && !ref->is_null()) {
      auto one = config_map_ref(*ref, "spec.source.configMapRef");
      if (!one) return one.error();
      s.source = SeedSpec::Source::kConfigMap;
      s.config_maps.push_back(std::move(*one));
      ++given;
    }
    if (const json::value* refs = source->if_contains("configMapRefs"); refs && !refs->is_null()) {
      if (!refs->is_array() || refs->get_array().empty())
        return Error{
            "spec.source.configMapRefs must be a list of {name, key}: the ConfigMaps "
            "read in that order"};
      if (refs->get_array().size() > kMaxConfigMapRefs)
        return Error{
            fmt::format("spec.source.configMapRefs lists {} ConfigMaps, more than {}: "
                        "select them with configMapSelector",
                        refs->get_array().size(), kMaxConfigMapRefs)};
      for (size_t i = 0; i < refs->get_array().size(); ++i) {
        auto one =
            config_map_ref(refs->get_array()[i], fmt::format("spec.source.configMapRefs[{}]", i));
        if (!one) return one.error();
        s.config_maps.push_back(std::move(*one));
      }
      s.source = SeedSpec::Source::kConfigMap;
      ++given;
    }
    if (const json::value* sel = source->if_contains("configMapSelector"); sel && !sel->is_null()) {
      auto selector = sel->is_object() ? LabelSelector::from_json(*sel)
                                       : Result<LabelSelector>(Error{"it must be an object"});
      // What the list request will carry must read back as the same selector.
      if (selector) {
        auto again = LabelSelector::parse(selector->str());
        if (!again) selector = again.error();
      }
      if (!selector)
        return Error{fmt::format(
            "spec.source.configMapSelector is not a label selector ({}): write matchLabels "
            "and/or matchExpressions",
            selector.error().message)};
      if (selector->empty())
        return Error{
            "spec.source.configMapSelector selects every ConfigMap of the namespace: "
            "give it matchLabels (or matchExpressions)"};
      s.source = SeedSpec::Source::kConfigMap;
      s.config_map_selector = std::move(*selector);
      ++given;
    }
    if (const json::value* ref = source->if_contains("sourceRef"); ref && !ref->is_null()) {
      if (!ref->is_object())
        return Error{
            "spec.source.sourceRef must be {kind: GitRepository|OCIRepository|Bucket, "
            "name: <name>}"};
      auto kind = string_at(ref->get_object(), "kind", "spec.source.sourceRef");
      auto name = string_at(ref->get_object(), "name", "spec.source.sourceRef");
      auto nsv = string_at(ref->get_object(), "namespace", "spec.source.sourceRef");
      if (!kind) return kind.error();
      if (!name) return name.error();
      if (!nsv) return nsv.error();
      if (!is_flux_source_kind(*kind))
        return Error{
            fmt::format("spec.source.sourceRef.kind is \"{}\": use GitRepository, "
                        "OCIRepository or Bucket (Flux's source kinds)",
                        *kind)};
      if (name->empty()) return Error{"spec.source.sourceRef.name is empty: name the source"};
      if (!nsv->empty())
        return Error{
            "spec.source.sourceRef.namespace is set: a Seed reads only a source of its "
            "own namespace (as Flux with --no-cross-namespace-refs)"};
      s.source = SeedSpec::Source::kFluxSource;
      s.source_kind = *kind;
      s.source_name = *name;
      ++given;
    }
    // A folder of a Flux source's artifact: without a sourceRef it would be ignored.
    auto path = string_at(*source, "path", "spec.source");
    if (!path) return path.error();
    if (s.source == SeedSpec::Source::kFluxSource)
      s.source_path = *path;
    else if (!path->empty())
      return Error{
          "spec.source.path is a folder of a Flux source's artifact: give the source as "
          "spec.source.sourceRef, or leave path out"};
    auto url = string_at(*source, "url", "spec.source");
    if (!url) return url.error();
    if (!url->empty()) {
      s.source = SeedSpec::Source::kUrl;
      s.url = *url;
      ++given;
    }
  }
  auto seed_url = string_at(*spec, "seedUrl", "spec");
  if (!seed_url) return seed_url.error();
  if (!seed_url->empty() && s.url.empty()) {
    s.source = SeedSpec::Source::kUrl;
    s.url = *seed_url;
    ++given;
  }
  if (given != 1)
    return Error{
        fmt::format("spec.source must set exactly one of inline, configMapRef, configMapRefs, "
                    "configMapSelector, sourceRef and url (it sets {})",
                    given)};
  auto planted = bool_at(*spec, "planted", true, "spec");
  if (!planted) return planted.error();
  s.planted = *planted;
  auto replant = string_at(*spec, "replant", "spec");
  if (!replant) return replant.error();
  s.replant = *replant;
  auto mode = string_at(*spec, "replantMode", "spec");
  if (!mode) return mode.error();
  if (!mode->empty() && *mode != "soft" && *mode != "hard")
    return Error{fmt::format("spec.replantMode is \"{}\": use soft or hard", *mode)};
  s.hard = *mode == "hard";
  auto uproot = bool_at(*spec, "uprootOnDelete", false, "spec");
  if (!uproot) return uproot.error();
  s.uproot_on_delete = *uproot;
  auto adopt = bool_at(*spec, "adopt", false, "spec");
  if (!adopt) return adopt.error();
  s.adopt = *adopt;
  auto wait = bool_at(*spec, "wait", false, "spec");
  if (!wait) return wait.error();
  s.wait = *wait;
  auto drift = string_at(*spec, "driftCheckInterval", "spec");
  if (!drift) return drift.error();
  if (!drift->empty()) {
    auto every = parse_duration(*drift);
    if (!every || *every < std::chrono::seconds(1))
      return Error{fmt::format(
          "spec.driftCheckInterval is \"{}\": write a duration of at least 1s, such as 30s, 5m "
          "or 1h",
          *drift)};
    s.drift_check_interval = std::chrono::ceil<std::chrono::seconds>(*every);
  }
  auto sa = string_at(*spec, "serviceAccountName", "spec");
  if (!sa) return sa.error();
  // It becomes the user the Seed's objects are written as (Impersonate-User): only a name the API
  // server could have given a ServiceAccount, so it can never carry another header or user.
  if (!sa->empty() && !is_dns_subdomain(*sa))
    return Error{fmt::format(
        "spec.serviceAccountName {} is not a ServiceAccount name: {} (e.g. \"deployer\")",
        json::serialize(json::value(*sa)), kSubdomainRule)};
  if (!sa->empty()) s.service_account = *sa;
  if (auto* plugins = spec->if_contains("plugins"); plugins && !plugins->is_null()) {
    if (!plugins->is_array()) return Error{"spec.plugins must be a list of plugin names"};
    for (const json::value& p : plugins->as_array()) {
      if (!p.is_string() || p.as_string().empty())
        return Error{"spec.plugins must be a list of plugin names"};
      std::string name(p.as_string());
      if (name.find('/') != std::string::npos || name == "." || name == "..")
        return Error{fmt::format(
            "spec.plugins: \"{}\" is not a plugin name: name a plugin of the operator's "
            "--plugin-dir, without a path",
            name)};
      s.plugins.push_back(std::move(name));
    }
  }
  if (const json::object* status = object_at(seed, "status"))
    if (const json::value* list = status->if_contains("clusterChoices"); list && list->is_array())
      for (const json::value& c : list->as_array()) {
        const json::object* choice = c.if_object();
        const json::value* name = choice ? choice->if_contains("name") : nullptr;
        const json::value* clusters = choice ? choice->if_contains("clusters") : nullptr;
        if (!name || !name->is_string() || !clusters || !clusters->is_array()) continue;
        std::vector<std::string> names;
        for (const json::value& n : clusters->as_array())
          if (n.is_string()) names.emplace_back(n.as_string());
        if (!names.empty()) s.kept_choices[std::string(name->as_string())] = std::move(names);
      }
  return s;
}

std::string seed_label(const std::string& ns, const std::string& name) {
  std::string label = ns + "." + name;
  if (label.size() <= 63) return label;
  std::string hash = fmt::format("{:016x}", std::hash<std::string>{}(label));
  std::string cut = label.substr(0, 63 - 1 - 10);
  while (!cut.empty() && !std::isalnum(static_cast<unsigned char>(cut.back()))) cut.pop_back();
  return cut + "-" + hash.substr(0, 10);
}

namespace {

// What a fetch of a Seed's source may do: `protocols`, and file URLs when the operator allows them.
FetchLimits fetch_limits(const SourceLimits& limits, const std::string& protocols) {
  FetchLimits fl;
  fl.protocols = limits.allow_file_urls ? protocols + ",file" : protocols;
  fl.max_bytes = limits.max_bytes;
  fl.timeout = limits.timeout;
  fl.cancel = limits.cancel;
  fl.ca_file = limits.ca_file;
  return fl;
}

Result<SeedText> source_text(const SeedSpec& spec, const std::string& ns,
                             const SourceLimits& limits, const SourceReader& read) {
  switch (spec.source) {
    case SeedSpec::Source::kInline:
      return SeedText{{{spec.inline_text, "spec.source.inline"}}, "spec.source.inline"};
    case SeedSpec::Source::kConfigMap: {
      SeedText out;
      // A key's text: data as it is, binaryData ending in .gz gunzipped (a part too large for a
      // ConfigMap's 1 MiB as text: a large CRD alone can be).
      size_t room = limits.max_bytes;
      auto text_of = [&](const std::string& name, std::string_view key,
                         const json::value& v) -> Result<std::optional<std::string>> {
        if (!v.is_string()) return std::optional<std::string>();
        auto bytes = base64_decode(v.get_string());
        if (!bytes) return Error{fmt::format("{} binaryData key {} is not base64", name, key)};
        auto text = gunzip(*bytes, room);
        if (!text)
          return Error{fmt::format("{} binaryData key {}: {}", name, key, text.error().message)};
        return std::optional<std::string>(std::move(*text));
      };
      auto add = [&](const json::object& cm, const std::string& key) -> std::optional<Error> {
        std::string name = fmt::format("configmap {}/{}", ns, meta_name(cm));
        const json::object* data = object_at(cm, "data");
        const json::object* binary = object_at(cm, "binaryData");
        std::vector<std::pair<std::string, std::string>> texts;  // key, text
        auto take = [&](std::string_view k, const json::value& v,
                        bool gzipped) -> std::optional<Error> {
          if (!gzipped) {
            if (v.is_string()) texts.emplace_back(k, v.get_string());
          } else {
            auto t = text_of(name, k, v);
            if (!t) return t.error();
            if (*t) texts.emplace_back(k, std::move(**t));
          }
          if (!texts.empty()) room -= std::min(room, texts.back().second.size());
          return std::nullopt;
        };
        if (!key.empty()) {
          const json::value* v = data ? data->if_contains(key) : nullptr;
          bool gzipped = !v && key.ends_with(".gz");
          if (gzipped) v = binary ? binary->if_contains(key) : nullptr;
          if (!v || (!v->is_string()))
            return Error{
                fmt::format("{} has no key \"{}\": set the key to one of its keys", name, key)};
          if (auto e = take(key, *v, gzipped)) return e;
        } else {
          // Every key, in key order: data's, and binaryData's ending in .gz.
          std::vector<std::pair<std::string_view, const json::value*>> keys;
          if (data)
            for (const auto& [k, v] : *data) keys.emplace_back(k, &v);
          if (binary)
            for (const auto& [k, v] : *binary)
              if (k.ends_with(".gz")) keys.emplace_back(k, &v);
          std::sort(keys.begin(), keys.end());
          for (const auto& [k, v] : keys)
            if (auto e = take(k, *v, binary && binary->if_contains(k) == v)) return e;
          if (texts.empty())
            return Error{fmt::format(
                "{} has no data: put the seed's YAML in it (binaryData only in keys ending in .gz, "
                "gzipped)",
                name)};
        }
        for (auto& [k, t] : texts)
          out.parts.push_back({std::move(t), fmt::format("{} key {}", name, k)});
        return std::nullopt;
      };
      if (spec.config_map_selector) {
        auto listed = read.config_maps(ns, *spec.config_map_selector);
        if (!listed) return listed.error();
        std::vector<const json::object*> selected;
        for (const json::object& cm : *listed)
          if (const json::object* m = object_at(cm, "metadata");
              m && spec.config_map_selector->matches(labels_of(object_at(*m, "labels"))))
            selected.push_back(&cm);
        if (selected.empty())
          return Error{fmt::format(
              "no ConfigMap of namespace {} matches spec.source.configMapSelector {}: label the "
              "seed's ConfigMaps so",
              ns, spec.config_map_selector->str())};
        std::sort(selected.begin(), selected.end(),
                  [](const json::object* a, const json::object* b) {
                    return meta_name(*a) < meta_name(*b);
                  });
        for (const json::object* cm : selected)
          if (auto e = add(*cm, "")) return *e;
        out.name = fmt::format("the ConfigMaps of {} that {} selects", ns,
                               spec.config_map_selector->str());
        return out;
      }
      for (const SeedSpec::ConfigMapRef& ref : spec.config_maps) {
        auto cm = read.config_map(ns, ref.name);
        if (!cm) return cm.error();
        if (auto e = add(*cm, ref.key)) return *e;
      }
      out.name =
          spec.config_maps.size() == 1 && !out.parts.empty() && !spec.config_maps[0].key.empty()
              ? out.parts[0].name
              : fmt::format("configmap {}/{}", ns, spec.config_maps[0].name);
      if (spec.config_maps.size() > 1)
        out.name += fmt::format(" and {} more", spec.config_maps.size() - 1);
      return out;
    }
    case SeedSpec::Source::kFluxSource: {
      std::string what = fmt::format("{} {}/{}", spec.source_kind, ns, spec.source_name);
      auto source = read.flux_source(spec.source_kind, ns, spec.source_name);
      if (!source) return source.error();
      auto artifact = artifact_of(*source, what);
      if (!artifact) return artifact.error();
      // source-controller serves its artifacts over http inside the cluster; the digest,
      // from the source's status, is what makes them trusted.
      auto tarball = fetch_url(artifact->url, fetch_limits(limits, "http,https"));
      if (!tarball) return Error{fmt::format("{}'s artifact: {}", what, tarball.error().message)};
      auto same = digest_matches(*tarball, artifact->digest);
      if (!same) return Error{fmt::format("{}'s artifact: {}", what, same.error().message)};
      if (!*same)
        return Error{fmt::format("{}'s artifact from {} does not match its digest {}: not read",
                                 what, artifact->url, artifact->digest)};
      auto files = read_artifact(*tarball, spec.source_path, limits.max_bytes);
      if (!files)
        return Error{
            fmt::format("{}'s artifact {}: {}", what, artifact->revision, files.error().message)};
      SeedText out;
      out.name = fmt::format("{} at {}", what, artifact->revision);
      for (ArtifactFile& f : *files)
        out.parts.push_back({std::move(f.text), fmt::format("{} {}", what, f.name)});
      return out;
    }
    case SeedSpec::Source::kUrl: {
      bool https = spec.url.starts_with("https://");
      bool file = spec.url.starts_with("file://");
      if (!https && !(file && limits.allow_file_urls))
        return Error{fmt::format("spec.source.url {}: only https URLs are allowed{}", spec.url,
                                 limits.allow_file_urls ? " (and file URLs)"
                                                        : " (file URLs with the operator's "
                                                          "--allow-file-urls, for development)")};
      auto body = fetch_url(spec.url, fetch_limits(limits, "https"));
      if (!body) return body.error();
      return SeedText{{{std::move(body.value()), spec.url}}, spec.url};
    }
  }
  return Error{"unknown source"};
}

}  // namespace

size_t SeedText::size() const {
  size_t n = 0;
  for (const Part& p : parts) n += p.text.size();
  return n;
}

Result<SeedText> fetch_seed_source(const SeedSpec& spec, const std::string& ns,
                                   const SourceLimits& limits, const SourceReader& read) {
  auto text = source_text(spec, ns, limits, read);
  if (text && text->size() > limits.max_bytes)
    return Error{fmt::format("{} is larger than {} bytes (the operator's --max-seed-bytes)",
                             text->name, limits.max_bytes)};
  return text;
}

Result<PlannedSeed> plan_seed_text(
    const SeedText& text, const std::string& ns, const std::vector<std::string>& plugins,
    std::function<Result<std::vector<ClusterInfo>>()> existing_clusters,
    std::map<std::string, GangPath> gang_paths) {
  Diagnostics loading;
  Seed seed;
  for (const SeedText::Part& part : text.parts)
    parse_seed_text(part.text, part.name, seed, loading);
  PlanOptions options;
  options.default_namespace = ns;
  options.approval_namespace = ns;
  options.existing_clusters = std::move(existing_clusters);
  options.stacks.gang_paths = std::move(gang_paths);
  PlanOutcome planned;
  try {
    planned = plan_loaded(std::move(seed), std::move(loading), plugins, PluginLimits{}, options);
  } catch (const std::exception& e) {
    // Planning is total for every input planter knows of; should one still throw, it fails this
    // Seed, not the operator and every other tenant's Seeds with it (a crash loop, issue 29).
    return Error{
        fmt::format("planter failed planning {}: {}; this is planter's bug, please report "
                    "it with the seed",
                    text.name, e.what())};
  }
  const Diagnostics& diags = planned.diags;
  PlannedSeed out;
  for (const Diagnostic& w : diags.warnings()) out.warnings.push_back(w.str());
  out.plan = std::move(planned.plan);
  if (!diags.empty()) return Error{describe_problems(diags)};
  return out;
}

std::string describe_problems(const Diagnostics& diags) {
  std::string message =
      fmt::format("the seed has {} problem{}", diags.size(), diags.size() == 1 ? "" : "s");
  size_t shown = 0;
  for (const Diagnostic& d : diags.items()) {
    if (shown++ == kMaxErrorsShown) {
      message += fmt::format("\n... and {} more", diags.size() - kMaxErrorsShown);
      break;
    }
    message += "\n" + d.str();
  }
  return message;
}

}  // namespace planter::op
