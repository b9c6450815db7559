#include "plan/annotate_in_place.h"

#include <boost/json.hpp>
#include <map>
#include <optional>
#include <string_view>

#include "model/files.h"
#include "model/yaml.h"

namespace planter {

namespace {

size_t doc_indent(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[n] == ' ') ++n;
  return n;
}

// Nothing but spaces and perhaps a comment.
bool doc_blank(std::string_view line) {
  size_t n = doc_indent(line);
  return n == line.size() || line[n] == '#';
}

// What follows `key:` on a line: nothing (or a comment) for a block below it.
bool doc_block_follows(std::string_view rest) {
  return doc_blank(rest);
}

std::vector<std::string_view> doc_lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    size_t end = text.find('\n');
    out.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

// A mapping entry's key at the start of `entry` (plain, "double" or 'single' quoted), and where
// its `:` is; nullopt when it is not a `key:` line.
std::optional<std::pair<std::string, size_t>> doc_key(std::string_view entry) {
  if (entry.empty()) return std::nullopt;
  if (entry[0] == '"' || entry[0] == '\'') {
    size_t close = entry.find(entry[0], 1);
    if (close == std::string_view::npos || close + 1 >= entry.size() || entry[close + 1] != ':')
      return std::nullopt;
    return std::pair{std::string(entry.substr(1, close - 1)), close + 1};
  }
  size_t colon = entry.find(": ");
  if (colon == std::string_view::npos && entry.ends_with(':')) colon = entry.size() - 1;
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  return std::pair{std::string(entry.substr(0, colon)), colon};
}

// A value as the YAML writer writes it (plain where a reader takes it for the same string),
// else double-quoted as JSON writes it, which YAML reads the same.
std::string doc_quoted(const std::string& value) {
  std::string yaml = to_yaml(boost::json::value(value));
  if (yaml.ends_with('\n')) yaml.pop_back();
  if (yaml.find('\n') == std::string::npos && !yaml.empty()) return yaml;
  return boost::json::serialize(boost::json::value(value));
}

// An annotation's line: `key: value`.
std::string doc_entry(const std::string& indent, const std::string& key, const std::string& value) {
  return indent + key + ": " + doc_quoted(value);
}

}  // namespace

std::optional<std::string> annotate_document(std::string_view document,
                                             const std::map<std::string, std::string>& set) {
  if (set.empty()) return std::string(document);
  std::vector<std::string_view> lines = doc_lines(document);
  std::vector<std::string> out(lines.begin(), lines.end());
  // metadata: at the document's top level, in block style.
  size_t meta = lines.size();
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].starts_with("metadata:")) {
      if (!doc_block_follows(lines[i].substr(9))) return std::nullopt;
      meta = i;
      break;
    }
  if (meta == lines.size()) return std::nullopt;
  // Its children: the lines below it, indented, up to the next top-level key.
  size_t end = meta + 1, child = 0;
  for (size_t i = meta + 1; i < lines.size(); ++i) {
    if (doc_blank(lines[i])) continue;
    if (doc_indent(lines[i]) == 0) break;
    if (child == 0) child = doc_indent(lines[i]);
    end = i + 1;
  }
  if (child == 0) return std::nullopt;
  std::string pad(child, ' ');
  // Its annotations, in block style, and their entries' lines.
  size_t notes = lines.size();
  for (size_t i = meta + 1; i < end; ++i)
    if (doc_indent(lines[i]) == child && lines[i].substr(child).starts_with("annotations:")) {
      if (!doc_block_follows(lines[i].substr(child + 12))) return std::nullopt;
      notes = i;
    }
  std::vector<std::string> added;
  size_t insert_at = end;
  if (notes == lines.size()) {
    added.push_back(pad + "annotations:");
    for (const auto& [key, value] : set) added.push_back(doc_entry(pad + "  ", key, value));
  } else {
    size_t notes_end = notes + 1, entry = 0;
    for (size_t i = notes + 1; i < end; ++i) {
      if (doc_blank(lines[i])) continue;
      if (doc_indent(lines[i]) <= child) break;
      if (entry == 0) entry = doc_indent(lines[i]);
      notes_end = i + 1;
    }
    if (entry == 0) entry = child + 2;
    std::string inner(entry, ' ');
    std::map<std::string, size_t> at;  // key -> its line
    for (size_t i = notes + 1; i < notes_end; ++i)
      if (!doc_blank(lines[i]) && doc_indent(lines[i]) == entry)
        if (auto k = doc_key(lines[i].substr(entry))) at[k->first] = i;
    for (const auto& [key, value] : set) {
      auto it = at.find(key);
      if (it == at.end()) {
        added.push_back(doc_entry(inner, key, value));
        continue;
      }
      // One line only: the next line of the block is another entry (or the block's end).
      size_t i = it->second;
      for (size_t j = i + 1; j < notes_end; ++j) {
        if (doc_blank(lines[j])) continue;
        if (doc_indent(lines[j]) > entry) return std::nullopt;
        break;
      }
      std::string_view raw = lines[i].substr(entry + doc_key(lines[i].substr(entry))->second + 1);
      while (!raw.empty() && raw.front() == ' ') raw.remove_prefix(1);
      if (raw.starts_with('|') || raw.starts_with('>')) return std::nullopt;
      // The value there, read as YAML reads it: the same one is left as it is written.
      auto there = parse_yaml_stream("v: " + std::string(raw), "annotation");
      bool same = there && there->size() == 1 && there->front().value.is_object() &&
                  there->front().value.as_object().if_contains("v") &&
                  *there->front().value.as_object().if_contains("v") == boost::json::value(value);
      if (!same) out[i] = doc_entry(inner, key, value);
    }
    insert_at = notes_end;
  }
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(insert_at), added.begin(), added.end());
  std::string text;
  for (size_t i = 0; i < out.size(); ++i) {
    text += out[i];
    if (i + 1 < out.size() || document.ends_with('\n')) text += '\n';
  }
  return text;
}

