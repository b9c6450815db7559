#include "model/rfc3339.h"

#include <cctype>
#include <cstdio>
#include <ctime>
#include <string>

namespace planter {

std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text) {
  int y, mo, d, h, mi, s;
  char t;
  std::string copy(text);
  int consumed = 0;
  if (std::sscanf(copy.c_str(), "%4d-%2d-%2d%c%2d:%2d:%2d%n", &y, &mo, &d, &t, &h, &mi, &s,
                  &consumed) != 7 ||
      (t != 'T' && t != 't' && t != ' '))
    return std::nullopt;
  std::string_view rest = text.substr(static_cast<size_t>(consumed));
  std::chrono::nanoseconds frac{0};
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    int64_t scale = 100000000, n = 0;
    while (!rest.empty() && std::isdigit(static_cast<unsigned char>(rest.front()))) {
      n += (rest.front() - '0') * scale;
      scale /= 10;
      rest.remove_prefix(1);
    }
    frac = std::chrono::nanoseconds(n);
  }
  int offset_s = 0;
  if (rest == "Z" || rest == "z") {
  } else if (rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':') {
    int oh = (rest[1] - '0') * 10 + (rest[2] - '0');
    int om = (rest[4] - '0') * 10 + (rest[5] - '0');
    offset_s = (oh * 3600 + om * 60) * (rest[0] == '-' ? -1 : 1);
  } else {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  time_t secs = timegm(&tm);
  return std::chrono::system_clock::from_time_t(secs - offset_s) +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(frac);
}

}  // namespace planter
