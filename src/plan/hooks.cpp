#include "plan/hooks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "model/strings.h"

namespace planter {

namespace {

std::optional<int> integer(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

Result<int> weight_of(const Object& o, std::string_view key) {
  const auto* text = o.annotation(key);
  if (!text) return 0;
  auto v = integer(*text);
  if (!v) return Error{fmt::format("{}: \"{}\" is not an integer", key, std::string_view(*text))};
  return *v;
}

}  // namespace

bool has_tool_annotations(const boost::json::object* annotations) {
  if (!annotations) return false;
  for (const auto& kv : *annotations) {
    std::string_view key = kv.key();
    if (key.starts_with("helm.sh/") || key.starts_with("argocd.argoproj.io/") ||
        key.starts_with("config.kubernetes.io/"))
      return true;
  }
  return false;
}

Result<HelmHook> read_helm_hook(const Object& o) {
  HelmHook h;
  const auto* events = o.annotation(kHelmHookAnnotation);
  if (!events) return h;
  h.hook = true;
  auto weight = weight_of(o, kHelmHookWeightAnnotation);
  if (!weight) return weight.error();
  h.weight = weight.value();
  static constexpr std::string_view kKnown[] = {
      "pre-install",  "post-install", "pre-delete",    "post-delete", "pre-upgrade",
      "post-upgrade", "pre-rollback", "post-rollback", "test",        "test-success"};
  bool before = false, after = false;
  std::vector<std::string> others;
  for (std::string_view item : split_list(*events)) {
    std::string e = lower(item);
    h.events.push_back(e);
    if (std::find(std::begin(kKnown), std::end(kKnown), e) == std::end(kKnown)) {
      h.phase = InstallPhase::kNever;
      h.never_why = fmt::format("Helm skips a hook with the unknown event \"{}\"", item);
      return h;
    }
    before = before || e == "pre-install";
    after = after || e == "post-install";
    if (e != "pre-install" && e != "post-install") others.push_back(e);
  }
  if (before) {
    h.phase = InstallPhase::kBefore;
  } else if (after) {
    h.phase = InstallPhase::kAfter;
  } else {
    h.phase = InstallPhase::kNever;
    std::vector<std::string_view> commands;
    for (const std::string& e : others) {
      std::string_view c = e.starts_with("test")     ? "`helm test`"
                           : e.ends_with("-delete")  ? "`helm uninstall`"
                           : e.ends_with("-upgrade") ? "`helm upgrade`"
                                                     : "`helm rollback`";
      if (std::find(commands.begin(), commands.end(), c) == commands.end()) commands.push_back(c);
    }
    h.never_why = fmt::format("a Helm {} hook runs on {}, not on install", fmt::join(others, ","),
                              fmt::join(commands, " and "));
  }
  return h;
}

Result<ArgoSync> read_argo_sync(const Object& o) {
  ArgoSync a;
  const auto* hook = o.annotation(kArgoHookAnnotation);
  const auto* wave = o.annotation(kArgoSyncWaveAnnotation);
  a.annotated = hook || wave;
  if (wave) {
    auto v = integer(*wave);
    if (!v)
      return Error{fmt::format("{}: \"{}\" is not an integer", kArgoSyncWaveAnnotation,
                               std::string_view(*wave))};
    a.wave = *v;
  }
  if (hook) {
    bool pre = false, sync = false, post = false, skip = false;
    std::vector<std::string_view> others;
    for (std::string_view item : split_list(*hook)) {
      if (item == "PreSync")
        pre = true;
      else if (item == "Sync")
        sync = true;
      else if (item == "PostSync")
        post = true;
      else if (item == "Skip")
        skip = true;
      else if (item == "SyncFail" || item == "PostDelete")
        others.push_back(item);
      else
        return Error{
            fmt::format("{}: unknown hook \"{}\"; Argo CD knows PreSync, Sync, PostSync, SyncFail, "
                        "PostDelete and Skip",
                        kArgoHookAnnotation, item)};
    }
    if (skip) {
      a.phase = InstallPhase::kNever;
      a.never_why = "Argo CD skips an object whose hook is Skip";
    } else if (pre) {
      a.phase = InstallPhase::kBefore;
    } else if (sync) {
      a.phase = InstallPhase::kWith;
    } else if (post) {
      a.phase = InstallPhase::kAfter;
    } else {
      a.phase = InstallPhase::kNever;
      bool fail = std::find(others.begin(), others.end(), "SyncFail") != others.end();
      a.never_why = fail ? "an Argo CD SyncFail hook runs only when a sync fails"
                         : "an Argo CD PostDelete hook runs only when the application is deleted";
    }
    return a;
  }
  // No Argo CD hook: a Helm hook counts as Argo CD maps it.
  auto helm = read_helm_hook(o);
  if (!helm || !helm->hook) return a;  // a malformed Helm hook is Helm's to report
  if (!wave) a.wave = helm->weight;
  bool pre = false, post = false;
  for (const std::string& e : helm->events) {
    pre = pre || e == "pre-install" || e == "pre-upgrade";
    post = post || e == "post-install" || e == "post-upgrade";
  }
  a.phase = pre ? InstallPhase::kBefore : post ? InstallPhase::kAfter : InstallPhase::kNever;
  if (a.phase == InstallPhase::kNever) a.never_why = helm->never_why;
  return a;
}

}  // namespace planter
