#include "model/files.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace planter {

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot read: " + std::strerror(errno)};
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Error{path + ": cannot read: " + std::strerror(errno)};
  return text;
}

}  // namespace planter
