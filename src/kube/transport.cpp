#include "kube/transport.h"

#include <curl/curl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <unordered_map>

#include "kube/credentials.h"
#include "kube/easy_request.h"
#include "kube/rate_limiter.h"
#include "kube/request_guard.h"
#include "kube/server_url.h"
#include "kube/transport_worker.h"
#include "model/jitter_seed.h"
#include "model/strings.h"

#ifndef PLANTER_VERSION
#define PLANTER_VERSION "0.0.0"
#endif

namespace planter::kube {

namespace {

using SteadyClock = std::chrono::steady_clock;

struct Call {
  uint64_t id = 0;
  HttpRequest req;
  Transport::Done done;
  Transport::Data on_data;
  bool streaming = false;
  int attempts = 0;
  bool refreshed_auth = false;
  bool cancelled = false;
  bool stopped_by_caller = false;
  CURL* easy = nullptr;
  Transport::Impl* transport = nullptr;  // whose transfer it is (its worker drives many)
  curl_slist* headers = nullptr;
  HttpResponse resp;
  std::string retry_after;
  char error[CURL_ERROR_SIZE] = {0};
  long os_errno = 0;         // the system's errno of a failed connect (EMFILE: out of descriptors)
  Credentials creds;         // kept alive while curl may read them
  bool warming = false;      // sent before the server was known to answer
  bool* answered = nullptr;  // the transport's connection_known, set on a status line
};

// Said once per process, at once: requests that fail for lack of descriptors are retried like a
// refused connection, and watches resume, so the cause would otherwise stay hidden until a
// timeout lists what waits.
void warn_out_of_descriptors(const std::string& server) {
  static std::atomic<bool> said{false};
  if (said.exchange(true)) return;
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  std::fputs(fmt::format("planter: out of file descriptors: this process may open {} and has; "
                         "connections (to {} first) fail until some close. Raise the limit "
                         "(ulimit -n, or LimitNOFILE for a service) or plant fewer clusters at "
                         "once.\n",
                         static_cast<unsigned long long>(limit.rlim_cur), server)
                 .c_str(),
             stderr);
}

void ensure_curl_global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

struct Transport::Impl {
  RestConfig config;
  TransportOptions options;
  ServerUrl url;
  std::string base;                       // scheme://host:port+prefix as curl is given it
  curl_slist* connect_to_list = nullptr;  // tls-server-name: connect to the real host
  CredentialSource credentials;
  Worker* worker = nullptr;            // the thread (and multi handle) that drives this transport
  std::unique_ptr<Worker> own_worker;  // with exec credentials: a worker of its own
  CURLM* multi = nullptr;              // the worker's
  std::thread::id thread_id;
  // Set by anyone who gives the transport something to do (and by finish()): the worker steps
  // it on its next round. `next_due` is when its earliest retry, timer or limiter wake-up is.
  std::atomic<bool> dirty{true};
  SteadyClock::time_point next_due = SteadyClock::time_point::max();

  std::mutex mu;  // guards the inbox
  std::vector<std::shared_ptr<Call>> inbox;
  std::vector<uint64_t> cancels;
  std::vector<std::pair<std::chrono::milliseconds, std::function<void()>>> posted;
  std::atomic<uint64_t> next_id{1};

  // Owned by the transport thread.
  std::deque<std::shared_ptr<Call>> ready;
  std::multimap<SteadyClock::time_point, std::shared_ptr<Call>> waiting;  // retries
  std::unordered_map<CURL*, std::shared_ptr<Call>> active;
  std::unordered_map<uint64_t, std::shared_ptr<Call>> streams;
  std::multimap<SteadyClock::time_point, std::function<void()>> timers;
  int in_flight = 0;
  int* worker_in_flight = nullptr;  // the worker's count of requests in flight, all transports
  bool held_by_worker = false;      // ready requests wait for that count to drop
  // Until a server's first status line arrives, only one request goes out. libcurl (7.88) parks
  // the others with PIPEWAIT until it knows whether the new connection multiplexes, and does not
  // wake them when it learns: they would wait for the next poll timeout (a second). Reset when a
  // connection fails, as the next one is new again.
  bool connection_known = false;
  int warming = 0;
  RateLimiter limiter;
  SteadyClock::time_point limiter_wake{};
  std::minstd_rand rng = jitter_generator();

