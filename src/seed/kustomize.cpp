#include "seed/kustomize.h"

#include <fmt/format.h>

#include "model/process.h"

namespace planter {

namespace fs = std::filesystem;

std::optional<fs::path> kustomization_in(const fs::path& folder) {
  for (const char* name : {"kustomization.yaml", "kustomization.yml", "Kustomization"}) {
    std::error_code ec;
    fs::path p = folder / name;
    if (fs::is_regular_file(p, ec)) return p;
  }
  return std::nullopt;
}

Result<std::string> kustomize_build(const fs::path& folder) {
  ProcessSpec spec;
  if (find_executable("kustomize")) {
    spec.path = "kustomize";
    spec.args = {"build", folder.string()};
  } else if (find_executable("kubectl")) {
    spec.path = "kubectl";
    spec.args = {"kustomize", folder.string()};
  } else {
    return Error{fmt::format(
        "the folder holds a kustomization, and neither kustomize nor kubectl is in PATH to "
        "build it; install kubectl (it builds kustomizations with `kubectl kustomize`) or "
        "kustomize, or build it yourself: kustomize build {} | planter plan -",
        folder.string())};
  }
  spec.timeout = std::chrono::seconds(120);
  auto run = run_process(spec);
  if (!run) return Error{fmt::format("cannot run {}: {}", spec.path, run.error().message)};
  if (!run->succeeded())
    return Error{fmt::format("building its kustomization failed: `{} {}` {}: {}", spec.path,
                             fmt::join(spec.args, " "), describe_exit(run.value(), spec),
                             tail_lines(run->err, 10))};
  return std::move(run->out);
}

}  // namespace planter
