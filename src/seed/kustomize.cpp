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

Result<std::string> kustomize_build(const fs::path& folder, bool allow_remote_bases) {
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
  spec.timeout = kKustomizeTimeout;
  if (!allow_remote_bases) {
    spec.sandbox = true;
    // Where the kernel refuses the sandbox's namespaces, its seccomp filter refuses sockets; and
    // should it refuse that too, every fetch (kustomize's HTTP, git's clones) still goes nowhere
    // but loopback: through a proxy on a port that is never open.
    for (const char* var : {"HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy", "ALL_PROXY"})
      spec.env.emplace_back(var, "http://127.0.0.1:9");
    spec.env.emplace_back("NO_PROXY", "");
    spec.env.emplace_back("no_proxy", "");
    spec.env.emplace_back("GIT_TERMINAL_PROMPT", "0");
  }
  auto run = run_process(spec);
  if (!run) return Error{fmt::format("cannot run {}: {}", spec.path, run.error().message)};
  if (!run->succeeded())
    return Error{fmt::format(
        "building its kustomization failed: `{} {}` {}: {}{}", spec.path, fmt::join(spec.args, " "),
        describe_exit(run.value(), spec), tail_lines(run->err, 10),
        allow_remote_bases ? ""
                           : "\n(remote resources, URLs and git repositories, are off: pass "
                             "--allow-remote-bases to fetch them)")};
  return std::move(run->out);
}

}  // namespace planter
