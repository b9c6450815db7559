#include "model/json_indent.h"

namespace planter {

namespace {
constexpr size_t kFlushAt = 64 * 1024;
}

JsonIndenter::JsonIndenter(std::function<void(std::string_view)> write, int indent)
    : write_(std::move(write)), indent_(indent) {}

void JsonIndenter::newline() {
  out_ += '\n';
  out_.append(static_cast<size_t>(depth_ * indent_), ' ');
}

void JsonIndenter::flush_if_full() {
  if (out_.size() < kFlushAt) return;
  write_(out_);
  out_.clear();
}

void JsonIndenter::operator()(std::string_view chunk) {
  for (char c : chunk) {
    if (in_string_) {
      out_ += c;
      if (escaped_)
        escaped_ = false;
      else if (c == '\\')
        escaped_ = true;
      else if (c == '"')
        in_string_ = false;
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
    if (opened_) {
      opened_ = false;
      if (c == '}' || c == ']') {  // empty: kept on the line
        --depth_;
        out_ += c;
        continue;
      }
      newline();
    }
    switch (c) {
      case '"':
        in_string_ = true;
        out_ += c;
        break;
      case '{':
      case '[':
        out_ += c;
        ++depth_;
        opened_ = true;
        break;
      case '}':
      case ']':
        --depth_;
        newline();
        out_ += c;
        break;
      case ',':
        out_ += c;
        newline();
        break;
      case ':':
        out_ += ": ";
        break;
      default:
        out_ += c;
    }
  }
  flush_if_full();
}

void JsonIndenter::finish() {
  out_ += '\n';
  write_(out_);
  out_.clear();
}

std::string indent_json(std::string_view compact, int indent) {
  std::string out;
  JsonIndenter indenter([&out](std::string_view t) { out.append(t); }, indent);
  indenter(compact);
  indenter.finish();
  return out;
}

}  // namespace planter
