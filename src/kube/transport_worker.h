// A thread and a curl multi handle that drive many transports: every cluster's connections,
// retries, timers and callbacks, without a thread per cluster. The shared ones are made on first
// use (Worker::shared) and live as long as the process; a transport whose credentials come from
// an exec plugin gets a worker of its own, so that a slow plugin holds up no other cluster.
//
// The worker is the event loop; what a request is (credentials, retries, limits, errors) is the
// transport's (transport.cpp), reached through the three hooks below. Private to src/kube.
#pragma once

#include <curl/curl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "kube/socket_interest.h"
#include "kube/transport.h"

namespace planter::kube {

// Requests in flight on one worker, all its transports together (streams not counted): each
// holds curl's buffers (about 20 KiB) from start to end, and thousands of clusters' requests
// queued on a few shared connections would hold a gigabyte.
inline constexpr int kWorkerMaxInFlight = 256;

// The transport's side (transport.cpp), on the worker's thread. One round of `t`: stepped when it
// was given something, is due, or was held back and `room` is there; `deadline` lowered to its
// next due time. True when more could start at once.
bool step_transport(Transport::Impl& t, std::chrono::steady_clock::time_point now, bool room,
                    std::chrono::steady_clock::time_point& deadline);
// `t` leaves the worker: its transfers leave the multi handle, their callbacks dropped uncalled.
void detach_transport(Transport::Impl& t);
// curl finished `easy`: its call is completed. False when it belongs to no transport.
bool finish_transfer(CURL* easy, CURLcode result);

class Worker {
 public:
  Worker();
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // The shared workers, one per core up to four, handed out in turn.
  static Worker* shared();

  CURLM* multi() const { return multi_; }
  int* in_flight() { return &in_flight_; }
  std::thread::id thread_id() const { return thread_.get_id(); }
  void wake() { sockets_.wake(); }

  void attach(Transport::Impl* impl);
  // Returns once the worker has let go of `impl` (never from the worker's own thread).
  void detach(Transport::Impl* impl);

 private:
  void run();
  // The transfers curl finished: each call is completed. True when there were some.
  bool finish_done();
  // curl's socket interface: wait on `s` for `what` (CURL_POLL_*), or no more.
  static int on_socket(CURL*, curl_socket_t s, int what, void* self, void*);
  // curl's timer: call it back (CURL_SOCKET_TIMEOUT) in `ms`; -1: no timer.
  static int on_timer(CURLM*, long ms, void* self);

  CURLM* multi_;
  SocketInterest sockets_;  // what curl waits on; wake() makes it return
  std::optional<std::chrono::steady_clock::time_point> timer_;  // when curl wants a call back
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::condition_variable left_;
  std::vector<Transport::Impl*> joining_, leaving_, gone_;
  int in_flight_ = 0;  // on the worker's thread only
};

}  // namespace planter::kube