  std::atomic<uint64_t> n_requests{0}, n_retries{0}, n_connections{0}, n_h2{0}, n_h1{0};
  std::atomic<bool> abandoned{false};  // abandon_requests(): every call ends at once

  Impl(RestConfig c, TransportOptions o)
      : config(c),
        options(std::move(o)),
        credentials(std::move(c)),
        limiter(options.qps, options.burst) {}

  // Any thread: Transport::jitter's callers include a watch started from the caller's thread
  // when the kind's mapping is cached.
  std::mutex rng_mu;
  uint64_t random() {
    std::lock_guard lock(rng_mu);
    return options.random ? options.random() : rng();
  }

  void wake();

  // One round of this transport on its worker's thread: take what was sent, cancelled and posted,
  // run due timers, start what the limiter and the in-flight bound allow. Sets next_due; returns
  // true when more could start at once.
  bool step(SteadyClock::time_point now);
  // On the worker's thread, when the transport goes: its transfers leave the multi handle and
  // their callbacks are dropped uncalled.
  void detach();
  void start(const std::shared_ptr<Call>& call);
  void finish(CURL* easy, CURLcode result);
  void complete(const std::shared_ptr<Call>& call, ApiResult<HttpResponse> result);
  std::optional<ApiError> unsafe_request(const Call& call, const Credentials& c) const;
  // Whom requests impersonate: the options' user and groups, else the kubeconfig's `as`.
  std::pair<const std::string&, const std::vector<std::string>&> impersonation() const {
    if (!options.impersonate_user.empty())
      return {options.impersonate_user, options.impersonate_groups};
    return {config.auth.impersonate, config.auth.impersonate_groups};
  }
  void retry_later(const std::shared_ptr<Call>& call, std::chrono::milliseconds delay);
  // Ends every call (in curl, ready, waiting to retry) with "Cancelled": abandon_requests().
  void end_all();
  void release(Call& call);
  ApiError transport_error(const Call& call, CURLcode code) const;

