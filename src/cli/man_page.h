// `planter man`: the manual page planter(1), in roff, made from the command line's own definition
// (each command with its description and every flag with its values and description) and the
// facts every command shares (exit codes, environment, files), so it cannot drift from the binary.
// Read it with `planter man | man -l -`, or install it: `planter man >
// /usr/share/man/man1/planter.1`.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace planter::cli {

std::string man_page(CLI::App& app, const std::string& version);

}  // namespace planter::cli
