// The operator's structured log (--log-format text|json) on stderr, through spdlog: one line per
// event, with key=value fields (text) or one JSON object (json). Messages never carry secrets:
// callers pass names, states and server messages, never objects' data.
//
// Threads: callable from any thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spdlog {
class logger;
}

namespace planter::daemon {

using LogFields = std::vector<std::pair<std::string_view, std::string>>;

class Log {
 public:
  enum class Format { kText, kJson };
  explicit Log(Format format);
  ~Log();

  void info(std::string_view msg, const LogFields& fields = {}) const;
  void warn(std::string_view msg, const LogFields& fields = {}) const;
  void error(std::string_view msg, const LogFields& fields = {}) const;

 private:
  void write(int level, std::string_view msg, const LogFields& fields) const;
  Format format_;
  std::shared_ptr<spdlog::logger> logger_;
};

}  // namespace planter::daemon
