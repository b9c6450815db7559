// Reading a whole file: seeds, kubeconfigs and the files they name, token files.
#pragma once

#include <string>

#include "model/result.h"

namespace planter {

// The file's bytes. The error reads "PATH: cannot read: REASON".
Result<std::string> read_file(const std::string& path);

}  // namespace planter
