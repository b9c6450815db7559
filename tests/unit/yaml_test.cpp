#include "model/yaml.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sanitized.h"
#include "shared_dir.h"

namespace planter {
namespace {

namespace json = boost::json;

json::value one(const std::string& text) {
  auto docs = parse_yaml_stream(text, "t.yaml");
  EXPECT_TRUE(docs.ok()) << (docs.ok() ? "" : docs.error().message);
  return docs.ok() && !docs->empty() ? docs->front().value : json::value{};
}

TEST(Yaml, ResolvesScalarsLikeKubectl) {
  json::value v =
      one("eq: =\nyes_: yes\nhex: 0x1F\noct: 0o17\nint: -42\nfloat: 1.5\nexp: 1e3\nnull_: ~\n"
          "t: true\nquoted: \"8080\"\nsingle: 'true'\nplain: hello world\nempty:\n");
  const json::object& o = v.as_object();
  EXPECT_EQ(o.at("eq"), json::value("="));
  EXPECT_EQ(o.at("yes_"), json::value(true));  // go-yaml v2, as kubectl reads it
  EXPECT_EQ(o.at("hex"), json::value(31));
  EXPECT_EQ(o.at("oct"), json::value(15));
  EXPECT_EQ(o.at("int"), json::value(-42));
  EXPECT_EQ(o.at("float"), json::value(1.5));
  EXPECT_EQ(o.at("exp"), json::value(1000.0));
  EXPECT_TRUE(o.at("null_").is_null());
  EXPECT_EQ(o.at("t"), json::value(true));
  EXPECT_EQ(o.at("quoted"), json::value("8080"));
  EXPECT_EQ(o.at("single"), json::value("true"));
  EXPECT_EQ(o.at("plain"), json::value("hello world"));
  EXPECT_TRUE(o.at("empty").is_null());
}

// Core tags say the type: PyYAML's all-quoted style writes `!!int "1"`, which is 1, not "1".
TEST(Yaml, CoreTagsOnQuotedScalarsAreHonoured) {
  json::value v = one(
      "i: !!int \"1\"\nb: !!bool \"true\"\nnil: !!null \"null\"\nf: !!float \"1.5\"\nw: !!float "
      "'2'\ns: !!str 1\nl: !<tag:yaml.org,2002:int> '7'\n");
  const json::object& o = v.as_object();
  EXPECT_EQ(o.at("i"), json::value(1));
  EXPECT_EQ(o.at("b"), json::value(true));
  EXPECT_TRUE(o.at("nil").is_null());
  EXPECT_EQ(o.at("f"), json::value(1.5));
  EXPECT_EQ(o.at("w"), json::value(2.0));
  EXPECT_EQ(o.at("s"), json::value("1"));
  EXPECT_EQ(o.at("l"), json::value(7));
  auto bad = parse_yaml_stream("replicas: !!int \"one\"\n", "seed.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("seed.yaml:1:"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("\"one\" is tagged !!int but is not one"), std::string::npos)
      << bad.error().message;
}

// Where YAML 1.1 (kubectl's go-yaml v2) and 1.2 differ, planter reads as kubectl: booleans of
// YAML 1.1, Go's integers (a leading 0 is octal, `_` dropped), and no base 60 (docs/yaml.md).
TEST(Yaml, Yaml11ScalarsReadAsKubectlReadsThem) {
  json::value v =
      one("a: yes\nb: Off\nc: y\nd: N\ne: 010203\nf: 0777\ng: 1_000\nh: 0b101\ni: -0x1F\nj: 1:20\n"
          "k: 2024-01-02\nl: 08\nm: +1\n");
  const json::object& o = v.as_object();
  EXPECT_EQ(o.at("a"), json::value(true));
  EXPECT_EQ(o.at("b"), json::value(false));
  EXPECT_EQ(o.at("c"), json::value(true));
  EXPECT_EQ(o.at("d"), json::value(false));
  EXPECT_EQ(o.at("e"), json::value(4227));
  EXPECT_EQ(o.at("f"), json::value(511));
  EXPECT_EQ(o.at("g"), json::value(1000));
  EXPECT_EQ(o.at("h"), json::value(5));
  EXPECT_EQ(o.at("i"), json::value(-31));
  EXPECT_EQ(o.at("j"), json::value("1:20"));
  EXPECT_EQ(o.at("k"), json::value("2024-01-02"));
  EXPECT_EQ(o.at("l"), json::value(8.0));
  EXPECT_EQ(o.at("m"), json::value(1));
}

// What planter writes, YAML 1.1 readers (PyYAML, go-yaml v2) read as written: floats with a '.'
// and a signed exponent, `<<` and long keys quoted or explicit, never a block scalar as a key,
// characters YAML 1.1 breaks lines at escaped.
TEST(Yaml, WritesWhatYaml11ReadersReadBack) {
  json::object o{{"small", 0.005},   {"big", 1e20},        {"whole", 2.0},
                 {"<<", "merge?"},   {"line\nbreak", "k"}, {"nel", "a\u0085b"},
                 {"ls", "a\u2028b"}, {"bom", "\ufeffx"},   {"date", "2024-01-02"},
                 {"octal", "010"},   {"eq", "="},          {std::string(1100, 'k'), "long key"}};
  json::value v = o;
  std::string text = to_yaml(v);
  for (const char* want :
       {"small: 0.005\n", "big: 1.0e+20\n", "whole: 2.0\n", "\"<<\": merge?\n",
        "\"line\\nbreak\": k\n", "nel: \"a\\Nb\"\n", "ls: \"a\\Lb\"\n", "bom: \"\\uFEFFx\"\n",
        "date: \"2024-01-02\"\n", "octal: \"010\"\n", "eq: \"=\"\n"})
    EXPECT_NE(text.find(want), std::string::npos) << want << " in\n" << text;
  EXPECT_NE(text.find("? " + std::string(1100, 'k') + "\n: long key\n"), std::string::npos);
  auto back = parse_yaml_stream(text, "out.yaml");
  ASSERT_TRUE(back.ok()) << back.error().message << "\n" << text;
  EXPECT_EQ(back->at(0).value, v) << text;
}

TEST(Yaml, ExplicitStringTagKeepsText) {
  EXPECT_EQ(one("a: !!str 123\n").as_object().at("a"), json::value("123"));
}

TEST(Yaml, AnchorsAliasesAndMergeKeys) {
  json::value v =
      one("base: &b {x: 1, z: 2}\n"
          "copy: *b\n"
          "merged:\n  <<: *b\n  z: 3\n");
  const json::object& o = v.as_object();
  EXPECT_EQ(o.at("copy"), o.at("base"));
  EXPECT_EQ(o.at("merged").as_object().at("x"), json::value(1));
  EXPECT_EQ(o.at("merged").as_object().at("z"), json::value(3));  // own key wins
}

TEST(Yaml, OnlyAPlainLessLessIsAMergeKey) {
  json::value v =
      one("base: &b {x: 1}\n"
          "plain: {<<: *b}\n"
          "quoted: {\"<<\": *b}\n"
          "tagged: {!!str <<: 2}\n");
  const json::object& o = v.as_object();
  EXPECT_EQ(o.at("plain"), o.at("base"));
  EXPECT_EQ(o.at("quoted").as_object().at("<<"), o.at("base"));
  EXPECT_EQ(o.at("tagged").as_object().at("<<"), json::value(2));
}

// As kubectl (sigs.k8s.io/yaml over go-yaml v2) makes JSON keys of keys that are not strings: the
// text of the value they resolve to, so `y:` and `Off:` are "true" and "false", `0x1F:` is "31".
TEST(Yaml, NonStringKeysBecomeTextAsKubectlWritesThem) {
  json::value v = one("8080: http\ntrue: yes\nOff: 2\n0x1F: a\n010: b\n1.5: c\n");
  const json::object& o = v.as_object();
  EXPECT_EQ(o.at("8080"), json::value("http"));
  EXPECT_EQ(o.at("true"), json::value(true));
  EXPECT_EQ(o.at("false"), json::value(2));
  EXPECT_EQ(o.at("31"), json::value("a"));
  EXPECT_EQ(o.at("8"), json::value("b"));
  EXPECT_EQ(o.at("1.5"), json::value("c"));
  EXPECT_EQ(one("y: 1\n").as_object().at("true"), json::value(1));
  // Quoted, a key is the string it spells.
  EXPECT_EQ(one("\"y\": 1\n").as_object().at("y"), json::value(1));
}

TEST(Yaml, DuplicateKeyIsAnErrorWithItsLine) {
  auto docs = parse_yaml_stream("a: 1\nb: 2\na: 3\n", "dup.yaml");
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.error().message.find("dup.yaml:3:"), std::string::npos) << docs.error().message;
  EXPECT_NE(docs.error().message.find("\"a\" already defined"), std::string::npos);
}

