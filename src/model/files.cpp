#include "model/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace planter {

namespace fs = std::filesystem;

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot read: " + std::strerror(errno)};
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Error{path + ": cannot read: " + std::strerror(errno)};
  return text;
}

std::optional<Error> write_private_file(const std::string& path, std::string_view content) {
  // mkstemp beside the target: a fresh name, created O_EXCL with mode 0600.
  std::string tmp = path + ".XXXXXX";
  std::vector<char> name(tmp.begin(), tmp.end());
  name.push_back('\0');
  int fd = ::mkstemp(name.data());
  if (fd < 0) return Error{path + ": cannot write: " + std::strerror(errno)};
  size_t done = 0;
  while (done < content.size()) {
    ssize_t w = ::write(fd, content.data() + done, content.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      int err = errno;
      ::close(fd);
      ::unlink(name.data());
      return Error{path + ": cannot write: " + std::strerror(err)};
    }
    done += static_cast<size_t>(w);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(name.data());
    return Error{path + ": cannot write: " + std::strerror(err)};
  }
  if (::rename(name.data(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(name.data());
    return Error{path + ": cannot write: " + std::strerror(err)};
  }
  return std::nullopt;
}

std::optional<Error> make_private_dir(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) return Error{path + ": cannot create the folder: " + ec.message()};
  if (::chmod(path.c_str(), 0700) != 0)
    return Error{path + ": cannot restrict the folder to its owner: " + std::strerror(errno)};
  return std::nullopt;
}

Result<std::string> make_private_temp_file(const std::string& prefix) {
  std::string pattern = (fs::temp_directory_path() / (prefix + "XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = ::mkstemp(name.data());
  if (fd < 0) return Error{pattern + ": cannot create: " + std::strerror(errno)};
  ::close(fd);
  return std::string(name.data());
}

}  // namespace planter
