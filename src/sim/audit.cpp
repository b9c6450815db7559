#include "sim/audit.h"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <ctime>

namespace planter::sim {

namespace json = boost::json;

std::string rfc3339(std::chrono::system_clock::time_point t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string rfc3339_nanos(std::chrono::system_clock::time_point t) {
  auto since = t.time_since_epoch();
  auto secs = std::chrono::duration_cast<std::chrono::seconds>(since);
  auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(since - secs).count();
  std::time_t s = secs.count();
  std::tm tm{};
  gmtime_r(&s, &tm);
  char buf[48];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%09lldZ", static_cast<long long>(nanos));
  return buf;
}

bool AuditLog::open(const std::string& path) {
  if (path.empty()) return true;
  file_ = std::fopen(path.c_str(), "a");
  return file_ != nullptr;
}

AuditLog::~AuditLog() {
  if (file_) std::fclose(file_);
}

void AuditLog::line(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), file_);
  std::fputc('\n', file_);
  // Readers (tests, people with tail -f) see each line as soon as it happened.
  std::fflush(file_);
}

void AuditLog::request(std::chrono::system_clock::time_point ts, std::string_view cluster,
                       std::string_view verb, std::string_view object, std::string_view user,
                       int code, std::string_view impersonator) {
  if (!file_) return;
  json::object o{{"ts", rfc3339_nanos(ts)}, {"cluster", cluster}, {"verb", verb},
                 {"object", object},        {"user", user},       {"code", code}};
  if (!impersonator.empty()) o["impersonator"] = impersonator;
  line(json::serialize(o));
}

void AuditLog::ready(std::chrono::system_clock::time_point ts, std::string_view cluster,
                     std::string_view object, std::string_view what) {
  if (!file_) return;
  line(json::serialize(json::object{{"ts", rfc3339_nanos(ts)},
                                    {"cluster", cluster},
                                    {"event", "ready"},
                                    {"object", object},
                                    {"what", what}}));
}

std::string audit_id(std::string_view api_version, std::string_view kind, std::string_view ns,
                     std::string_view name) {
  std::string id(api_version);
  id.append("|").append(kind).append("|").append(ns).append("|").append(name);
  return id;
}

}  // namespace planter::sim
