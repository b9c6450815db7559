#include "kube/transport_worker.h"

#include <algorithm>
#include <memory>

namespace planter::kube {

using SteadyClock = std::chrono::steady_clock;

Worker::Worker() : multi_(curl_multi_init()) {
  curl_multi_setopt(multi_, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
  curl_multi_setopt(multi_, CURLMOPT_MAX_CONCURRENT_STREAMS, 100L);
  // curl says which sockets to wait on and when to call it back (its socket interface): a turn
  // costs what the sockets that are ready cost, not a pass over every transfer, which the
  // watches of 5,000 clusters made most of the time.
  curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &Worker::on_socket);
  curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &Worker::on_timer);
  curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
  thread_ = std::thread([this] { run(); });
}

Worker::~Worker() {
  stopping_ = true;
  wake();
  if (thread_.joinable()) thread_.join();
  curl_multi_cleanup(multi_);
}

Worker* Worker::shared() {
  static const size_t n = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
  // Never destroyed: transports may outlive static destruction at exit.
  static auto* workers = [] {
    auto* v = new std::vector<std::unique_ptr<Worker>>();
    for (size_t i = 0; i < n; ++i) v->push_back(std::make_unique<Worker>());
    return v;
  }();
  static std::atomic<size_t> next{0};
  return (*workers)[next++ % n].get();
}

void Worker::attach(Transport::Impl* impl) {
  {
    std::lock_guard lock(mu_);
    joining_.push_back(impl);
  }
  wake();
}

void Worker::detach(Transport::Impl* impl) {
  std::unique_lock lock(mu_);
  leaving_.push_back(impl);
  wake();
  left_.wait(lock, [&] { return std::find(gone_.begin(), gone_.end(), impl) != gone_.end(); });
  std::erase(gone_, impl);
}

void Worker::run() {
  std::vector<Transport::Impl*> impls;
  while (!stopping_) {
    {
      std::lock_guard lock(mu_);
      for (Transport::Impl* j : joining_) impls.push_back(j);
      joining_.clear();
      for (Transport::Impl* l : leaving_) {
        std::erase(impls, l);
        detach_transport(*l);
        gone_.push_back(l);
      }
      if (!leaving_.empty()) left_.notify_all();
      leaving_.clear();
    }
    auto now = SteadyClock::now();
    auto deadline = now + std::chrono::seconds(1);
    bool more = false;
    for (Transport::Impl* impl : impls)
      more |= step_transport(*impl, now, in_flight_ < kWorkerMaxInFlight, deadline);
    more |= finish_done();
    auto wait_until = deadline;
    if (timer_) wait_until = std::min(wait_until, *timer_);
    auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(wait_until - SteadyClock::now());
    int running = 0;
    for (const SocketInterest::Ready& r : sockets_.wait(more ? std::chrono::milliseconds(0) : ms)) {
      int flags = (r.read ? CURL_CSELECT_IN : 0) | (r.write ? CURL_CSELECT_OUT : 0) |
                  (r.error ? CURL_CSELECT_ERR : 0);
      curl_multi_socket_action(multi_, r.fd, flags, &running);
    }
    if (timer_ && *timer_ <= SteadyClock::now()) {
      timer_.reset();
      curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
    }
  }
}

bool Worker::finish_done() {
  bool any = false;
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi_, &left))
    if (msg->msg == CURLMSG_DONE) any |= finish_transfer(msg->easy_handle, msg->data.result);
  return any;
}

int Worker::on_socket(CURL*, curl_socket_t s, int what, void* self, void*) {
  auto* w = static_cast<Worker*>(self);
  if (what == CURL_POLL_REMOVE)
    w->sockets_.forget(s);
  else
    w->sockets_.watch(s, (what & CURL_POLL_IN) != 0, (what & CURL_POLL_OUT) != 0);
  return 0;
}

int Worker::on_timer(CURLM*, long ms, void* self) {
  auto* w = static_cast<Worker*>(self);
  if (ms < 0)
    w->timer_.reset();
  else
    w->timer_ = SteadyClock::now() + std::chrono::milliseconds(ms);
  return 0;
}

}  // namespace planter::kube
