#include "model/yaml.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

#include "model/arena.h"
#include "model/utf8.h"
#include "model/yaml_block.h"
#include "model/yaml_libfyaml.h"

namespace planter {

namespace json = boost::json;

namespace {

// The offset of the first byte that is not part of well-formed UTF-8 (overlong forms and
// surrogates included), or npos.
size_t invalid_utf8_at(std::string_view text) {
  uint32_t cp = 0;
  for (size_t i = 0, len = 0; i < text.size(); i += len)
    if ((len = utf8_sequence(text, i, cp)) == 0) return i;
  return std::string_view::npos;
}

}  // namespace

Result<std::vector<YamlDocument>> parse_yaml_stream(std::string_view text, std::string_view name) {
  // One arena per stream: the stream's values live and die together, and moves keep it.
  if (auto docs = read_block_yaml(text, json::make_shared_resource<Arena>()))
    return std::move(*docs);
  // libfyaml 0.7.12 can spin forever on invalid UTF-8 (a `%` directive followed by 0xFB), so it
  // never sees any.
  if (size_t bad = invalid_utf8_at(text); bad != std::string_view::npos) {
    std::string_view before = text.substr(0, bad);
    size_t line = 1 + static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
    size_t line_start = before.rfind('\n');
    size_t column = bad - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
    return Error{fmt::format("{}:{}:{}: byte 0x{:02X} is not UTF-8; save the file as UTF-8", name,
                             line, column, static_cast<unsigned char>(text[bad]))};
  }
  return read_yaml_libfyaml(text, name, json::make_shared_resource<Arena>());
}

}  // namespace planter
