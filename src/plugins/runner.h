// Running plugins: executables that read the whole seed on stdin and write it back, annotated, on
// stdout.
//
// A plugin runs without a shell (posix_spawn of the path itself), in its own process group, with a
// timeout and a cap on its output; its stderr is kept for the error message. The format it gets is
// the seed's own: a KRM `config.kubernetes.io/v1 ResourceList` when the seed came as one, a plain
// multi-document stream otherwise; what it writes back may be either (see docs/plugins.md).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "model/diagnostics.h"
#include "model/process.h"
#include "model/result.h"
#include "seed/seed.h"

namespace planter {

struct PluginLimits {
  std::chrono::milliseconds timeout{30'000};
  size_t max_output_bytes = 256u << 20;
};

// The plugins of a --plugin-dir: its executable regular files, sorted by name.
Result<std::vector<std::string>> plugins_in_dir(const std::string& dir);

// Runs each plugin in order over the seed. On any failure, reports it (the plugin's name, what
// went wrong, the tail of its stderr) and returns false; `seed` is then unspecified.
// Objects the plugin returns keep their original file:line when their identity is unchanged.
bool run_plugins(const std::vector<std::string>& plugins, Seed& seed, const PluginLimits& limits,
                 Diagnostics& diags);

}  // namespace planter
