#include "kube/server_url.h"

#include <fmt/format.h>

#include <string_view>

#include "model/strings.h"

namespace planter::kube {

Result<ServerUrl> parse_server(const std::string& server) {
  ServerUrl u;
  size_t sep = server.find("://");
  if (sep == std::string::npos)
    return Error{fmt::format("server \"{}\" is not a URL (expected https://HOST:PORT)", server)};
  u.scheme = ascii_lower(server.substr(0, sep));
  if (u.scheme != "https" && u.scheme != "http")
    return Error{fmt::format("server \"{}\": scheme must be https or http", server)};
  std::string_view rest = std::string_view(server).substr(sep + 3);
  size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (size_t at = authority.rfind('@'); at != std::string_view::npos)
    authority.remove_prefix(at + 1);  // userinfo in a server URL is not used
  u.prefix = slash == std::string_view::npos ? "" : std::string(rest.substr(slash));
  while (!u.prefix.empty() && u.prefix.back() == '/') u.prefix.pop_back();
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos)
      return Error{fmt::format("server \"{}\": bad IPv6 host", server)};
    u.host = std::string(authority.substr(0, close + 1));
    if (close + 1 < authority.size() && authority[close + 1] == ':')
      u.port = std::string(authority.substr(close + 2));
  } else {
    size_t colon = authority.rfind(':');
    u.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) u.port = std::string(authority.substr(colon + 1));
  }
  if (u.host.empty()) return Error{fmt::format("server \"{}\" has no host", server)};
  if (u.port.empty()) u.port = u.scheme == "https" ? "443" : "80";
  return u;
}

}  // namespace planter::kube
