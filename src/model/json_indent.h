// Compact JSON made readable as it streams by, the way kubectl prints `-o json`: a member or
// element per line, four spaces a level, `"key": value`, an empty object or array kept as `{}` or
// `[]`. The text is not checked: it is JSON that planter itself wrote.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace planter {

class JsonIndenter {
 public:
  explicit JsonIndenter(std::function<void(std::string_view)> write, int indent = 4);
  ~JsonIndenter() = default;
  JsonIndenter(const JsonIndenter&) = delete;
  JsonIndenter& operator=(const JsonIndenter&) = delete;

  // The next piece of compact JSON (a piece may end anywhere, inside a string too).
  void operator()(std::string_view chunk);
  // Ends the text with a newline and hands on what is left.
  void finish();

 private:
  void newline();
  void flush_if_full();

  std::function<void(std::string_view)> write_;
  int indent_;
  std::string out_;
  int depth_ = 0;
  bool in_string_ = false, escaped_ = false;
  bool opened_ = false;  // `{` or `[` was the last thing written: its newline waits for the next
};

// The whole text at once.
std::string indent_json(std::string_view compact, int indent = 4);

}  // namespace planter