  static size_t on_write(char* data, size_t size, size_t n, void* user);
  static size_t on_header(char* data, size_t size, size_t n, void* user);
  static curl_socket_t open_socket(void* user, curlsocktype purpose, curl_sockaddr* address);
};

size_t Transport::Impl::on_write(char* data, size_t size, size_t n, void* user) {
  auto* call = static_cast<Call*>(user);
  size_t len = size * n;
  if (call->streaming) {
    long code = 0;
    curl_easy_getinfo(call->easy, CURLINFO_RESPONSE_CODE, &code);
    if (code >= 200 && code < 300) {
      if (call->cancelled) return 0;
      if (!call->on_data(std::string_view(data, len))) {
        call->stopped_by_caller = true;
        return 0;  // curl ends the transfer
      }
      return len;
    }
  }
  call->resp.body.append(data, len);
  return len;
}

// curl's own socket(), but the errno of a failure is kept on the call: curl (7.88) drops it, and
// a process out of descriptors would look like a refused connection.
curl_socket_t Transport::Impl::open_socket(void* user, curlsocktype /*purpose*/,
                                           curl_sockaddr* address) {
  curl_socket_t fd = ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
  if (fd == CURL_SOCKET_BAD) static_cast<Call*>(user)->os_errno = errno;
  return fd;
}

size_t Transport::Impl::on_header(char* data, size_t size, size_t n, void* user) {
  auto* call = static_cast<Call*>(user);
  std::string_view line(data, size * n);
  if (line.starts_with("HTTP/")) {  // a new response (after a 100 Continue, say)
    if (call->answered) *call->answered = true;
    call->retry_after.clear();
    call->resp.warnings.clear();
    call->resp.content_type.clear();
    return size * n;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return size * n;
  std::string name = ascii_lower(line.substr(0, colon));
  std::string_view value = trim(line.substr(colon + 1));
  if (name == "retry-after")
    call->retry_after = std::string(value);
  else if (name == "content-type")
    call->resp.content_type = std::string(value);
  else if (name == "warning")
    call->resp.warnings.emplace_back(value);
  return size * n;
}

void Transport::Impl::release(Call& call) {
  if (call.easy) {
    curl_multi_remove_handle(multi, call.easy);
    curl_easy_cleanup(call.easy);
    call.easy = nullptr;
  }
  if (call.headers) {
    curl_slist_free_all(call.headers);
    call.headers = nullptr;
  }
}

void Transport::Impl::complete(const std::shared_ptr<Call>& call, ApiResult<HttpResponse> result) {
  if (call->warming) {  // it never reached curl (no credentials, say)
    call->warming = false;
    --warming;
  }
  if (call->streaming) streams.erase(call->id);
  Done done = std::move(call->done);
  call->on_data = nullptr;
  if (done) done(std::move(result));
}

ApiError Transport::Impl::transport_error(const Call& call, CURLcode code) const {
  std::string what = call.error[0] ? std::string(call.error) : curl_easy_strerror(code);
  // The path only: the query may be long, and neither carries credentials.
  std::string path = call.req.path.substr(0, call.req.path.find('?'));
  // A certificate that does not verify or a URL that is not one will not get better by retrying.
  std::string_view reason = "Transport";
  if (code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CACERT_BADFILE ||
      code == CURLE_SSL_CERTPROBLEM || code == CURLE_SSL_ISSUER_ERROR)
    reason = "TLS";
  else if (code == CURLE_URL_MALFORMAT || code == CURLE_UNSUPPORTED_PROTOCOL)
    reason = "BadURL";
  if (call.os_errno == EMFILE || call.os_errno == ENFILE) {
    // Out of descriptors: retrying will not help until some close; say what to change.
    rlimit limit{};
    ::getrlimit(RLIMIT_NOFILE, &limit);
    what += fmt::format(
        " (out of file descriptors: this process may open {}; raise the limit, e.g. ulimit -n, "
        "or plant fewer clusters at once)",
        static_cast<unsigned long long>(limit.rlim_cur));
  }
  ApiError e =
      client_error(reason, fmt::format("{} {}{}: {}", call.req.method, config.server, path, what));
  e.attempts = call.attempts;
  return e;
}

// Refuses a request whose headers or path would not reach the server as written, and a write
// from a read-only transport (kube/request_guard.h).
std::optional<ApiError> Transport::Impl::unsafe_request(const Call& call,
                                                        const Credentials& c) const {
  auto [user, groups] = impersonation();
  std::string_view bad = unsafe_part({c.bearer_token, user, &groups, call.req.accept,
                                      call.req.content_type, options.user_agent, call.req.path});
  std::string what;
  if (!bad.empty())
    what = fmt::format(
        "{} holds a control character (CR, LF or NUL would split the request); "
        "fix the name it was made from",
        bad);
  else if (options.read_only && !reads_or_dry_runs(call.req))
    what =
        "this client only reads and dry-runs (a write without dryRun=All from a read-only "
        "step is a bug)";
  if (what.empty()) return std::nullopt;
  ApiError e = client_error(
      bad.empty() ? "ReadOnly" : "BadHeader",
      fmt::format("{} {}{}: not sent: {}", call.req.method, config.server,
                  // a bad path is never echoed
                  bad.empty() ? call.req.path.substr(0, call.req.path.find('?')) : std::string(),
                  what));
  e.attempts = call.attempts;
  return e;
}

void Transport::Impl::retry_later(const std::shared_ptr<Call>& call,
                                  std::chrono::milliseconds delay) {
  ++n_retries;
  call->resp = HttpResponse{};
  call->retry_after.clear();
  call->error[0] = 0;
  call->os_errno = 0;
  waiting.emplace(SteadyClock::now() + delay, call);
}

void Transport::Impl::start(const std::shared_ptr<Call>& call) {
  auto creds = credentials.get();
  if (!creds) {
    ApiError e = creds.error();
    e.attempts = call->attempts;
    return complete(call, std::move(e));
  }
  if (auto refused = unsafe_request(*call, creds.value()))
    return complete(call, std::move(*refused));
  ++call->attempts;
  ++n_requests;
  call->creds = std::move(creds.value());
  CURL* easy = curl_easy_init();
  call->easy = easy;
  call->transport = this;
  std::string target = base + call->req.path;
  curl_easy_setopt(easy, CURLOPT_URL, target.c_str());
  curl_easy_setopt(easy, CURLOPT_PRIVATE, call.get());
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, call->error);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &Impl::on_write);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, call.get());
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &Impl::on_header);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, call.get());
  curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, &Impl::open_socket);
  curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, call.get());
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(options.connect_timeout.count()));
  if (!call->streaming)
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(options.timeout.count()));
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(easy, CURLOPT_HTTP_VERSION,
                   options.http2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1);
  if (options.http2) curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
  curl_easy_setopt(easy, CURLOPT_USERAGENT, options.user_agent.c_str());
  curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
  set_tls(easy, config, call->creds);
  auto [user, groups] = impersonation();
  call->headers = set_headers(easy, call->req, call->creds, user, groups);
  set_method(easy, call->req, call->streaming);
  if (connect_to_list) curl_easy_setopt(easy, CURLOPT_CONNECT_TO, connect_to_list);
  if (!call->streaming) {
    ++in_flight;
    ++*worker_in_flight;
  }
  active.emplace(easy, call);
  curl_multi_add_handle(multi, easy);
}

