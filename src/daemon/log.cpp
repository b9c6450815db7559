#include "daemon/log.h"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <boost/json.hpp>
#include <chrono>

#include "daemon/time_format.h"

namespace planter::daemon {

namespace {

// A text value is quoted when it would not read back as one token.
std::string text_value(const std::string& v) {
  bool plain = !v.empty() && v.find_first_of(" \"=\n\t") == std::string::npos;
  return plain ? v : boost::json::serialize(boost::json::value(v));
}

}  // namespace

Log::Log(Format format) : format_(format) {
  logger_ = std::make_shared<spdlog::logger>("planter",
                                             std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger_->set_pattern("%v");
  logger_->flush_on(spdlog::level::info);
}

Log::~Log() = default;

void Log::info(std::string_view msg, const LogFields& fields) const {
  write(spdlog::level::info, msg, fields);
}
void Log::warn(std::string_view msg, const LogFields& fields) const {
  write(spdlog::level::warn, msg, fields);
}
void Log::error(std::string_view msg, const LogFields& fields) const {
  write(spdlog::level::err, msg, fields);
}

void Log::write(int level, std::string_view msg, const LogFields& fields) const {
  auto lvl = static_cast<spdlog::level::level_enum>(level);
  std::string_view name = lvl == spdlog::level::err    ? "error"
                          : lvl == spdlog::level::warn ? "warn"
                                                       : "info";
  std::string line;
  if (format_ == Format::kJson) {
    boost::json::object o{{"ts", daemon::rfc3339(std::chrono::system_clock::now(), true)},
                          {"level", name},
                          {"msg", msg}};
    for (const auto& [k, v] : fields) o[k] = v;
    line = boost::json::serialize(o);
  } else {
    line = fmt::format("{} {:<5} {}", daemon::rfc3339(std::chrono::system_clock::now(), true), name,
                       msg);
    for (const auto& [k, v] : fields) line += fmt::format(" {}={}", k, text_value(v));
  }
  logger_->log(lvl, "{}", line);
}

}  // namespace planter::daemon
