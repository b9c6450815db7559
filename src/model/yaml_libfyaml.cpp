#include "model/yaml_libfyaml.h"

#include <fmt/format.h>
#include <libfyaml.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdlib>
#include <memory>
#include <optional>
#include <unordered_map>

#include "model/yaml_block_scalar.h"
#include "model/yaml_plain.h"
#include "model/yaml_quoted.h"

namespace planter {

namespace json = boost::json;

namespace {

struct ParserDeleter {
  void operator()(fy_parser* p) const { fy_parser_destroy(p); }
};
struct DiagDeleter {
  void operator()(fy_diag* d) const { fy_diag_destroy(d); }
};

std::string_view token_text(fy_token* t) {
  if (t == nullptr) return {};
  size_t len = 0;
  const char* s = fy_token_get_text(t, &len);
  return s ? std::string_view(s, len) : std::string_view{};
}

// The tags of YAML's core schema: what a Kubernetes object can hold. Anything else
// (`!!python/object`, `!custom`) asks the reader to build an application's type, which kubectl
// refuses too.
bool core_tag(std::string_view tag) {
  static constexpr std::string_view kCore[] = {"str", "int", "float", "bool", "null", "map", "seq"};
  if (tag == "!") return true;
  std::string_view name = tag.starts_with("!!")                   ? tag.substr(2)
                          : tag.starts_with("tag:yaml.org,2002:") ? tag.substr(18)
                                                                  : std::string_view{};
  return std::find(std::begin(kCore), std::end(kCore), name) != std::end(kCore);
}

// The text of a scalar token: libfyaml's for plain and block scalars (unless it holds a NUL its
// source does not); a quoted scalar's is decoded from the source between its quotes
// (yaml_quoted.h: libfyaml 0.7.12 misreads some, and may leave the end of the string it returns
// unwritten). nullopt when that text does not decode.
std::optional<std::string_view> scalar_text(fy_token* t, std::string_view source, int parent,
                                            std::string& buffer) {
  fy_scalar_style style = fy_token_scalar_style(t);
  const fy_mark* start = fy_token_start_mark(t);
  const fy_mark* end = fy_token_end_mark(t);
  bool spanned =
      start && end && start->input_pos <= end->input_pos && end->input_pos <= source.size();
  if (style == FYSS_LITERAL || style == FYSS_FOLDED) {
    // libfyaml 0.7.12 leaves the last bytes of some folded scalars unwritten, and misreads
    // others (model/yaml_block_scalar.h): the text is planter's reading of the source.
    if (!spanned) return std::nullopt;
    auto text = decode_block_scalar(source, start->input_pos, parent);
    if (!text) return std::nullopt;
    buffer = std::move(*text);
    return std::string_view(buffer);
  }
  if (style != FYSS_SINGLE_QUOTED && style != FYSS_DOUBLE_QUOTED) {
    // A plain scalar has no escapes: a NUL in libfyaml's text that its source does not hold is a
    // misreading, refused, never passed on.
    std::string_view text = token_text(t);
    if (text.find('\0') != std::string_view::npos &&
        (!spanned ||
         source.substr(start->input_pos, end->input_pos - start->input_pos).find('\0') ==
             std::string_view::npos))
      return std::nullopt;
    return text;
  }
  if (!spanned) return std::nullopt;
  auto text =
      decode_quoted_scalar(source.substr(start->input_pos, end->input_pos - start->input_pos),
                           style == FYSS_DOUBLE_QUOTED ? '"' : '\'');
  if (!text) return std::nullopt;
  buffer = std::move(*text);
  return std::string_view(buffer);
}

// A scalar's value: a plain one resolved by the core schema; a quoted or block one is a string.
// A core tag says which: `!!str 1` is "1", and `!!int "1"` is 1 (as PyYAML and go-yaml read it);
// a tagged text that is not of its tag's type is an error (go-yaml: "cannot decode !!str `x` as a
// !!int"). `!` alone (the non-specific tag) makes it a string.
Result<json::value> scalar_value(fy_event* e, std::string_view text, const json::storage_ptr& sp) {
  fy_token* value = e->scalar.value;
  const bool plain = fy_token_scalar_style(value) == FYSS_PLAIN;
  if (!e->scalar.tag) {
    if (!plain) return json::value(json::string(text, sp));
    return resolve_plain_scalar(text, sp);
  }
  std::string_view tag = token_text(e->scalar.tag);
  std::string_view name = tag.starts_with("!!")                   ? tag.substr(2)
                          : tag.starts_with("tag:yaml.org,2002:") ? tag.substr(18)
                                                                  : std::string_view{};
  if (tag == "!" || name == "str") return json::value(json::string(text, sp));
  json::value resolved = resolve_plain_scalar(text, sp);
  bool fits = name == "int" ? resolved.is_int64() || resolved.is_uint64()
              : name == "float"
                  ? resolved.is_double() || resolved.is_int64() || resolved.is_uint64()
              : name == "bool" ? resolved.is_bool()
              : name == "null" ? resolved.is_null()
                               : false;
  if (!fits)
    return Error{
        fmt::format("the value {} is tagged {} but is not one: write it without the tag, or "
                    "as a value of that type",
                    json::serialize(json::value(json::string(text))),
                    name.empty() ? std::string(tag) : "!!" + std::string(name))};
  if (name == "float" && !resolved.is_double()) return json::value(resolved.to_number<double>());
  return resolved;
}

// Builds JSON values from the parser's events.
class Builder {
 public:
  Builder(std::string_view name, std::string_view source, json::storage_ptr sp)
      : name_(name), source_(source), sp_(std::move(sp)) {}