void Transport::Impl::finish(CURL* easy, CURLcode result) {
  auto it = active.find(easy);
  if (it == active.end()) return;
  std::shared_ptr<Call> call = it->second;
  active.erase(it);
  if (!call->streaming) {
    --in_flight;
    --*worker_in_flight;
  }
  if (call->warming) {
    call->warming = false;
    --warming;
  }
  long code = 0;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &code);
  long version = 0;
  curl_easy_getinfo(easy, CURLINFO_HTTP_VERSION, &version);
  long connects = 0;
  curl_easy_getinfo(easy, CURLINFO_NUM_CONNECTS, &connects);
  // curl (7.88) keeps no errno when socket() itself fails, so open_socket kept it.
  if (call->os_errno == 0) curl_easy_getinfo(easy, CURLINFO_OS_ERRNO, &call->os_errno);
  if (call->os_errno == EMFILE || call->os_errno == ENFILE) warn_out_of_descriptors(config.server);
  n_connections += static_cast<uint64_t>(connects);
  if (code > 0) (version == CURL_HTTP_VERSION_2_0 ? n_h2 : n_h1)++;
  call->resp.status = static_cast<int>(code);
  call->resp.attempts = call->attempts;
  curl_off_t micros = 0;
  curl_easy_getinfo(easy, call->streaming ? CURLINFO_STARTTRANSFER_TIME_T : CURLINFO_TOTAL_TIME_T,
                    &micros);
  call->resp.on_wire = std::chrono::microseconds(micros);
  if (options.observe && !call->cancelled) {
    options.observe(options.name, call->streaming ? "WATCH" : call->req.method,
                    static_cast<int>(code), static_cast<double>(micros) / 1e6);
  }
  CURLcode curl_result = result;
  release(*call);

  if (call->cancelled) return complete(call, client_error("Cancelled", "cancelled"));
  if (call->streaming && call->stopped_by_caller) return complete(call, std::move(call->resp));

  if (curl_result != CURLE_OK &&
      !(call->streaming && code >= 200 && code < 300 && curl_result == CURLE_PARTIAL_FILE)) {
    if (code == 0) connection_known = false;
    if (call->streaming) return complete(call, transport_error(*call, curl_result));
    bool nothing_sent = curl_result == CURLE_COULDNT_CONNECT;
    bool maybe_sent = curl_result == CURLE_OPERATION_TIMEDOUT || curl_result == CURLE_RECV_ERROR ||
                      curl_result == CURLE_SEND_ERROR || curl_result == CURLE_GOT_NOTHING ||
                      curl_result == CURLE_HTTP2 || curl_result == CURLE_HTTP2_STREAM ||
                      curl_result == CURLE_PARTIAL_FILE;
    if ((nothing_sent || (maybe_sent && call->req.idempotent)) &&
        call->attempts < options.max_attempts) {
      return retry_later(
          call, backoff_delay(call->attempts, options.backoff_base, options.backoff_cap, random()));
    }
    return complete(call, transport_error(*call, curl_result));
  }

  if (code >= 200 && code < 300) return complete(call, std::move(call->resp));

  ApiError e = error_from_response(static_cast<int>(code), call->resp.body);
  e.attempts = call->attempts;
  if (!call->retry_after.empty()) {
    char* end = nullptr;
    long secs = std::strtol(call->retry_after.c_str(), &end, 10);
    if (end && *end == 0 && secs >= 0) e.retry_after = std::chrono::seconds(std::min(secs, 60L));
  }
  if (call->streaming) return complete(call, std::move(e));
  bool has_retry_after = !call->retry_after.empty();
  if (code == 401 && !call->refreshed_auth &&
      credentials.refresh_after_unauthorized(call->creds.generation)) {
    call->refreshed_auth = true;
    return retry_later(call, std::chrono::milliseconds(0));
  }
  if (call->attempts < options.max_attempts) {
    if (code == 429 || (code >= 500 && has_retry_after)) {
      // The server did not act on it: any verb may go again, after the wait it asked for.
      auto wait = e.retry_after.count() > 0 ? e.retry_after
                                            : backoff_delay(call->attempts, options.backoff_base,
                                                            options.backoff_cap, random());
      return retry_later(call, wait);
    }
    if (code >= 500 && call->req.idempotent)
      return retry_later(
          call, backoff_delay(call->attempts, options.backoff_base, options.backoff_cap, random()));
  }
  complete(call, std::move(e));
}

