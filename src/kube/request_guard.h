// What the transport checks of a request before it is sent (kube/transport.h): no header value or
// path that would split the request (a CR, LF or NUL in a name: "deployer\r\nImpersonate-Group:
// system:masters" would add a group nobody granted), and, for a read-only transport, no write
// that is not a dry run.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kube/http_message.h"

namespace planter::kube {

// The values a request's headers are made of.
struct RequestHeaders {
  std::string_view bearer_token, user;  // user: Impersonate-User ("" when none)
  const std::vector<std::string>* groups = nullptr;
  std::string_view accept, content_type, user_agent, path;
};

// Which of them holds a control character (RFC 9110 5.5; a space too, for the path), in words
// ("the bearer token", "Accept", ...); "" when none does. The values are never echoed.
std::string_view unsafe_part(const RequestHeaders& h);

// A GET or HEAD, or a request whose query says dryRun=All as kube-apiserver reads it (the first
// dryRun of the query; planter writes it without escapes).
bool reads_or_dry_runs(const HttpRequest& req);

}  // namespace planter::kube
