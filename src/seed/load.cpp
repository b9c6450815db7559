#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <iterator>

#include "model/files.h"
#include "model/yaml.h"
#include "seed/kustomize.h"
#include "seed/seed.h"

namespace planter {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

std::string string_field(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string{};
}

bool is_resource_list(const json::object& o) {
  return string_field(o, "kind") == "ResourceList" &&
         string_field(o, "apiVersion").starts_with("config.kubernetes.io/");
}

// `v1 List`, `ConfigMapList`, `RoleBindingList`…: any kind ending in List with an items array.
bool is_list(const json::object& o) {
  std::string kind = string_field(o, "kind");
  const json::value* items = o.if_contains("items");
  return kind.size() > 4 && kind.ends_with("List") && items && items->is_array();
}

// Turns one mapping into an Object, or reports why it cannot be one.
void add_object(json::value&& v, SourceLocation where, Seed& seed, Diagnostics& diags) {
  if (!v.is_object()) {
    diags.add(where.str(), "",
              fmt::format("a document must be a mapping (a Kubernetes object), not a {}",
                          v.is_array() ? "sequence" : "scalar"),
              "each document needs apiVersion, kind and metadata.name");
    return;
  }
  // Move-constructing keeps the document's storage; assigning would copy it.
  Object obj{json::object(std::move(v.get_object())), {}, std::move(where)};
  const json::object& b = obj.body;
  obj.ref.api_version = string_field(b, "apiVersion");
  obj.ref.kind = string_field(b, "kind");
  const json::value* meta = b.if_contains("metadata");
  const json::object* m = meta ? meta->if_object() : nullptr;
  if (m) {
    obj.ref.name = string_field(*m, "name");
    obj.ref.ns = string_field(*m, "namespace");
  }
  // Only errors need the long description.
  auto who = [&obj] {
    return fmt::format("{} {} {}{}", obj.ref.api_version.empty() ? "?" : obj.ref.api_version,
                       obj.ref.kind.empty() ? "?" : obj.ref.kind,
                       obj.ref.ns.empty() ? "" : obj.ref.ns + "/",
                       obj.ref.name.empty() ? "(no name)" : obj.ref.name);
  };
  if (obj.ref.api_version == "kapp.k14s.io/v1alpha1" && obj.ref.kind == "Config") {
    diags.warn(obj.where(), who(), "kapp configuration, not a Kubernetes object: ignored");
    return;
  }
  bool ok = true;
  if (obj.ref.api_version.empty()) {
    diags.add(obj.where(), who(), "apiVersion is missing or not a string",
              "add apiVersion, e.g. `apiVersion: v1` or `apiVersion: apps/v1`");
    ok = false;
  }
  if (obj.ref.kind.empty()) {
    diags.add(obj.where(), who(), "kind is missing or not a string",
              "add kind, e.g. `kind: ConfigMap`");
    ok = false;
  }
  if (meta && !m) {
    diags.add(obj.where(), who(), "metadata must be a mapping");
    ok = false;
  } else if (obj.ref.name.empty()) {
    if (m && m->contains("generateName")) {
      diags.add(obj.where(), who(),
                "metadata.generateName without metadata.name: planter must know an object's name "
                "to declare it idempotently and to wait for it",
                "replace generateName with a fixed metadata.name");
    } else {
      diags.add(obj.where(), who(), "metadata.name is missing or not a string",
                "add metadata.name");
    }
    ok = false;
  }
  if (m && m->contains("namespace") && !m->at("namespace").is_string()) {
    diags.add(obj.where(), who(), "metadata.namespace must be a string");
    ok = false;
  }
  if (ok) seed.objects.push_back(std::move(obj));
}

// YAML and JSON files, and a kpt package's Kptfile (so that the plan says it is not declared).
bool is_seed_file(const fs::path& p) {
  auto ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json" || p.filename() == "Kptfile";
}

// Builds the kustomization in `folder` (seed/kustomize.h) and appends its objects to `seed`.
void load_kustomization(const fs::path& folder, Seed& seed, Diagnostics& diags,
                        const LoadOptions& options) {
  auto built = kustomize_build(folder, options.allow_remote_bases);
  if (!built) {
    diags.add(folder.string(), "", built.error().message);
    return;
  }
  parse_seed_text(built.value(), "kustomize build " + folder.string(), seed, diags);
}

}  // namespace