void Transport::Impl::end_all() {
  std::vector<std::shared_ptr<Call>> ending;
  for (auto& [easy, call] : active) {
    if (!call->streaming) {
      --in_flight;
      --*worker_in_flight;
    }
    release(*call);
    ending.push_back(call);
  }
  active.clear();
  for (auto& [at, call] : waiting) ending.push_back(call);
  waiting.clear();
  ending.insert(ending.end(), ready.begin(), ready.end());
  ready.clear();
  for (auto& call : ending)
    complete(call, client_error("Cancelled", "abandoned: the process is stopping"));
}

bool Transport::Impl::step(SteadyClock::time_point now) {
  std::vector<std::shared_ptr<Call>> incoming;
  std::vector<uint64_t> cancelled;
  std::vector<std::pair<std::chrono::milliseconds, std::function<void()>>> fns;
  {
    std::lock_guard lock(mu);
    incoming.swap(inbox);
    cancelled.swap(cancels);
    fns.swap(posted);
  }
  for (auto& c : incoming) {
    if (c->streaming) streams.emplace(c->id, c);
    ready.push_back(std::move(c));
  }
  for (uint64_t id : cancelled) {
    auto s = streams.find(id);
    if (s == streams.end()) continue;
    std::shared_ptr<Call> call = s->second;
    call->cancelled = true;
    if (call->easy) {
      CURL* easy = call->easy;
      active.erase(easy);
      release(*call);
    } else {
      for (auto w = waiting.begin(); w != waiting.end(); ++w)
        if (w->second == call) {
          waiting.erase(w);
          break;
        }
      std::erase(ready, call);
    }
    complete(call, client_error("Cancelled", "cancelled"));
  }
  for (auto& [delay, fn] : fns) {
    if (delay.count() <= 0)
      fn();
    else
      timers.emplace(now + delay, std::move(fn));
  }
  while (!timers.empty() && timers.begin()->first <= now) {
    auto fn = std::move(timers.begin()->second);
    timers.erase(timers.begin());
    fn();
  }

  if (abandoned) {
    end_all();  // what the timers sent too
    next_due = timers.empty() ? SteadyClock::time_point::max() : timers.begin()->first;
    return false;
  }
  while (!waiting.empty() && waiting.begin()->first <= now) {
    ready.push_back(std::move(waiting.begin()->second));
    waiting.erase(waiting.begin());
  }
  limiter_wake = {};
  held_by_worker = false;
  while (!ready.empty()) {
    std::shared_ptr<Call>& next = ready.front();
    if (!next->streaming && in_flight >= options.max_in_flight) break;
    if (!next->streaming && *worker_in_flight >= kWorkerMaxInFlight) {
      held_by_worker = true;  // its worker steps it again when a request of any transport ends
      break;
    }
    if (!connection_known && warming > 0) break;
    auto wait = limiter.try_take(now);
    if (wait > SteadyClock::duration::zero()) {
      limiter_wake = now + wait;
      break;
    }
    std::shared_ptr<Call> call = std::move(next);
    ready.pop_front();
    call->answered = &connection_known;
    if (!connection_known) {
      call->warming = true;
      ++warming;
    }
    start(call);
  }

  next_due = SteadyClock::time_point::max();
  if (!waiting.empty()) next_due = std::min(next_due, waiting.begin()->first);
  if (!timers.empty()) next_due = std::min(next_due, timers.begin()->first);
  if (limiter_wake != SteadyClock::time_point{}) next_due = std::min(next_due, limiter_wake);
  return !ready.empty() && limiter_wake == SteadyClock::time_point{} &&
         (ready.front()->streaming ||
          (in_flight < options.max_in_flight && *worker_in_flight < kWorkerMaxInFlight)) &&
         (connection_known || warming == 0);
}