// Found by kubeconfig_fuzz: libfyaml 0.7.12 stops on an explicit key whose value starts after a
// tab with its indentation stack broken; destroying that parser crashed. Each variant is an
// error, read again and again (the operator reads a bad Seed on every retry).
TEST(Yaml, AParserThatStoppedOnMalformedInputDoesNotCrashPlanter) {
  for (int round = 0; round < 3; ++round)
    for (const char* text :
         {"? a:\t|", "\n? eu#:\t|", "k:\n  ? a:\t|\n", "? a:\t- |", "? a:  \t>"}) {
      auto docs = parse_yaml_stream(text, "tab.yaml");
      ASSERT_FALSE(docs.ok()) << text;
      EXPECT_EQ(docs.error().message.rfind("tab.yaml:", 0), 0u) << docs.error().message;
    }
  EXPECT_TRUE(parse_yaml_stream("a: 1\n", "fine.yaml").ok()) << "and the next stream reads";
}

// Every other parser that stops on malformed input is destroyed: reading 20,000 malformed streams
// (as an operator retrying a bad Seed would, for days) keeps memory flat. Kept parsers took about
// 8 KiB each: 160 MiB here.
TEST(Yaml, MalformedInputIsReadAgainAndAgainInFlatMemory) {
  auto resident_kib = [] {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return 0L;
  };
  for (int i = 0; i < 2000; ++i) (void)parse_yaml_stream("a: [b\nc: 'd\n", "warm.yaml");
  long before = resident_kib();
  for (int i = 0; i < 20000; ++i) {
    auto docs = parse_yaml_stream(i % 2 ? "a: [b\nc: 'd\n" : "a:\n\t- b\n", "bad.yaml");
    ASSERT_FALSE(docs.ok());
  }
  long grown = resident_kib() - before;
  EXPECT_LT(grown, (testing::kSanitized ? 300 : 16) * 1024) << grown << " KiB";
}

