#include "operator/seed_resource.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <exception>
#include <functional>

#include "model/object.h"
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
    if (const json::object* ref = object_at(*source, "configMapRef")) {
      auto name = string_at(*ref, "name", "spec.source.configMapRef");
      auto key = string_at(*ref, "key", "spec.source.configMapRef");
      if (!name) return name.error();
      if (!key) return key.error();
      if (name->empty()) return Error{"spec.source.configMapRef.name is empty: name a ConfigMap"};
      s.source = SeedSpec::Source::kConfigMap;
      s.config_map = *name;
      s.config_map_key = *key;
      ++given;
    }
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
    return Error{fmt::format(
        "spec.source must set exactly one of inline, configMapRef and url (it sets {})", given)};
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

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  double total_ms = 0;
  while (!text.empty()) {
    size_t digits = 0;
    while (digits < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
      ++digits;
    if (digits == 0) return std::nullopt;
    double value = 0;
    std::string number(text.substr(0, digits));
    if (std::count(number.begin(), number.end(), '.') > 1 || number == ".") return std::nullopt;
    value = std::stod(number);
    text.remove_prefix(digits);
    double unit = 0;
    for (auto [name, ms] : {std::pair<std::string_view, double>{"ms", 1},
                            {"h", 3'600'000},
                            {"m", 60'000},
                            {"s", 1'000}})
      if (text.starts_with(name)) {
        unit = ms;
        text.remove_prefix(name.size());
        break;
      }
    if (unit == 0) return std::nullopt;
    total_ms += value * unit;
  }
  if (total_ms > 1e12) return std::nullopt;  // beyond 30 years: a typo
  return std::chrono::milliseconds(static_cast<int64_t>(total_ms));
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

Result<SeedText> source_text(const SeedSpec& spec, const std::string& ns,
                             const SourceLimits& limits, const ConfigMapReader& read) {
  switch (spec.source) {
    case SeedSpec::Source::kInline:
      return SeedText{spec.inline_text, "spec.source.inline"};
    case SeedSpec::Source::kConfigMap: {
      auto cm = read(ns, spec.config_map);
      if (!cm) return cm.error();
      std::string name = fmt::format("configmap {}/{}", ns, spec.config_map);
      const json::object* data = object_at(*cm, "data");
      if (!spec.config_map_key.empty()) {
        auto* v = data ? data->if_contains(spec.config_map_key) : nullptr;
        if (!v || !v->is_string())
          return Error{
              fmt::format("{} has no key \"{}\": set spec.source.configMapRef.key to "
                          "one of its keys",
                          name, spec.config_map_key)};
        return SeedText{std::string(v->as_string()), name + " key " + spec.config_map_key};
      }
      if (!data || data->empty())
        return Error{fmt::format("{} has no data: put the seed's YAML in it", name)};
      // Every key, in key order, as one stream.
      std::vector<std::pair<std::string, std::string>> keys;
      for (const auto& [k, v] : *data)
        if (v.is_string()) keys.emplace_back(std::string(k), std::string(v.as_string()));
      std::sort(keys.begin(), keys.end());
      std::string text;
      for (const auto& [k, v] : keys) {
        if (!text.empty()) text += "\n---\n";
        text += v;
      }
      return SeedText{std::move(text), name};
    }
    case SeedSpec::Source::kUrl: {
      bool https = spec.url.starts_with("https://");
      bool file = spec.url.starts_with("file://");
      if (!https && !(file && limits.allow_file_urls))
        return Error{fmt::format("spec.source.url {}: only https URLs are allowed{}", spec.url,
                                 limits.allow_file_urls ? " (and file URLs)"
                                                        : " (file URLs with the operator's "
                                                          "--allow-file-urls, for development)")};
      FetchLimits fl;
      fl.protocols = limits.allow_file_urls ? "https,file" : "https";
      fl.max_bytes = limits.max_bytes;
      fl.timeout = limits.timeout;
      fl.cancel = limits.cancel;
      fl.ca_file = limits.ca_file;
      auto body = fetch_url(spec.url, fl);
      if (!body) return body.error();
      return SeedText{std::move(body.value()), spec.url};
    }
  }
  return Error{"unknown source"};
}

}  // namespace

Result<SeedText> fetch_seed_source(const SeedSpec& spec, const std::string& ns,
                                   const SourceLimits& limits, const ConfigMapReader& read) {
  auto text = source_text(spec, ns, limits, read);
  if (text && text->text.size() > limits.max_bytes)
    return Error{fmt::format("{} is larger than {} bytes (the operator's --max-seed-bytes)",
                             text->name, limits.max_bytes)};
  return text;
}

Result<PlannedSeed> plan_seed_text(
    const SeedText& text, const std::string& ns, const std::vector<std::string>& plugins,
    std::function<Result<std::vector<ClusterInfo>>()> existing_clusters) {
  Diagnostics loading;
  Seed seed;
  parse_seed_text(text.text, text.name, seed, loading);
  PlanOptions options;
  options.default_namespace = ns;
  options.existing_clusters = std::move(existing_clusters);
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
