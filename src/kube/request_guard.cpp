#include "kube/request_guard.h"

namespace planter::kube {

namespace {

bool unsafe_value(std::string_view v) {
  for (char c : v) {
    auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) return true;
  }
  return false;
}

}  // namespace

std::string_view unsafe_part(const RequestHeaders& h) {
  if (unsafe_value(h.bearer_token)) return "the bearer token";
  if (unsafe_value(h.user)) return "the user to impersonate (Impersonate-User)";
  if (h.groups)
    for (const std::string& g : *h.groups)
      if (unsafe_value(g)) return "a group to impersonate (Impersonate-Group)";
  if (unsafe_value(h.accept)) return "Accept";
  if (unsafe_value(h.content_type)) return "Content-Type";
  if (unsafe_value(h.user_agent)) return "the user agent";
  if (unsafe_value(h.path) || h.path.find(' ') != std::string_view::npos) return "the request path";
  return {};
}

bool reads_or_dry_runs(const HttpRequest& req) {
  if (req.method == "GET" || req.method == "HEAD") return true;
  size_t q = req.path.find('?');
  if (q == std::string::npos) return false;
  std::string_view query = std::string_view(req.path).substr(q + 1);
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    if (pair.starts_with("dryRun=") || pair == "dryRun") return pair == "dryRun=All";
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return false;
}

}  // namespace planter::kube
