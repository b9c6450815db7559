// libFuzzer target: `planter sim` answering any request. The input is
//   METHOD PATH[?QUERY]\n
//   CONTENT-TYPE\n
//   BODY
// and goes to one cluster's handler (routing, authorization, admission, decoding, patches,
// writes), its target read as the server reads it (request_target.h). Any answer is fine; a crash
// is not.
#include <boost/json.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "sim/cluster.h"
#include "sim/request_target.h"

namespace {

using namespace planter::sim;

std::string_view next_line(std::string_view& s) {
  size_t nl = s.find('\n');
  std::string_view line = s.substr(0, nl);
  s = nl == std::string_view::npos ? std::string_view{} : s.substr(nl + 1);
  return line;
}

// Inputs one cluster answers before a fresh one takes over. State carries from input to input,
// as a server keeps it; but with time standing still nothing a request creates goes unless a
// request deletes it (no TTL, no garbage collection), so a cluster kept for the whole run holds
// every object of millions of inputs: 954 MB after 2.98 million, past the run's 2 GiB.
constexpr uint64_t kInputsPerCluster = 10000;

std::unique_ptr<Cluster> make_cluster() {
  Environment env;
  env.now = [] {
    return std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));
  };
  env.after = [](std::chrono::milliseconds, std::function<void()>) {};  // time stands still
  static uint64_t seed = 1;
  env.random = [] { return seed = seed * 6364136223846793005ull + 1; };
  return std::make_unique<Cluster>("fuzz", ClusterOptions{}, env, nullptr);
}

Cluster& cluster() {
  static std::unique_ptr<Cluster> c;
  static uint64_t answered = 0;
  if (answered++ % kInputsPerCluster == 0) {  // the first input too
    c.reset();                                // the old one goes first: two need not fit at once
    c = make_cluster();
  }
  return *c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  Request r;
  std::string_view first = next_line(in);
  size_t space = first.find(' ');
  if (space == std::string_view::npos) return 0;
  r.method = std::string(first.substr(0, space));
  r.path = split_request_target(first.substr(space + 1), r);  // as the server reads it
  r.content_type = std::string(next_line(in));
  r.body = std::string(in);
  r.user = "admin";
  r.groups = {"system:masters", "system:authenticated"};
  r.user_agent = "fuzz/v0";
  if (Cluster::is_watch(r)) return 0;  // a stream needs a sink; watches are tested elsewhere
  (void)cluster().handle(r);
  return 0;
}
