// One event of a watch stream: what the client hands a watch's caller and the decoder makes of
// the stream's bytes (watch_decoder.h).
#pragma once

#include <boost/json/object.hpp>

namespace planter::kube {

// One event of a watch stream.
struct WatchEvent {
  enum class Type { Added, Modified, Deleted, Bookmark, Error };
  Type type = Type::Added;
  boost::json::object object;  // the object, or the Status of an Error
};

}  // namespace planter::kube
