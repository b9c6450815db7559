// libcurl stays inside this file: nothing else in the seed module needs its headers.
#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <memory>

#include "seed/seed.h"

namespace planter {

namespace {

struct Sink {
  std::string body;
  size_t max_bytes;
};

// libcurl's progress callback (at least once a second): non-zero aborts the transfer.
int cancelled(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* cancel = static_cast<const std::atomic<bool>*>(user);
  return cancel && cancel->load() ? 1 : 0;
}

size_t append(char* data, size_t size, size_t n, void* user) {
  auto* out = static_cast<Sink*>(user);
  if (out->body.size() + size * n > out->max_bytes) return 0;  // aborts the transfer
  out->body.append(data, size * n);
  return size * n;
}

struct EasyDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};

}  // namespace

Result<std::string> fetch_url(const std::string& url, const FetchLimits& limits) {
  std::unique_ptr<CURL, EasyDeleter> curl(curl_easy_init());
  if (!curl) return Error{fmt::format("{}: cannot initialise libcurl", url)};
  Sink sink{{}, limits.max_bytes};
  char errbuf[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_PROTOCOLS_STR, limits.protocols.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_REDIR_PROTOCOLS_STR, limits.protocols.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::min<int64_t>(limits.timeout.count(), 10'000)));
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, static_cast<long>(limits.timeout.count()));
  if (!limits.ca_file.empty()) curl_easy_setopt(curl.get(), CURLOPT_CAINFO, limits.ca_file.c_str());
  if (limits.cancel) {
    curl_easy_setopt(curl.get(), CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl.get(), CURLOPT_XFERINFOFUNCTION, cancelled);
    curl_easy_setopt(curl.get(), CURLOPT_XFERINFODATA, limits.cancel);
  }
  curl_easy_setopt(curl.get(), CURLOPT_USERAGENT, "planter/0.1");
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, errbuf);
  CURLcode rc = curl_easy_perform(curl.get());
  if (rc != CURLE_OK) {
    if (rc == CURLE_UNSUPPORTED_PROTOCOL)
      return Error{fmt::format("{}: only {} URLs are allowed ({})", url, limits.protocols,
                               errbuf[0] ? errbuf : curl_easy_strerror(rc))};
    if (rc == CURLE_WRITE_ERROR)
      return Error{fmt::format("{}: larger than {} bytes", url, limits.max_bytes)};
    if (rc == CURLE_ABORTED_BY_CALLBACK) return Error{fmt::format("{}: cancelled", url)};
    if (rc == CURLE_OPERATION_TIMEDOUT)
      return Error{fmt::format("{}: not read within {} ms ({})", url, limits.timeout.count(),
                               errbuf[0] ? errbuf : curl_easy_strerror(rc))};
    return Error{fmt::format("{}: {}", url, errbuf[0] ? errbuf : curl_easy_strerror(rc))};
  }
  long status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  if (status >= 400) return Error{fmt::format("{}: HTTP {}", url, status)};
  return std::move(sink.body);
}

}  // namespace planter
