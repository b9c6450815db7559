#include "kube/easy_request.h"

#include "kube/answer_buffers.h"

namespace planter::kube {

namespace {

// A body this small comes back in an answer that fits curl's own download buffer.
constexpr size_t kSmallBody = 4096;

}  // namespace

void set_method(CURL* easy, const HttpRequest& req, bool streaming) {
  const std::string& m = req.method;
  if (m == "GET") {
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
  } else if (m == "HEAD") {
    curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
  } else {
    curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, m.c_str());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, req.body.data());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
  }
  // An answer that may be large gets a buffer that holds it whole (kube/answer_buffers.h): every
  // read, and a write whose body is large (an object comes back about as large as it went). The
  // many small writes and the watches keep curl's 16 KiB: buffers this large for every request
  // cost 5,000 clusters 25 MiB more at the peak.
  if (!streaming && (m == "GET" || req.body.size() > kSmallBody)) {
    map_large_answer_buffers();
    curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, kLargeAnswerBuffer);
  }
}

void set_tls(CURL* easy, const RestConfig& config, const Credentials& creds) {
  if (!config.ca_pem.empty()) {
    curl_blob ca{const_cast<char*>(config.ca_pem.data()), config.ca_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(easy, CURLOPT_CAINFO_BLOB, &ca);
  }
  if (config.insecure_skip_tls_verify) {
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (!config.proxy_url.empty()) curl_easy_setopt(easy, CURLOPT_PROXY, config.proxy_url.c_str());
  if (!creds.client_certificate_pem.empty()) {
    curl_blob cert{const_cast<char*>(creds.client_certificate_pem.data()),
                   creds.client_certificate_pem.size(), CURL_BLOB_COPY};
    curl_blob key{const_cast<char*>(creds.client_key_pem.data()), creds.client_key_pem.size(),
                  CURL_BLOB_COPY};
    curl_easy_setopt(easy, CURLOPT_SSLCERT_BLOB, &cert);
    curl_easy_setopt(easy, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(easy, CURLOPT_SSLKEY_BLOB, &key);
    curl_easy_setopt(easy, CURLOPT_SSLKEYTYPE, "PEM");
  }
}

curl_slist* set_headers(CURL* easy, const HttpRequest& req, const Credentials& creds,
                        const std::string& impersonate_user,
                        const std::vector<std::string>& impersonate_groups) {
  curl_slist* h = nullptr;
  if (!creds.bearer_token.empty()) {
    h = curl_slist_append(h, ("Authorization: Bearer " + creds.bearer_token).c_str());
  } else if (!creds.username.empty()) {
    curl_easy_setopt(easy, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(easy, CURLOPT_USERNAME, creds.username.c_str());
    curl_easy_setopt(easy, CURLOPT_PASSWORD, creds.password.c_str());
  }
  h = curl_slist_append(h, ("Accept: " + req.accept).c_str());
  if (!req.content_type.empty())
    h = curl_slist_append(h, ("Content-Type: " + req.content_type).c_str());
  if (!impersonate_user.empty()) {
    h = curl_slist_append(h, ("Impersonate-User: " + impersonate_user).c_str());
    for (const std::string& g : impersonate_groups)
      h = curl_slist_append(h, ("Impersonate-Group: " + g).c_str());
  }
  h = curl_slist_append(h, "Expect:");  // no 100-continue round trip for bodies
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, h);
  return h;
}

}  // namespace planter::kube
