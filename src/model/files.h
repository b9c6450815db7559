// Reading a whole file (seeds, kubeconfigs and the files they name, token files), and writing
// files that hold credentials.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/result.h"

namespace planter {

// The file's bytes. The error reads "PATH: cannot read: REASON".
Result<std::string> read_file(const std::string& path);

// Writes `content` to `path` readable by its owner only (0600), replacing it whole: through a
// new file beside it (never an existing one, so a symlink planted there redirects nothing), then
// renamed over `path`. The error names the path.
std::optional<Error> write_private_file(const std::string& path, std::string_view content);

// Creates a folder only its owner can enter (0700), with its parents; an existing one is
// restricted to 0700. For folders that hold credentials.
std::optional<Error> make_private_dir(const std::string& path);

// A new file in the temporary folder, made with mkstemp (0600, a name no one could predict),
// that `prefix` begins: its path, or an error.
Result<std::string> make_private_temp_file(const std::string& prefix);

}  // namespace planter