void parse_seed_text(std::string_view text, std::string_view name, Seed& seed, Diagnostics& diags) {
  auto docs = parse_yaml_stream(text, name);
  if (!docs) {
    diags.add("", "", docs.error().message + " (malformed YAML)",
              "fix the YAML at that line; nothing of this file was read");
    return;
  }
  // One object a document, most often: room made once rather than by doubling (a 100,000-object
  // seed's vector is 20 MB, and each doubling moves what is there to fresh pages). At least
  // twofold when it grows, so that a seed of a thousand small files is not moved a thousand times.
  if (size_t wanted = seed.objects.size() + docs->size(); wanted > seed.objects.capacity())
    seed.objects.reserve(std::max(wanted, 2 * seed.objects.capacity()));
  for (YamlDocument& doc : docs.value()) {
    if (doc.value.is_null()) continue;  // empty document (only comments, or `---` twice)
    SourceLocation where{std::string(name), doc.line};
    json::object* o = doc.value.if_object();
    if (o && (is_resource_list(*o) || is_list(*o))) {
      if (is_resource_list(*o)) seed.resource_list = true;
      json::value* items_value = o->if_contains("items");
      if (items_value == nullptr || items_value->is_null()) continue;  // a list of nothing
      if (!items_value->is_array()) {
        diags.add(where.str(), string_field(*o, "apiVersion") + " " + string_field(*o, "kind"),
                  "items must be a sequence of objects",
                  "write `items:` followed by `- apiVersion: …` entries, or `items: []`");
        continue;
      }
      json::array& items = items_value->get_array();
      for (size_t i = 0; i < items.size(); ++i) {
        int line = i < doc.item_lines.size() ? doc.item_lines[i] : doc.line;
        add_object(std::move(items[i]), SourceLocation{std::string(name), line}, seed, diags);
      }
      continue;
    }
    add_object(std::move(doc.value), std::move(where), seed, diags);
  }
}

Seed load_seed(const std::vector<std::string>& sources, Diagnostics& diags,
               const LoadOptions& options) {
  Seed seed;
  for (const std::string& src : sources) {
    if (src == "-") {
      std::string text((std::istreambuf_iterator<char>(std::cin)),
                       std::istreambuf_iterator<char>());
      parse_seed_text(text, "<stdin>", seed, diags);
      continue;
    }
    if (src.starts_with("http://") || src.starts_with("https://")) {
      auto body = fetch_url(src);
      if (!body) {
        diags.add("", "", "cannot fetch the seed: " + body.error().message,
                  "check the URL and that it serves YAML");
        continue;
      }
      parse_seed_text(body.value(), src, seed, diags);
      continue;
    }
    std::error_code ec;
    fs::path path(src);
    if (fs::is_directory(path, ec)) {
      // Files are read; a folder with a kustomization is built instead, its files unread.
      struct Found {
        fs::path path;
        bool kustomization;
        bool operator<(const Found& o) const { return path < o.path; }
      };
      std::vector<Found> found;
      bool built = kustomization_in(path).has_value();
      if (built) found.push_back({path, true});
      for (auto it = fs::recursive_directory_iterator(path, ec);
           !built && !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_directory() && kustomization_in(it->path())) {
          found.push_back({it->path(), true});
          it.disable_recursion_pending();
        } else if (it->is_regular_file() && is_seed_file(it->path())) {
          found.push_back({it->path(), false});
        }
      }
      std::sort(found.begin(), found.end());
      if (found.empty())
        diags.add(src, "", "the folder holds no .yaml, .yml or .json file",
                  "point planter at the folder that holds the seed");
      for (const Found& f : found) {
        if (f.kustomization) {
          load_kustomization(f.path, seed, diags, options);
          continue;
        }
        auto text = read_file(f.path.string());
        if (!text) {
          diags.add("", "", text.error().message);
          continue;
        }
        parse_seed_text(text.value(), f.path.string(), seed, diags);
      }
      continue;
    }
    if (!fs::exists(path, ec)) {
      diags.add(src, "", "no such file or folder",
                "give a file, a folder, `-` for standard input, or an http(s) URL");
      continue;
    }
    auto text = read_file(path.string());
    if (!text) {
      diags.add("", "", text.error().message);
      continue;
    }
    parse_seed_text(text.value(), src, seed, diags);
  }
  return seed;
}

}  // namespace planter
