// Decodes a watch response body as it streams in: JSON event objects
// ({"type": "ADDED", "object": {...}}) one after another, split anywhere by the network.
// Not thread-safe: one stream, one decoder.
#pragma once

#include <boost/json/stream_parser.hpp>
#include <functional>
#include <string>
#include <string_view>

#include "kube/json_limits.h"
#include "kube/watch_event.h"

namespace planter::kube {

class WatchDecoder {
 public:
  // Feeds the next bytes; `emit` runs for each event they complete. False when the stream is
  // not a watch stream (error() says why); the decoder is then done.
  bool feed(std::string_view data, const std::function<void(WatchEvent)>& emit);
  const std::string& error() const { return error_; }

 private:
  bool emit_value(boost::json::value v, const std::function<void(WatchEvent)>& emit);

  boost::json::stream_parser parser_{{}, json_limits()};
  bool in_value_ = false;
  std::string error_;
};

}  // namespace planter::kube