TEST(Yaml, MalformedInputNamesFileLineAndColumn) {
  auto docs = parse_yaml_stream("a: 1\nb: \"open\n", "broken.yaml");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.error().message.rfind("broken.yaml:", 0), 0u) << docs.error().message;
  EXPECT_EQ(docs.error().message.find("<memory"), std::string::npos) << docs.error().message;
}

std::string error_of(const std::string& text) {
  auto docs = parse_yaml_stream(text, "hostile.yaml");
  return docs.ok() ? "(accepted)" : docs.error().message;
}

TEST(Yaml, NestingDeeperThanTheLimitIsAnErrorNotACrash) {
  for (size_t levels : {kYamlMaxDepth + 1, size_t{200'000}}) {
    std::string flow = "a: " + std::string(levels, '[') + std::string(levels, ']') + "\n";
    EXPECT_NE(error_of(flow).find("nest deeper than 1000 levels"), std::string::npos)
        << error_of(flow).substr(0, 200);
  }
  std::string block;
  for (size_t i = 0; i < 5000; ++i) block += std::string(i, ' ') + "k:\n";
  EXPECT_NE(error_of(block).find("nest deeper than 1000 levels"), std::string::npos);
  // At the limit, both readers still read it.
  std::string at_limit = std::string(kYamlMaxDepth, '[') + std::string(kYamlMaxDepth, ']') + "\n";
  EXPECT_EQ(error_of(at_limit), "(accepted)");
}

TEST(Yaml, BillionLaughsStopsAtTheAliasBudget) {
  std::string text = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    text += fmt::format("{}: &{} [", c, c);
    for (int i = 0; i < 9; ++i)
      text += fmt::format("{}*{}", i ? ", " : "", static_cast<char>(c - 1));
    text += "]\n";
  }
  std::string err = error_of(text);
  EXPECT_NE(err.find("aliases expand to more than"), std::string::npos) << err;
  EXPECT_EQ(err.rfind("hostile.yaml:", 0), 0u) << err;
  // A few thousand ordinary aliases are fine.
  std::string many = "base: &b {x: 1}\nall:\n";
  for (int i = 0; i < 5000; ++i) many += "- *b\n";
  EXPECT_EQ(error_of(many), "(accepted)");
}

TEST(Yaml, InvalidUtf8IsReportedWithItsLineNeverHangs) {
  EXPECT_EQ(error_of("%\xfb"), "hostile.yaml:1:2: byte 0xFB is not UTF-8; save the file as UTF-8");
  EXPECT_EQ(error_of("a: 1\nb: caf\xc3\n"),
            "hostile.yaml:2:7: byte 0xC3 is not UTF-8; save the file as UTF-8");
  EXPECT_EQ(error_of("a: \xed\xa0\x80\n").substr(0, 25), "hostile.yaml:1:4: byte 0x");
  EXPECT_EQ(error_of("a: caf\xc3\xa9\n"), "(accepted)");
}

TEST(Yaml, AnUnclosedBracketIsReportedWhereItOpened) {
  std::string err = error_of("a: 1\nb: [1, 2,\n  c: 3\n\nd: 4\n");
  EXPECT_EQ(err.rfind("hostile.yaml:2:4: this `[` is not closed", 0), 0u) << err;
  err = error_of("a: {x: 1,\n\n\n");
  EXPECT_EQ(err.rfind("hostile.yaml:1:4: this `{` is not closed", 0), 0u) << err;
}

TEST(Yaml, DocumentsRememberTheirLines) {
  auto docs = parse_yaml_stream(
      "# comment\n---\n# another\na: 1\n---\n---\nkind: List\nitems:\n- x: 1\n-   y: 2\n",
      "s.yaml");
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->size(), 3u);
  EXPECT_EQ((*docs)[0].line, 4);
  EXPECT_TRUE((*docs)[1].value.is_null());  // empty document
  EXPECT_EQ((*docs)[2].line, 7);
  EXPECT_EQ((*docs)[2].item_lines, (std::vector<int>{9, 10}));
}

