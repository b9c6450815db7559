// Kustomize: a folder with a kustomization file is built, not read as objects. planter runs the
// tool people already have, `kustomize build DIR` or else `kubectl kustomize DIR` (found in PATH),
// as `kubectl apply -k` does with its built-in copy; it never downloads either.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "model/result.h"

namespace planter {

// The folder's kustomization file (kustomization.yaml, kustomization.yml or Kustomization), if any.
std::optional<std::filesystem::path> kustomization_in(const std::filesystem::path& folder);

// The YAML stream the kustomization in `folder` builds. The error names the folder and the tool's
// own message, or what to install when neither tool is in PATH.
Result<std::string> kustomize_build(const std::filesystem::path& folder);

}  // namespace planter
