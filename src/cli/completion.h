// `planter completion bash|zsh|fish`: shell completion scripts made from the command line's own
// definition (commands, their flags, the values a flag takes when they are a fixed set), so they
// cannot drift from it. Loaded as kubectl's are: `source <(planter completion bash)`.
#pragma once

#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace planter::cli {

// The script for `shell` (bash, zsh or fish), completing `planter` and `kubectl-planter`.
std::string completion_script(CLI::App& app, std::string_view shell);

}  // namespace planter::cli