  // Returns an error message, or "" on success.
  std::string on_event(fy_event* e, YamlDocument& doc) {
    fy_token* tag = e->type == FYET_SCALAR           ? e->scalar.tag
                    : e->type == FYET_MAPPING_START  ? e->mapping_start.tag
                    : e->type == FYET_SEQUENCE_START ? e->sequence_start.tag
                                                     : nullptr;
    if (tag && !core_tag(token_text(tag)))
      return where(e) + fmt::format(
                            ": tag {} is not supported: Kubernetes objects hold only "
                            "strings, numbers, booleans, null, mappings and sequences",
                            token_text(tag));
    switch (e->type) {
      case FYET_MAPPING_START:
        return open(json::object(sp_), e, e->mapping_start.anchor, doc);
      case FYET_SEQUENCE_START:
        return open(json::array(sp_), e, e->sequence_start.anchor, doc);
      case FYET_MAPPING_END:
      case FYET_SEQUENCE_END:
        return close(e);
      case FYET_SCALAR: {
        // The common case, a plain key: straight from the token into the frame, no JSON value.
        if (!stack_.empty() && !stack_.back().have_key && stack_.back().value.is_object() &&
            !e->scalar.anchor && !e->scalar.tag) {
          Frame& top = stack_.back();
          auto decoded = scalar_text(e->scalar.value, source_, block_parent(), text_buffer_);
          if (!decoded) return not_decoded(e);
          std::string_view text = *decoded;
          const bool plain = fy_token_scalar_style(e->scalar.value) == FYSS_PLAIN;
          if (plain && text.empty()) text = "null";
          std::optional<std::string> resolved = plain ? plain_key_text(text) : std::nullopt;
          if (resolved) text = *resolved;
          top.key.assign(text.data(), text.size());
          top.have_key = true;
          top.merge_key = plain && text == "<<";
          top.bytes += kValueBytes + text.size();
          return {};
        }
        auto decoded = scalar_text(e->scalar.value, source_, block_parent(), text_buffer_);
        if (!decoded) return not_decoded(e);
        auto scalar = scalar_value(e, *decoded, sp_);
        if (!scalar) return where(e) + ": " + scalar.error().message;
        json::value v = std::move(scalar.value());
        size_t bytes = kValueBytes + (v.is_string() ? v.get_string().size() : 0);
        if (e->scalar.anchor) anchors_[std::string(token_text(e->scalar.anchor))] = {v, bytes};
        return add(std::move(v), bytes, e, doc);
      }
      case FYET_ALIAS: {
        auto it = anchors_.find(std::string(token_text(e->alias.anchor)));
        if (it == anchors_.end())
          return where(e) + fmt::format(": unknown alias *{}", token_text(e->alias.anchor));
        // Each alias is a copy: a few hundred bytes of nested aliases would otherwise expand into
        // gigabytes ("billion laughs").
        ++alias_uses_;
        alias_bytes_ += it->second.bytes;
        if (alias_uses_ > kYamlMaxAliases || alias_bytes_ > kYamlMaxAliasBytes)
          return where(e) + fmt::format(
                                ": aliases expand to more than {} copies or {} MiB in this stream; "
                                "planter stops there (nested aliases grow exponentially)",
                                kYamlMaxAliases, kYamlMaxAliasBytes >> 20);
        json::value copy(it->second.value, sp_);
        return add(std::move(copy), it->second.bytes, e, doc);
      }
      default:
        return {};
    }
  }

