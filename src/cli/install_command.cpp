// `planter install`: the operator's manifests from deploy/ (compiled in), printed, or planted
// into the current context with planter's own engine.
#include <fmt/format.h>
#include <unistd.h>

#include <string_view>
#include <vector>

#include "cli/manifests.h"
#include "cli/operator_command.h"
#include "cli/seed_flags.h"
#include "kube/kubeconfig.h"
#include "operator/seed_resource.h"
#include "plant/engine.h"
#include "plant/progress.h"
#include "plant/report.h"

namespace planter::cli {

std::string install_manifests(const std::string& image, bool scheduler) {
  std::string out;
  std::vector<std::string_view> all(operator_manifests().begin(), operator_manifests().end());
  if (scheduler) all.insert(all.end(), scheduler_manifests().begin(), scheduler_manifests().end());
  for (std::string_view m : all) {
    std::string text(m);
    if (!image.empty()) {
      size_t at = text.find("image: ");
      if (at != std::string::npos) {
        size_t end = text.find('\n', at);
        text.replace(at, end - at, "image: " + image);
      }
    }
    if (!out.empty()) out += "---\n";
    out += text;
    if (!out.ends_with("\n")) out += "\n";
  }
  return out;
}

CLI::App* add_install_command(CLI::App& app, InstallFlags& f) {
  CLI::App* cmd = app.add_subcommand(
      "install",
      "Print the operator's manifests (Namespace, CRDs, RBAC, Deployment, Service), or plant "
      "them into the current context with --apply");
  cmd->add_flag("--apply", f.apply, "Plant the manifests instead of printing them");
  cmd->add_option("--kubeconfig", f.kubeconfig,
                  "Kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)");
  cmd->add_option("--context", f.context, "Kubeconfig context (default: the current one)");
  cmd->add_option("--image", f.image, "The operator's image (default: the released one)");
  cmd->add_flag("--scheduler", f.scheduler,
                "Also planter's second scheduler: the PodGroup CRD, its RBAC and Deployment "
                "(kube-system)");
  cmd->add_option("--timeout", f.timeout_s, "Seconds to wait with --apply")->capture_default_str();
  cmd->footer(
      "Examples:\n"
      "  planter install | kubectl apply -f -\n"
      "  planter install --apply --context mgmt\n"
      "  planter install --scheduler | kubectl apply -f -\n"
      "  kubectl apply -k deploy/        # the same, from a checkout");
  return cmd;
}

int run_install(const InstallFlags& f) {
  std::string manifests = install_manifests(f.image, f.scheduler);
  if (!f.apply) {
    fmt::print("{}", manifests);
    return kExitOk;
  }
  auto planned =
      op::plan_seed_text(op::SeedText::one(manifests, "planter install"), "planter-system", {});
  if (!planned) {
    fmt::print(stderr, "error: {}\n", planned.error().message);
    return kExitBadInput;
  }
  auto config = kube::Kubeconfig::load(kube::KubeconfigSources::from_environment(f.kubeconfig));
  if (!config) {
    fmt::print(stderr, "error: {}\nnothing was declared\n", config.error().message);
    return kExitBadInput;
  }
  auto self = config->rest_config(f.context);
  if (!self) {
    fmt::print(stderr, "error: {}\nnothing was declared\n", self.error().message);
    return kExitBadInput;
  }
  const Plan& plan = planned->plan;
  plant::ProgressOptions po;
  po.terminal = isatty(STDOUT_FILENO) != 0;
  po.seed_name = "planter-install";
  plant::Progress progress(plan, stdout, po);
  plant::EngineOptions options;
  options.seed_name = "planter-install";
  options.force_conflicts = true;  // the installer owns its manifests, whoever applied them before
  options.client.transport.qps = 0;
  options.timeout = std::chrono::milliseconds(static_cast<int64_t>(f.timeout_s * 1000));
  options.on_change = [&](size_t u, const plant::UnitRecord& r) { progress.on_change(u, r); };
  plant::PlantOutcome out = plant::plant(plan, {{std::string(kSelf), *self}}, options);
  progress.finish();
  fmt::print("\n{}", plant::render_summary(plan, out));
  return out.all_declared() ? kExitOk : kExitFailure;
}

}  // namespace planter::cli