void Transport::Impl::detach() {
  for (auto& [easy, call] : active) {
    // A request that will never finish gives its worker's room back now.
    if (!call->streaming) {
      --in_flight;
      --*worker_in_flight;
    }
    call->done = nullptr;
    release(*call);
  }
  active.clear();
}

// What the worker (transport_worker.h) asks of the transports it drives.
bool step_transport(Transport::Impl& t, SteadyClock::time_point now, bool room,
                    SteadyClock::time_point& deadline) {
  bool more = false;
  // A transport held back by the worker's bound steps again once there is room.
  if (t.dirty.exchange(false) || t.next_due <= now || (room && t.held_by_worker))
    more = t.step(now);
  deadline = std::min(deadline, t.next_due);
  return more;
}

void detach_transport(Transport::Impl& t) {
  t.detach();
}

bool finish_transfer(CURL* easy, CURLcode result) {
  char* owner = nullptr;
  curl_easy_getinfo(easy, CURLINFO_PRIVATE, &owner);
  auto* call = reinterpret_cast<Call*>(owner);
  // finish() may free the call: its transport is read first.
  Transport::Impl* transport = call ? call->transport : nullptr;
  if (!transport) return false;
  transport->finish(easy, result);
  transport->dirty = true;  // a slot is free: go round again at once
  return true;
}

namespace {

// Every transport of the process, for abandon_requests().
std::mutex g_transports_mu;
std::vector<Transport::Impl*>& transports() {
  static auto* all = new std::vector<Transport::Impl*>();  // never destroyed, as the workers
  return *all;
}

}  // namespace

void abandon_requests() {
  std::lock_guard lock(g_transports_mu);
  for (Transport::Impl* impl : transports()) {
    impl->abandoned = true;
    impl->dirty = true;
    impl->worker->wake();
  }
}

void Transport::Impl::wake() {
  // One wake-up per round is enough: while `dirty` is set, the worker has yet to step this
  // transport (it clears the flag first, then steps), so what was queued meanwhile is seen then.
  if (!dirty.exchange(true) && worker) worker->wake();
}