  struct OpenFlow {
    int line = 0;
    int column = 0;
    char bracket = '[';
  };
  // The innermost flow collection still open, if any.
  std::optional<OpenFlow> open_flow() const {
    for (auto f = stack_.rbegin(); f != stack_.rend(); ++f)
      if (f->flow) return OpenFlow{f->line, f->column, f->value.is_object() ? '{' : '['};
    return std::nullopt;
  }

  // A new document: anchors are per document; the alias budget is per stream.
  void reset() {
    stack_.clear();
    anchors_.clear();
    root_.reset();
  }
  // The finished document's value (null for an empty document), still in the stream's storage.
  json::value take_root() {
    if (!root_) return nullptr;
    json::value v(std::move(*root_));
    root_.reset();
    return v;
  }

 private:
  struct Frame {
    json::value value;
    std::string anchor;
    std::string key;                  // for mappings: the key waiting for its value
    bool have_key = false;            // for mappings
    bool merge_key = false;           // the key is a plain `<<`; a quoted "<<" is only a string
    std::vector<std::string> merged;  // keys that came from `<<` and may be overridden
    int line = 0;
    int column = 0;              // where a flow collection's bracket is, for "not closed" errors
    bool flow = false;           // `[...]` or `{...}`
    size_t bytes = kValueBytes;  // what the value holds, roughly, for the alias budget
  };
  struct Anchor {
    json::value value;
    size_t bytes = 0;
  };
  // A value's share of the alias budget: its slot, plus the text of its strings and keys.
  static constexpr size_t kValueBytes = 16;

  // The indentation of the block collection a scalar is in (its keys' or dashes' column), -1 at
  // a document's root: what a block scalar's indentation indicator counts from.
  int block_parent() const { return stack_.empty() ? -1 : stack_.back().column - 1; }
  std::string not_decoded(fy_event* e) const {
    return where(e) +
           ": this quoted scalar does not read as YAML 1.2 says (an escape or quote "
           "out of place); write it again, e.g. as a block scalar (|)";
  }
  std::string where(fy_event* e) const {
    const fy_mark* m = fy_event_start_mark(e);
    return fmt::format("{}:{}:{}", name_, m ? m->line + 1 : 0, m ? m->column + 1 : 0);
  }

