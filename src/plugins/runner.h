// Running plugins: executables that read the whole seed on stdin and write it back, annotated, on
// stdout.
//
// A plugin runs as kpt runs KRM functions: a function of the seed. Without a shell, with a timeout
// and a cap on its output, its stderr kept for the error message; in a sandbox (model/sandbox.h:
// no network, and every process it starts ends with it) unless PluginLimits::network names it;
// with only the environment variables of kKeptEnvironment (model/process.h). The format it gets is
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
  // Plugins (by file name or by path) that may use the network (--plugin-network); the others run
  // in a network namespace of their own.
  std::vector<std::string> network;
};

// The plugins of a --plugin-dir: its executable regular files, sorted by name.
Result<std::vector<std::string>> plugins_in_dir(const std::string& dir);

// Runs each plugin in order over the seed. On any failure, reports it (the plugin's name, what
// went wrong, the tail of its stderr) and returns false; `seed` is then unspecified.
// Objects the plugin returns keep their original file:line when their identity is unchanged.
bool run_plugins(const std::vector<std::string>& plugins, Seed& seed, const PluginLimits& limits,
                 Diagnostics& diags);

}  // namespace planter