Result<std::unique_ptr<Transport>> Transport::create(RestConfig config, TransportOptions options) {
  ensure_curl_global_init();
  auto url = parse_server(config.server);
  if (!url) return url.error();
  if (options.user_agent.empty())
    options.user_agent = fmt::format("planter/{} (linux/amd64)", PLANTER_VERSION);
  if (options.max_in_flight < 1) options.max_in_flight = 1;
  if (options.max_attempts < 1) options.max_attempts = 1;
  auto impl = std::make_unique<Impl>(std::move(config), std::move(options));
  impl->url = url.value();
  const ServerUrl& u = impl->url;
  std::string host = u.host;
  if (!impl->config.tls_server_name.empty() && u.scheme == "https") {
    // Verify against tls-server-name while connecting to the configured host.
    host = impl->config.tls_server_name;
    std::string target = u.host;
    if (target.front() == '[') target = target.substr(1, target.size() - 2);
    impl->connect_to_list = curl_slist_append(
        nullptr, fmt::format("{}:{}:{}:{}", host, u.port, target, u.port).c_str());
  }
  impl->base = u.scheme + "://" + host + ":" + u.port + u.prefix;
  if (impl->config.auth.exec) {
    impl->own_worker = std::make_unique<Worker>();
    impl->worker = impl->own_worker.get();
  } else {
    impl->worker = Worker::shared();
  }
  impl->multi = impl->worker->multi();
  impl->worker_in_flight = impl->worker->in_flight();
  impl->thread_id = impl->worker->thread_id();
  impl->worker->attach(impl.get());
  {
    std::lock_guard lock(g_transports_mu);
    transports().push_back(impl.get());
  }
  return std::unique_ptr<Transport>(new Transport(std::move(impl)));
}

Transport::Transport(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Transport::~Transport() {
  if (std::this_thread::get_id() == impl_->thread_id) {
    // It would wait for its own thread: a programming error, said loudly rather than a hang.
    std::fputs("planter: a Transport destroyed on its own worker thread\n", stderr);
    std::abort();
  }
  {
    std::lock_guard lock(g_transports_mu);
    std::erase(transports(), impl_.get());
  }
  impl_->credentials.cancel();  // an exec plugin may be holding the worker
  impl_->worker->detach(impl_.get());
  impl_->own_worker.reset();
  if (impl_->connect_to_list) curl_slist_free_all(impl_->connect_to_list);
}

void Transport::send(HttpRequest req, Done done) {
  auto call = std::make_shared<Call>();
  call->id = impl_->next_id++;
  call->req = std::move(req);
  call->done = std::move(done);
  {
    std::lock_guard lock(impl_->mu);
    impl_->inbox.push_back(std::move(call));
  }
  impl_->wake();
}

Transport::StreamId Transport::stream(HttpRequest req, Data on_data, Done done) {
  auto call = std::make_shared<Call>();
  call->id = impl_->next_id++;
  call->req = std::move(req);
  call->on_data = std::move(on_data);
  call->done = std::move(done);
  call->streaming = true;
  StreamId id = call->id;
  {
    std::lock_guard lock(impl_->mu);
    impl_->inbox.push_back(std::move(call));
  }
  impl_->wake();
  return id;
}

void Transport::cancel(StreamId id) {
  {
    std::lock_guard lock(impl_->mu);
    impl_->cancels.push_back(id);
  }
  impl_->wake();
}

void Transport::post(std::function<void()> fn, std::chrono::milliseconds delay) {
  {
    std::lock_guard lock(impl_->mu);
    impl_->posted.emplace_back(delay, std::move(fn));
  }
  impl_->wake();
}

bool Transport::on_transport_thread() const {
  return std::this_thread::get_id() == impl_->thread_id;
}

const RestConfig& Transport::config() const {
  return impl_->config;
}

TransportStats Transport::stats() const {
  TransportStats s;
  s.requests = impl_->n_requests;
  s.retries = impl_->n_retries;
  s.connections = impl_->n_connections;
  s.http2_responses = impl_->n_h2;
  s.http1_responses = impl_->n_h1;
  return s;
}

uint64_t Transport::jitter() {
  return impl_->random();
}

}  // namespace planter::kube
