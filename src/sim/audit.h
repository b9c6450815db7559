// The sim's audit log: one JSON line per successful mutating request and per readiness
// transition a simulated controller makes. Tests read it as the oracle for ordering and for
// exactly-once declaration.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

namespace planter::sim {

class AuditLog {
 public:
  AuditLog() = default;
  // Appends to `path`; an empty path disables the log. Returns false when it cannot be opened.
  bool open(const std::string& path);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  bool enabled() const { return file_ != nullptr; }

  // `object` is the proof-of-concept ID: "apps/v1|Deployment|cnf|cnf". `impersonator`: who sent
  // a request made as `user` (an "impersonator" field, only when set).
  void request(std::chrono::system_clock::time_point ts, std::string_view cluster,
               std::string_view verb, std::string_view object, std::string_view user, int code,
               std::string_view impersonator = {});
  void ready(std::chrono::system_clock::time_point ts, std::string_view cluster,
             std::string_view object, std::string_view what);

 private:
  void line(const std::string& text);
  std::FILE* file_ = nullptr;
};

// "apiVersion|kind|namespace|name": how the audit log names an object (the proof of concept's ID).
std::string audit_id(std::string_view api_version, std::string_view kind, std::string_view ns,
                     std::string_view name);

// RFC 3339 in UTC with nanoseconds ("2026-11-21T10:00:00.123456789Z") or seconds.
std::string rfc3339_nanos(std::chrono::system_clock::time_point t);
std::string rfc3339(std::chrono::system_clock::time_point t);

}  // namespace planter::sim
