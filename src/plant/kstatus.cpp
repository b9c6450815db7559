#include "plant/kstatus.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "model/object.h"
#include "plant/health.h"

namespace planter::plant {

namespace json = boost::json;

namespace {

// The condition `type` when its status is `status`, or null.
const json::object* condition_when(const json::object& o, std::string_view type,
                                   std::string_view status) {
  const json::object* c = find_condition(o, type);
  return c && string_field(*c, {"status"}) == status ? c : nullptr;
}

// "Reason: message" of a condition, as kubectl describe shows the pair.
std::string words_of(const json::object& condition) {
  std::string reason = string_field(condition, {"reason"});
  std::string message = string_field(condition, {"message"});
  if (reason.empty()) return message;
  return message.empty() ? reason : reason + ": " + message;
}

// What the object's own conditions say against it, for a rule's words: the first of Ready,
// Available, Progressing that is not True, with a message.
std::string own_words(const json::object& o) {
  for (std::string_view type : {"Ready", "Available", "Progressing"}) {
    const json::object* c = find_condition(o, type);
    if (c && string_field(*c, {"status"}) != "True") {
      std::string words = words_of(*c);
      if (!words.empty()) return words;
    }
  }
  return {};
}

}  // namespace

Readiness check_current(const json::object& o) {
  if (!string_field(o, {"metadata", "deletionTimestamp"}).empty())
    return {false, "it is being deleted"};
  const json::value* generation = find_path(o, {"metadata", "generation"});
  const json::value* observed = find_path(o, {"status", "observedGeneration"});
  if (generation && observed && generation->is_int64() && observed->is_int64() &&
      observed->as_int64() < generation->as_int64())
    return {false, fmt::format("its controller has not observed generation {} yet (status is "
                               "of generation {})",
                               generation->as_int64(), observed->as_int64())};
  if (const json::object* stalled = condition_when(o, "Stalled", "True"))
    return {false, fmt::format("stalled: {}", words_of(*stalled))};
  if (const json::object* busy = condition_when(o, "Reconciling", "True"))
    return {false, fmt::format("reconciling: {}", words_of(*busy))};
  Readiness built_in = check_health(o);
  if (!built_in.holds) {
    if (std::string words = own_words(o); !words.empty()) built_in.why += " (" + words + ")";
    return built_in;
  }
  if (const json::object* ready = find_condition(o, "Ready");
      ready && string_field(*ready, {"status"}) != "True") {
    std::string words = words_of(*ready);
    return {false, words.empty()
                       ? fmt::format("its Ready condition is {}", string_field(*ready, {"status"}))
                       : "not Ready: " + words};
  }
  return {true, {}};
}

}  // namespace planter::plant
