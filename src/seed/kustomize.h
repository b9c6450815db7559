// Kustomize: a folder with a kustomization file is built, not read as objects. planter runs the
// tool people already have, `kustomize build DIR` or else `kubectl kustomize DIR` (found in PATH),
// as `kubectl apply -k` does with its built-in copy; it never downloads either. A kustomization's
// remote resources are off unless asked for (--allow-remote-bases).
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "model/result.h"

namespace planter {

// The folder's kustomization file (kustomization.yaml, kustomization.yml or Kustomization), if any.
std::optional<std::filesystem::path> kustomization_in(const std::filesystem::path& folder);

// The YAML stream the kustomization in `folder` builds, within kKustomizeTimeout. Without
// `allow_remote_bases` the tool runs without network (a sandbox, and a proxy that answers nothing
// where the kernel refuses the sandbox), so a remote resource fails the build. The error names the
// folder and the tool's own message, what to install when neither tool is in PATH, and the flag
// when remote resources are off.
inline constexpr std::chrono::seconds kKustomizeTimeout{120};
Result<std::string> kustomize_build(const std::filesystem::path& folder, bool allow_remote_bases);

}  // namespace planter