TEST(Yaml, WritesStringsThatReadBackAsStrings) {
  json::value v = json::object{
      {"port", "8080"},    {"flag", "true"},        {"eq", "="},      {"n", 3}, {"empty", ""},
      {"multi", "a\nb\n"}, {"list", json::array{}}, {"null", nullptr}};
  std::string text = to_yaml(v);
  auto back = parse_yaml_stream(text, "out.yaml");
  ASSERT_TRUE(back.ok()) << text;
  EXPECT_EQ(back->front().value, v) << text;
}

// planter reads YAML 1.2, but kubectl and PyYAML read YAML 1.1: what planter writes is quoted
// wherever the two would differ, so a string stays a string for every reader.
TEST(Yaml, WritesStringsThatYaml11ReadsOtherwiseQuoted) {
  json::value v =
      json::object{{"a", "on"},    {"b", "yes"},   {"c", "N"},     {"d", "1:20"},   {"e", "1_000"},
                   {"f", "0b101"}, {"g", "hello"}, {"h", "1.2.3"}, {"i", "on-call"}};
  std::string text = to_yaml_stream({&v});
  for (const char* quoted :
       {"a: \"on\"", "b: \"yes\"", "c: \"N\"", "d: \"1:20\"", "e: \"1_000\"", "f: \"0b101\""})
    EXPECT_NE(text.find(quoted), std::string::npos) << quoted << " in\n" << text;
  for (const char* plain : {"g: hello", "h: 1.2.3", "i: on-call"})
    EXPECT_NE(text.find(plain), std::string::npos) << plain << " in\n" << text;
  auto back = parse_yaml_stream(text, "out.yaml");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->front().value, v);
}

TEST(Yaml, StreamRoundTrip) {
  json::value a = json::object{{"kind", "A"}};
  json::value b = json::object{{"kind", "B"}};
  std::string text = to_yaml_stream({&a, &b});
  auto back = parse_yaml_stream(text, "out.yaml");
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[1].value, b);
}

}  // namespace
}  // namespace planter

namespace planter {
namespace {

// Everything planter writes (annotate, plugin input) must read back as the same objects: checked
// on every real-world manifest of the corpus.
TEST(Yaml, CorpusRoundTripsThroughTheWriter) {
  namespace fs = std::filesystem;
  fs::path corpus = fs::path(PLANTER_SHARED_DIR) / "corpus";
  REQUIRE_SHARED(corpus);
  size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(corpus)) {
    if (e.path().extension() != ".yaml") continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    auto docs = parse_yaml_stream(text.str(), e.path().string());
    ASSERT_TRUE(docs.ok()) << docs.error().message;
    std::vector<const json::value*> values;
    for (const auto& d : docs.value())
      if (!d.value.is_null()) values.push_back(&d.value);
    std::string written = to_yaml_stream(values);
    auto back = parse_yaml_stream(written, "written");
    ASSERT_TRUE(back.ok()) << e.path() << ": " << back.error().message;
    ASSERT_EQ(back->size(), values.size()) << e.path();
    for (size_t i = 0; i < values.size(); ++i)
      ASSERT_EQ((*back)[i].value, *values[i]) << e.path() << " document " << i;
    ++files;
  }
  EXPECT_GE(files, 12u);
}

}  // namespace
}  // namespace planter
