// What one request sets on its curl easy handle: its method and body, its download buffer, the
// cluster's TLS, the caller's credentials and the request's headers. The transport
// (transport.cpp) adds its own callbacks and timeouts, and owns the handle.
#pragma once

#include <curl/curl.h>

#include <string>
#include <vector>

#include "kube/credentials.h"
#include "kube/http_message.h"
#include "kube/kubeconfig.h"

namespace planter::kube {

// The method, the body (which must outlive the transfer), and, for a request whose answer may
// be large, a download buffer that holds it whole.
void set_method(CURL* easy, const HttpRequest& req, bool streaming);

// The cluster's CA and TLS checks, its proxy, and the client certificate of `creds`.
void set_tls(CURL* easy, const RestConfig& config, const Credentials& creds);

// The request's headers (authorization, Accept, Content-Type, impersonation), set on `easy`;
// the list is the caller's to free (curl_slist_free_all) once the transfer is done.
curl_slist* set_headers(CURL* easy, const HttpRequest& req, const Credentials& creds,
                        const std::string& impersonate_user,
                        const std::vector<std::string>& impersonate_groups);

}  // namespace planter::kube
