#include "kube/watch_decoder.h"

#include <boost/json.hpp>

namespace planter::kube {

namespace json = boost::json;

bool WatchDecoder::feed(std::string_view data, const std::function<void(WatchEvent)>& emit) {
  if (!error_.empty()) return false;
  while (!data.empty()) {
    if (!in_value_) {
      while (!data.empty() && (data.front() == ' ' || data.front() == '\n' ||
                               data.front() == '\r' || data.front() == '\t'))
        data.remove_prefix(1);
      if (data.empty()) break;
      in_value_ = true;
    }
    json::error_code ec;
    size_t n = parser_.write_some(data.data(), data.size(), ec);
    if (ec) {
      error_ = "the watch stream is not JSON: " + ec.message();
      return false;
    }
    data.remove_prefix(n);
    if (parser_.done()) {
      json::value v = parser_.release();
      parser_.reset();
      in_value_ = false;
      if (!emit_value(std::move(v), emit)) return false;
    }
  }
  return true;
}

bool WatchDecoder::emit_value(json::value v, const std::function<void(WatchEvent)>& emit) {
  if (!v.is_object()) {
    error_ = "a watch event is not a JSON object";
    return false;
  }
  json::object& o = v.get_object();
  auto t = o.find("type");
  auto obj = o.find("object");
  if (t == o.end() || !t->value().is_string() || obj == o.end() || !obj->value().is_object()) {
    error_ = "a watch event lacks type or object";
    return false;
  }
  std::string_view type = t->value().get_string();
  WatchEvent e;
  if (type == "ADDED")
    e.type = WatchEvent::Type::Added;
  else if (type == "MODIFIED")
    e.type = WatchEvent::Type::Modified;
  else if (type == "DELETED")
    e.type = WatchEvent::Type::Deleted;
  else if (type == "BOOKMARK")
    e.type = WatchEvent::Type::Bookmark;
  else if (type == "ERROR")
    e.type = WatchEvent::Type::Error;
  else {
    error_ = "unknown watch event type " + std::string(type);
    return false;
  }
  e.object = std::move(obj->value().get_object());
  emit(std::move(e));
  return true;
}

}  // namespace planter::kube
