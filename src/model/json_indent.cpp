#include "model/json_indent.h"

namespace planter {

namespace {
constexpr size_t kFlushAt = 64 * 1024;
}

JsonIndenter::JsonIndenter(std::function<void(std::string_view)> write, int indent)
    : write_(std::move(write)), indent_(indent) {
  out_.reserve(kFlushAt + kFlushAt / 4);
}

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
  size_t i = 0;
  while (i < chunk.size()) {
    if (in_string_) {
      // A string's text is copied as it is, up to its end or an escape: most of the output.
      if (escaped_) {
        out_ += chunk[i++];
        escaped_ = false;
        continue;
      }
      size_t end = i;
      while (end < chunk.size() && chunk[end] != '"' && chunk[end] != '\\') ++end;
      if (end == chunk.size()) {
        out_.append(chunk.substr(i));
        break;
      }
      out_.append(chunk.substr(i, end - i + 1));
      if (chunk[end] == '"')
        in_string_ = false;
      else
        escaped_ = true;
      i = end + 1;
      continue;
    }
    char c = chunk[i++];
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
