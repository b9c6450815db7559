#include "kube/api_error.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json/parse.hpp>

#include "kube/json_limits.h"
#include "model/object.h"

namespace planter::kube {

namespace json = boost::json;

namespace {

// The words kube-apiserver's validation uses for a change no update may make.
bool says_immutable(std::string_view text) {
  return text.find("field is immutable") != std::string_view::npos ||
         text.find("cannot change roleRef") != std::string_view::npos;
}

}  // namespace

bool ApiError::immutable() const {
  if (!invalid()) return false;
  for (const StatusCause& c : causes)
    if (says_immutable(c.message)) return true;
  return says_immutable(message);
}

std::string ApiError::immutable_fields() const {
  std::vector<std::string_view> fields;
  for (const StatusCause& c : causes)
    if (says_immutable(c.message) && !c.field.empty() &&
        std::find(fields.begin(), fields.end(), c.field) == fields.end())
      fields.push_back(c.field);
  if (fields.empty()) return "a field";
  std::string out;
  for (std::string_view f : fields) out += (out.empty() ? "" : ", ") + std::string(f);
  return out;
}

std::string ApiError::str() const {
  std::string out = message.empty() ? "(no message)" : message;
  if (code != 0) {
    out += fmt::format(" ({} {})", code, reason);
  }
  for (const StatusCause& c : causes) {
    if (c.message.empty() || out.find(c.message) != std::string::npos) continue;
    out += "\n  " + (c.field.empty() ? std::string() : c.field + ": ") + c.message;
  }
  if (attempts > 1) out += fmt::format(" [after {} attempts]", attempts);
  return out;
}

ApiError error_from_response(int code, std::string_view body) {
  ApiError e;
  e.code = code;
  json::error_code ec;
  json::value v = json::parse(body, ec, {}, json_limits());
  if (!ec && v.is_object() && string_field(v.get_object(), {"kind"}) == "Status") {
    const json::object& s = v.get_object();
    e.reason = string_field(s, {"reason"});
    e.message = string_field(s, {"message"});
    if (auto d = s.find("details"); d != s.end() && d->value().is_object()) {
      const json::object& details = d->value().get_object();
      e.details_kind = string_field(details, {"kind"});
      e.details_name = string_field(details, {"name"});
      if (auto r = details.find("retryAfterSeconds"); r != details.end() && r->value().is_int64())
        e.retry_after = std::chrono::seconds(r->value().get_int64());
      if (auto c = details.find("causes"); c != details.end() && c->value().is_array()) {
        for (const json::value& cv : c->value().get_array()) {
          if (!cv.is_object()) continue;
          const json::object& co = cv.get_object();
          e.causes.push_back({string_field(co, {"reason"}), string_field(co, {"message"}),
                              string_field(co, {"field"})});
        }
      }
    }
  } else {
    // Not a Status (a proxy's page, "404 page not found"): keep its first line.
    std::string_view first = body.substr(0, body.find('\n'));
    e.message = std::string(first.substr(0, 200));
  }
  if (e.reason.empty()) {
    switch (code) {
      case 400:
        e.reason = "BadRequest";
        break;
      case 401:
        e.reason = "Unauthorized";
        break;
      case 403:
        e.reason = "Forbidden";
        break;
      case 404:
        e.reason = "NotFound";
        break;
      case 405:
        e.reason = "MethodNotAllowed";
        break;
      case 409:
        e.reason = "Conflict";
        break;
      case 410:
        e.reason = "Gone";
        break;
      case 422:
        e.reason = "Invalid";
        break;
      case 429:
        e.reason = "TooManyRequests";
        break;
      case 503:
        e.reason = "ServiceUnavailable";
        break;
      case 504:
        e.reason = "Timeout";
        break;
      default:
        e.reason = code >= 500 ? "InternalError" : "Unknown";
    }
  }
  if (e.message.empty()) e.message = fmt::format("the server answered {} {}", code, e.reason);
  return e;
}

ApiError client_error(std::string_view reason, std::string message) {
  ApiError e;
  e.reason = std::string(reason);
  e.message = std::move(message);
  return e;
}

}  // namespace planter::kube
