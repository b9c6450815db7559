#include "plan/set_aside.h"

#include <fmt/format.h>

#include <optional>

#include "plan/hooks.h"

namespace planter {

namespace {

// Why `o` is never declared, by the conventions in force; nothing when it is declared.
std::optional<SetAside> never_declared(const Object& o, const Conventions& c, Diagnostics& diags) {
  auto aside = [&o](std::string_view convention, std::string why) {
    return SetAside{o.ref, o.source, convention, std::move(why)};
  };
  if (c.kpt && o.ref.kind == "Kptfile" && o.ref.group() == "kpt.dev") {
    if (const boost::json::value* p = o.body.if_contains("pipeline"); p && !p->is_null())
      diags.warn(o.where(), o.display(),
                 "the package's pipeline is not run by planter; run `kpt fn render` on the "
                 "package first if its functions should change it");
    return aside("kpt", "a kpt package's Kptfile describes the package; kpt never applies it");
  }
  // Every other convention is an annotation: most objects have none.
  if (!has_tool_annotations(o.annotations())) return std::nullopt;
  if (c.kpt)
    if (const auto* local = o.annotation(kLocalConfigAnnotation); local && *local == "true")
      return aside("kpt", fmt::format("{}: \"true\": configuration for functions, never applied",
                                      kLocalConfigAnnotation));
  if (c.argocd) {
    auto argo = read_argo_sync(o);
    if (!argo) {
      diags.add(o.where(), o.display(), argo.error().message,
                "write an integer wave (argocd.argoproj.io/sync-wave: \"-1\") and one of Argo CD's "
                "hooks");
      return std::nullopt;
    }
    if (argo->annotated && argo->phase == InstallPhase::kNever)
      return aside("argocd", argo->never_why);
  }
  if (c.helm) {
    auto helm = read_helm_hook(o);
    if (!helm) {
      diags.add(o.where(), o.display(), helm.error().message,
                "write an integer weight, e.g. helm.sh/hook-weight: \"-5\"");
      return std::nullopt;
    }
    if (helm->hook && helm->phase == InstallPhase::kNever) return aside("helm", helm->never_why);
  }
  return std::nullopt;
}

}  // namespace

std::vector<SetAside> set_aside(std::vector<Object>& objects, const Conventions& conventions,
                                Diagnostics& diags) {
  std::vector<SetAside> out;
  size_t kept = 0;
  for (size_t i = 0; i < objects.size(); ++i) {
    if (auto aside = never_declared(objects[i], conventions, diags)) {
      aside->body = std::move(objects[i].body);
      out.push_back(std::move(*aside));
      continue;
    }
    if (kept != i) objects[kept] = std::move(objects[i]);
    ++kept;
  }
  objects.resize(kept);
  return out;
}

}  // namespace planter
