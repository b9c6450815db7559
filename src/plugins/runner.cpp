#include "plugins/runner.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unordered_map>

#include "model/yaml.h"

namespace planter {

namespace json = boost::json;
namespace fs = std::filesystem;

Result<std::vector<std::string>> plugins_in_dir(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Error{fmt::format("{}: not a folder", dir)};
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file()) continue;
    if (::access(entry.path().c_str(), X_OK) != 0) continue;
    out.push_back(entry.path().string());
  }
  if (ec) return Error{fmt::format("{}: {}", dir, ec.message())};
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

std::string serialize_seed(const Seed& seed) {
  if (seed.resource_list) {
    json::array items;
    items.reserve(seed.objects.size());
    for (const Object& o : seed.objects) items.push_back(o.body);
    json::value list = json::object{{"apiVersion", "config.kubernetes.io/v1"},
                                    {"kind", "ResourceList"},
                                    {"items", std::move(items)}};
    return to_yaml(list);
  }
  std::vector<const json::value*> docs;
  std::vector<json::value> values;
  values.reserve(seed.objects.size());
  for (const Object& o : seed.objects) values.emplace_back(o.body);
  for (const auto& v : values) docs.push_back(&v);
  return to_yaml_stream(docs);
}

}  // namespace

bool run_plugins(const std::vector<std::string>& plugins, Seed& seed, const PluginLimits& limits,
                 Diagnostics& diags) {
  for (const std::string& plugin : plugins) {
    std::string name = fs::path(plugin).filename().string();
    bool network =
        std::find(limits.network.begin(), limits.network.end(), name) != limits.network.end() ||
        std::find(limits.network.begin(), limits.network.end(), plugin) != limits.network.end();
    ProcessSpec spec{.path = plugin,
                     .input = serialize_seed(seed),
                     .timeout = limits.timeout,
                     .max_output_bytes = limits.max_output_bytes,
                     .sandbox = !network,
                     .clean_environment = true};
    auto run = run_process(spec);
    if (run && !run->sandbox_note.empty()) diags.warn("", "plugin " + name, run->sandbox_note);
    if (!run) {
      diags.add("", "plugin " + name, run.error().message, "check the path and its execute bit");
      return false;
    }
    const ProcessOutput& p = run.value();
    std::string err_tail = tail_lines(p.err, 10);
    std::string stderr_note;
    if (!err_tail.empty()) {
      stderr_note = "; its stderr ends with:";
      for (size_t start = 0; start <= err_tail.size();) {
        size_t nl = err_tail.find('\n', start);
        if (nl == std::string::npos) nl = err_tail.size();
        stderr_note += "\n    | " + err_tail.substr(start, nl - start);
        start = nl + 1;
      }
    }
    if (!p.succeeded()) {
      diags.add("", "plugin " + name, describe_exit(p, spec) + stderr_note,
                "fix the plugin or leave it out; nothing was declared");
      return false;
    }

    // Remember where each object came from, so that errors still point at the seed's files.
    std::unordered_map<std::string, SourceLocation> origin;
    origin.reserve(seed.objects.size());
    for (const Object& o : seed.objects) origin.emplace(o.ref.key(), o.source);

    Seed out;
    Diagnostics out_diags;
    parse_seed_text(p.out, "plugin " + name + " output", out, out_diags);
    if (!out_diags.empty()) {
      for (const auto& d : out_diags.items()) {
        Diagnostic copy = d;
        copy.message = "its output is not a valid seed: " + copy.message;
        copy.hint = "a plugin must write the whole seed back on stdout";
        diags.add(std::move(copy));
      }
      return false;
    }
    if (out.objects.empty()) {
      diags.add("", "plugin " + name, "wrote no objects on stdout" + stderr_note,
                "a plugin must write the whole seed back on stdout, annotated");
      return false;
    }
    for (Object& o : out.objects) {
      auto it = origin.find(o.ref.key());
      if (it != origin.end()) o.source = it->second;
    }
    out.resource_list = seed.resource_list;
    seed = std::move(out);
  }
  return true;
}

}  // namespace planter