std::optional<std::string> annotate_in_place(const Plan& plan, const AnnotationEdits& edits) {
  // The files, in the order their objects come, and which objects each holds.
  // Stacks change their members' bodies as they are planned: written afresh.
  if (!plan.stacks.empty()) return std::nullopt;
  std::vector<std::string> files;
  std::map<std::string, std::vector<size_t>> held;
  for (size_t i = 0; i < plan.objects.size(); ++i) {
    const SourceLocation& s = plan.objects[i].source;
    if (s.file.empty() || s.file == "-" || s.line <= 0) return std::nullopt;
    if (!held.contains(s.file)) files.push_back(s.file);
    held[s.file].push_back(i);
  }
  // What is set aside comes back with the text of its file: it must be one of them.
  for (const SetAside& a : plan.set_aside)
    if (!held.contains(a.source.file)) return std::nullopt;
  std::string out;
  for (const std::string& file : files) {
    auto text = read_file(file);
    if (!text) return std::nullopt;
    // Its documents: each one's text, and the line its content starts on.
    struct Document {
      std::string_view text;
      int first = 0;                      // 0: nothing but comments
      std::optional<std::string> edited;  // its text with the edits made, when it had any
    };
    std::vector<Document> docs;
    std::vector<std::string_view> separators;
    std::string_view all(*text);
    size_t start = 0, at = 0;
    int line = 1, start_line = 1;
    auto close = [&](size_t stop) {
      Document d{all.substr(start, stop - start)};
      int n = start_line;
      for (std::string_view l : doc_lines(d.text)) {
        if (!doc_blank(l) && !l.starts_with("%")) {
          d.first = n;
          break;
        }
        ++n;
      }
      docs.push_back(d);
    };
    while (at < all.size()) {
      size_t eol = all.find('\n', at);
      size_t next = eol == std::string_view::npos ? all.size() : eol + 1;
      std::string_view l = all.substr(at, next - at);
      if (l.starts_with("---") && (l.size() == 3 || l[3] == '\n' || l[3] == ' ' || l[3] == '\r')) {
        if (!doc_blank(l.substr(3, l.find_first_of("\r\n", 3) - 3))) return std::nullopt;
        close(at);
        separators.push_back(l);
        start = next;
        start_line = line + 1;
      }
      at = next;
      ++line;
    }
    close(all.size());
    std::map<int, size_t> starting_on;  // the line a document's content starts on -> it
    for (size_t d = 0; d < docs.size(); ++d)
      if (docs[d].first > 0) starting_on[docs[d].first] = d;
    for (size_t i : held[file]) {
      const Object& o = plan.objects[i];
      auto found = starting_on.find(o.source.line);
      if (found == starting_on.end()) return std::nullopt;  // an item of a List, or a line moved
      Document* d = &docs[found->second];
      auto read = parse_yaml_stream(d->text, file);
      if (!read || read->size() != 1 || read->front().value != boost::json::value(o.body))
        return std::nullopt;  // something changed it after it was read
      auto edited = annotate_document(d->text, edits[i]);
      if (!edited) return std::nullopt;
      d->edited = std::move(*edited);
    }
    std::string whole;
    for (size_t i = 0; i < docs.size(); ++i) {
      whole += docs[i].edited ? *docs[i].edited : docs[i].text;
      if (i < separators.size()) whole += separators[i];
    }
    if (!out.empty()) {
      if (!out.ends_with('\n')) out += '\n';
      out += "---\n";
    }
    out += whole;
  }
  return out;
}

}  // namespace planter