  std::string open(json::value container, fy_event* e, fy_token* anchor, YamlDocument& doc) {
    const fy_mark* m = fy_event_start_mark(e);
    int line = m ? m->line + 1 : 0;
    if (stack_.empty()) doc.line = line;
    note_item_line(line, doc);
    if (!stack_.empty() && stack_.back().value.is_object() && !stack_.back().have_key)
      return where(e) + ": a mapping or sequence used as a mapping key is not supported";
    if (stack_.size() >= kYamlMaxDepth)
      return where(e) +
             fmt::format(": mappings and sequences nest deeper than {} levels", kYamlMaxDepth);
    fy_token* start =
        container.is_object() ? e->mapping_start.mapping_start : e->sequence_start.sequence_start;
    fy_token_type type = start ? fy_token_get_type(start) : FYTT_NONE;
    stack_.push_back({.value = std::move(container),
                      .anchor = std::string(token_text(anchor)),
                      .line = line,
                      .column = m ? m->column + 1 : 0,
                      .flow = type == FYTT_FLOW_SEQUENCE_START || type == FYTT_FLOW_MAPPING_START});
    return {};
  }

  std::string close(fy_event* e) {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    if (!f.anchor.empty()) anchors_[f.anchor] = {f.value, f.bytes};
    YamlDocument unused;
    return add(std::move(f.value), f.bytes, e, unused, /*closing=*/true);
  }

  void note_item_line(int line, YamlDocument& doc) {
    // Elements of the top-level `items` sequence: stack is [root mapping, items sequence].
    if (stack_.size() == 2 && stack_[1].value.is_array() && stack_[0].key == "items")
      doc.item_lines.push_back(line);
  }

  std::string add(json::value v, size_t bytes, fy_event* e, YamlDocument& doc,
                  bool closing = false) {
    // Only a root scalar or an element of `items` needs its line.
    if (!closing && (stack_.empty() || stack_.size() == 2)) {
      const fy_mark* m = fy_event_start_mark(e);
      int line = m ? m->line + 1 : 0;
      if (stack_.empty()) doc.line = line;
      note_item_line(line, doc);
    }
    if (stack_.empty()) {
      root_.emplace(std::move(v));  // constructing keeps v's storage; assigning would copy
      return {};
    }
    Frame& top = stack_.back();
    top.bytes += bytes;
    if (top.value.is_array()) {
      top.value.get_array().push_back(std::move(v));
      return {};
    }
    json::object& obj = top.value.get_object();
    if (!top.have_key) {
      top.key = key_text(v);
      top.have_key = true;
      // An anchored plain `<<` is still a merge key; a tagged, quoted or aliased one is not.
      top.merge_key = e->type == FYET_SCALAR && !e->scalar.tag && top.key == "<<" &&
                      fy_token_scalar_style(e->scalar.value) == FYSS_PLAIN;
      return {};
    }
    top.have_key = false;
    if (top.merge_key) return merge(top, v, e);
    if (obj.contains(top.key)) {
      auto m = std::find(top.merged.begin(), top.merged.end(), top.key);
      if (m == top.merged.end())
        return where(e) + fmt::format(": mapping key \"{}\" already defined", top.key);
      top.merged.erase(m);  // an explicit key overrides a merged one
      obj[top.key] = std::move(v);
      return {};
    }
    obj.emplace(top.key, std::move(v));
    return {};
  }

  // `<<: *anchor` or `<<: [*a, *b]`: keys already present win, earlier sources win.
  std::string merge(Frame& frame, const json::value& from, fy_event* e) {
    json::object& into = frame.value.get_object();
    auto merge_one = [&](const json::value& src) -> bool {
      if (!src.is_object()) return false;
      for (const auto& kv : src.get_object()) {
        if (into.contains(kv.key())) continue;
        into.emplace(kv.key(), kv.value());
        frame.merged.emplace_back(kv.key());
      }
      return true;
    };
    if (from.is_array()) {
      for (const auto& item : from.get_array())
        if (!merge_one(item)) return where(e) + ": a `<<` merge list must hold only mappings";
      return {};
    }
    if (!merge_one(from)) return where(e) + ": a `<<` merge value must be a mapping";
    return {};
  }

  std::string name_;
  std::string_view source_;  // the stream libfyaml reads, for quoted scalars' source text
  json::storage_ptr sp_;
  std::string text_buffer_;  // a decoded quoted scalar's text, until the next one
  std::vector<Frame> stack_;
  std::unordered_map<std::string, Anchor> anchors_;
  size_t alias_uses_ = 0;
  size_t alias_bytes_ = 0;
  std::optional<json::value> root_;
};

}  // namespace

Result<std::vector<YamlDocument>> read_yaml_libfyaml(std::string_view text, std::string_view name,
                                                     const json::storage_ptr& sp) {
  fy_diag_cfg dcfg;
  fy_diag_cfg_default(&dcfg);
  dcfg.fp = nullptr;
  std::unique_ptr<fy_diag, DiagDeleter> diag(fy_diag_create(&dcfg));
  // Collected, never displayed: libfyaml 0.7.12's display of an error on a long line reads out of
  // bounds (found by fuzzing, tests/data/bad/66-long-line-error.yaml).
  if (!diag) return Error{fmt::format("{}: cannot create a YAML parser", name)};
  fy_diag_set_collect_errors(diag.get(), true);

  fy_parse_cfg cfg{};
  cfg.flags = static_cast<fy_parse_cfg_flags>(FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_2 |
                                              FYPCF_SLOPPY_FLOW_INDENTATION | FYPCF_JSON_NONE);
  cfg.diag = diag.get();
  std::unique_ptr<fy_parser, ParserDeleter> parser(fy_parser_create(&cfg));
  if (!parser) return Error{fmt::format("{}: cannot create a YAML parser", name)};
  if (fy_parser_set_string(parser.get(), text.data(), text.size()) != 0)
    return Error{fmt::format("{}: cannot read the input", name)};

  std::vector<YamlDocument> docs;
  Builder builder(name, text, sp);
  YamlDocument current;
  while (fy_event* e = fy_parser_parse(parser.get())) {
    std::string err;
    if (e->type == FYET_DOCUMENT_START) {
      builder.reset();
      current = YamlDocument{};
      const fy_mark* m = fy_event_start_mark(e);
      current.line = m ? m->line + 1 : 0;
    } else if (e->type == FYET_DOCUMENT_END) {
      docs.push_back(
          YamlDocument{builder.take_root(), current.line, std::move(current.item_lines)});
    } else {
      err = builder.on_event(e, current);
    }
    fy_parser_event_free(parser.get(), e);
    if (!err.empty()) return Error{err};
  }
  if (fy_parser_get_stream_error(parser.get())) {
    // The first error libfyaml collected: "LINE:COL: message".
    std::string first;
    void* iter = nullptr;
    while (fy_diag_error* e = fy_diag_errors_iterate(diag.get(), &iter)) {
      if (e->type < FYET_ERROR) continue;
      first = fmt::format("{}:{}: {}", e->line, e->column, e->msg ? e->msg : "malformed YAML");
      break;
    }
    if (first.empty()) first = "malformed YAML";
    // libfyaml 0.7.12 may leave its indentation stack broken when it stops on a tab before a
    // block entry (`? a:<TAB>|`, an explicit key whose value starts after a tab: found by
    // kubeconfig_fuzz), and destroying the parser then writes through a null pointer. Such a
    // parser is not destroyed: its memory (about 8 KiB) is the price of not crashing, paid only
    // for this error (docs/limits.md, fuzz/lsan.supp). Every other parser is destroyed.
    if (first.find("cannot use tab for indentation of block entry") != std::string::npos) {
      fy_parser* stopped = parser.release();
      (void)stopped;
    }
    // A bracket that is never closed is found where the stream ends or the next block starts;
    // the user needs the line where it opened.
    auto open = builder.open_flow();
    if (open && open->line < std::atoi(first.c_str()))
      return Error{fmt::format("{}:{}:{}: this `{}` is not closed (the reader stopped at {}:{})",
                               name, open->line, open->column, open->bracket, name, first)};
    return Error{fmt::format("{}:{}", name, first)};
  }
  return docs;
}

}  // namespace planter
