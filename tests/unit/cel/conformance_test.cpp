// Cases of CEL's conformance suite (google/cel-spec, tests/simple/testdata/*.textproto), by file
// and test name, for the language subset planter evaluates: basic, comparisons, logic, string,
// parse (nest, repeat, string literals), integer_math, fp_math, conversions, lists, macros. Each
// expected value is written in Value::debug()'s form; "error" is any evaluation error, "error:X"
// one whose message holds X. The expressions are the suite's; cases that need protocol buffer
// messages, timestamps or the checker are left out (docs/cel.md).
#include <gtest/gtest.h>

#include <span>
#include <string>

#include "cel/program.h"

namespace planter::cel {
namespace {

struct Case {
  const char* name;
  const char* expr;
  const char* want;
};

std::string run(const char* expr) {
  auto program = Program::compile(expr, {});
  if (!program) return "parse-error:" + program.error().message;
  return program->evaluate({}).value.debug();
}

void check(const Case& c) {
  std::string got = run(c.expr);
  std::string want = c.want;
  if (want == "error")
    EXPECT_TRUE(got.starts_with("error:")) << c.name << ": " << c.expr << " gave " << got;
  else if (want.starts_with("error:"))
    EXPECT_TRUE(got.starts_with("error:") && got.find(want.substr(6)) != std::string::npos)
        << c.name << ": " << c.expr << " gave " << got;
  else if (want == "parse-error")
    EXPECT_TRUE(got.starts_with("parse-error:")) << c.name << ": " << c.expr << " gave " << got;
  else
    EXPECT_EQ(got, want) << c.name << ": " << c.expr;
}

const Case kBasic[] = {
    {"self_eval_int_zero", "0", "int:0"},
    {"self_eval_uint_zero", "0u", "uint:0"},
    {"self_eval_double_zero", "0.0", "double:0"},
    {"self_eval_double_zerowithexp", "0e+0", "double:0"},
    {"self_eval_string_empty", "''", "string:\"\""},
    {"self_eval_string_empty_quotes", "\"\"", "string:\"\""},
    {"self_eval_string_raw_prefix", "r\"\"", "string:\"\""},
    {"self_eval_byte_empty", "b\"\"", "bytes:\"\""},
    {"self_eval_bool_false", "false", "bool:false"},
    {"self_eval_null", "null", "null"},
    {"self_eval_empty_list", "[]", "list:[]"},
    {"self_eval_empty_map", "{}", "map:{}"},
    {"self_eval_int_nonzero", "17", "int:17"},
    {"self_eval_uint_nonzero", "123456789u", "uint:123456789"},
    {"self_eval_int_negative_min", "-9223372036854775808", "int:-9223372036854775808"},
    {"self_eval_double_negative_exp", "-2.3e+1", "double:-23"},
    {"self_eval_string_excl", "\"!\"", "string:\"!\""},
    {"self_eval_string_escape", "'\\''", "string:\"'\""},
    {"self_eval_binary_escape", "b'\\u00FF'", "bytes:\"\xC3\xBF\""},
    {"self_eval_list_singleitem", "[-1]", "list:[int:-1]"},
    {"self_eval_map_singleitem", "{\"k\":\"v\"}", "map:{string:\"k\": string:\"v\"}"},
    {"self_eval_bool_true", "true", "bool:true"},
};

const Case kComparisons[] = {
    {"self_test_equals_int64", "1 == 1", "bool:true"},
    {"self_test_not_equals_int64", "-1 == 1", "bool:false"},
    {"self_test_equals_uint64", "2u == 2u", "bool:true"},
    {"self_test_not_equals_uint64", "1u == 2u", "bool:false"},
    {"self_test_equals_float", "1.0 == 1.0e+0", "bool:true"},
    {"self_test_not_equals_float", "-1.0 == 1.0", "bool:false"},
    {"self_test_equals_string", "'' == \"\"", "bool:true"},
    {"self_test_not_equals_string", "'a' == 'b'", "bool:false"},
    {"self_test_equals_string_raw", "'abc' == r'abc'", "bool:true"},
    {"self_test_not_equals_case", "'abc' == 'ABC'", "bool:false"},
    {"self_test_equals_null", "null == null", "bool:true"},
    {"self_test_equals_bool", "true == true", "bool:true"},
    {"self_test_not_equals_bool", "false == true", "bool:false"},
    {"self_test_equals_byte", "b'\\u00FF' == b'\303\277'", "bool:true"},
    {"self_test_not_equals_byte", "b'abc' == b'abcd'", "bool:false"},
    {"self_test_equals_list_empty", "[] == []", "bool:true"},
    {"self_test_equals_list_numbers", "[1, 2, 3] == [1, 2, 3]", "bool:true"},
    {"self_test_not_equals_list_order", "[1, 2, 3] == [1, 3, 2]", "bool:false"},
    {"self_test_not_equals_list_string_case", "['case'] == ['cAse']", "bool:false"},
    {"self_test_equals_map_empty", "{} == {}", "bool:true"},
    {"self_test_equals_map_onekey", "{'k':'v'} == {\"k\":\"v\"}", "bool:true"},
    {"self_test_equals_map_floatvalue", "{'k':1.0} == {'k':1e+0}", "bool:true"},
    {"self_test_not_equals_map_value", "{'k':'v'} == {'k':'v1'}", "bool:false"},
    {"self_test_not_equals_map_extrakey", "{'k':'v','k1':'v1'} == {'k':'v'}", "bool:false"},
    {"self_test_equals_map_keyorder", "{'k1':'v1','k2':'v2'} == {'k2':'v2','k1':'v1'}",
     "bool:true"},
    {"self_test_not_equals_map_key_casing", "{'key':'value'} == {'Key':'value'}", "bool:false"},
    {"self_test_ne_int64", "24 != 42", "bool:true"},
    {"self_test_not_ne_int64", "1 != 1", "bool:false"},
    {"self_test_ne_uint64", "1u != 2u", "bool:true"},
    {"self_test_not_ne_uint64", "99u != 99u", "bool:false"},
    {"self_test_ne_float", "9.0e+3 != 9001.0", "bool:true"},
    {"self_test_not_ne_float", "1.0 != 1e+0", "bool:false"},
    {"self_test_ne_string", "'abc' != ''", "bool:true"},
    {"self_test_not_ne_string", "'abc' != 'abc'", "bool:false"},
    {"self_test_ne_bytes", "b'\\x00\\xFF' != b'\\u00FF'", "bool:true"},
    {"self_test_not_ne_bytes", "b'\303\277' != b'\\u00FF'", "bool:false"},
    {"self_test_ne_bool", "false != true", "bool:true"},
    {"self_test_not_ne_bool", "true != true", "bool:false"},
    {"self_test_not_ne_null", "null != null", "bool:false"},
    {"self_test_ne_list_empty", "[] != [1]", "bool:true"},
    {"self_test_not_ne_list_empty", "[] != []", "bool:false"},
    {"self_test_ne_list_bool", "[true, false, true] != [true, true, false]", "bool:true"},
    {"self_test_not_ne_list_bool", "[false, true] != [false, true]", "bool:false"},
    {"self_test_not_ne_list_of_list", "[[]] != [[]]", "bool:false"},
    {"self_test_ne_map_by_value", "{'k':'v'} != {'k':'v1'}", "bool:true"},
    {"self_test_ne_map_by_key", "{'k':true} != {'k1':true}", "bool:true"},
    {"self_test_not_ne_map_int_to_float", "{1:1.0} != {1:1.0}", "bool:false"},
    {"self_test_not_ne_map_key_order", "{'a':'b','c':'d'} != {'c':'d','a':'b'}", "bool:false"},
    {"self_test_lt_int64", "-1 < 0", "bool:true"},
    {"self_test_not_lt_int64", "0 < 0", "bool:false"},
    {"self_test_lt_uint64", "0u < 1u", "bool:true"},
    {"self_test_not_lt_uint64", "2u < 2u", "bool:false"},
    {"self_test_lt_float", "1.0 < 1.0000001", "bool:true"},
    {"self_test_not_lt_float", "-0.0 < 0.0", "bool:false"},
    {"self_test_lt_string", "'a' < 'b'", "bool:true"},
    {"self_test_lt_string_case", "'Abc' < 'aBC'", "bool:true"},
    {"self_test_lt_string_length", "'abc' < 'abcd'", "bool:true"},
    {"self_test_lt_string_acute", "'a' < '\xC3\xA1'", "bool:true"},
    {"self_test_not_lt_string_empty", "'' < ''", "bool:false"},
    {"self_test_not_lt_string_same", "'abc' < 'abc'", "bool:false"},
    {"self_test_not_lt_string_case_length", "'a' < 'AB'", "bool:false"},
    {"self_test_lt_bytes", "b'a' < b'b'", "bool:true"},
    {"self_test_not_lt_bytes_same", "b'abc' < b'abc'", "bool:false"},
    {"self_test_not_lt_bytes_width", "b'\xC3\xA1' < b'b'", "bool:false"},
    {"self_test_lt_bool_false_first", "false < true", "bool:true"},
    {"self_test_not_lt_bool_same", "true < true", "bool:false"},
    {"self_test_not_lt_bool_true_first", "true < false", "bool:false"},
    {"self_test_lt_list_unsupported", "[0] < [1]", "error:no such overload"},
    {"self_test_lt_map_unsupported", "{0:'a'} < {1:'b'}", "error:no such overload"},
    {"self_test_lt_null_unsupported", "null < null", "error:no such overload"},
    {"self_test_gt_int64", "42 > -42", "bool:true"},
    {"self_test_not_gt_int", "0 > 0", "bool:false"},
    {"self_test_gt_float", "1e+1 > 1e+0", "bool:true"},
    {"self_test_not_gt_float", ".99 > 9.9e-1", "bool:false"},
    {"self_test_gt_string_case", "'abc' > 'aBc'", "bool:true"},
    {"self_test_gt_string_to_empty", "'A' > ''", "bool:true"},
    {"self_test_not_gt_string_empty_to_empty", "'' > ''", "bool:false"},
    {"self_test_gt_bytes_one", "b'\\x01' > b'\\x00'", "bool:true"},
    {"self_test_gt_bytes_one_to_empty", "b'\\x00' > b''", "bool:true"},
    {"self_test_not_gt_bytes_sorting", "b'\\x00\\x01' > b'\\x01'", "bool:false"},
    {"self_test_gt_bool_true_false", "true > false", "bool:true"},
    {"self_test_not_gt_bool_false_true", "false > true", "bool:false"},
    {"self_test_not_gt_bool_same", "true > true", "bool:false"},
    {"self_test_gt_null_unsupported", "null > null", "error:no such overload"},
    {"self_test_gt_list_unsupported", "[1] > [0]", "error:no such overload"},
    {"self_test_gt_map_unsupported", "{1:'b'} > {0:'a'}", "error:no such overload"},
    // Heterogeneous numbers (the suite's "eq_mixed_types", "lt_mixed_types" sections).
    {"eq_int_double", "1 == 1.0", "bool:true"},
    {"eq_int_uint", "1 == 1u", "bool:true"},
    {"ne_int_string", "1 != '1'", "bool:true"},
    {"lt_int_double", "1 < 1.5", "bool:true"},
    {"lt_uint_int", "1u < -1", "bool:false"},
    {"gt_double_uint", "2.5 > 2u", "bool:true"},
    {"in_list_mixed", "1.0 in [1, 2]", "bool:true"},
    {"map_key_double", "{1: 'a'}[1.0]", "string:\"a\""},
    {"nan_not_equal", "double('NaN') == double('NaN')", "bool:false"},
    {"nan_not_lt", "double('NaN') < 1.0", "bool:false"},
};

const Case kLogic[] = {
    {"conditional/true_case", "true ? 1 : 2", "int:1"},
    {"conditional/false_case", "false ? 'foo' : 'bar'", "string:\"bar\""},
    {"conditional/error_case", "2 / 0 > 4 ? 'baz' : 'quux'", "error:division by zero"},
    {"conditional/mixed_type", "true ? 'cows' : 17", "string:\"cows\""},
    {"conditional/bad_type", "'cows' ? false : 17", "error:no such overload"},
    {"AND/all_true", "true && true", "bool:true"},
    {"AND/all_false", "false && false", "bool:false"},
    {"AND/false_left", "false && true", "bool:false"},
    {"AND/false_right", "true && false", "bool:false"},
    {"AND/short_circuit_type_left", "false && 32", "bool:false"},
    {"AND/short_circuit_type_right", "'horses' && false", "bool:false"},
    {"AND/short_circuit_error_left", "false && (2 / 0 > 3 ? false : true)", "bool:false"},
    {"AND/short_circuit_error_right", "(2 / 0 > 3 ? false : true) && false", "bool:false"},
    {"AND/error_right", "true && 1/0 != 0", "error"},
    {"AND/error_left", "1/0 != 0 && true", "error"},
    {"AND/no_overload", "'less filling' && 'tastes great'", "error:no such overload"},
    {"OR/all_true", "true || true", "bool:true"},
    {"OR/all_false", "false || false", "bool:false"},
    {"OR/false_left", "false || true", "bool:true"},
    {"OR/false_right", "true || false", "bool:true"},
    {"OR/short_circuit_type_left", "true || 32", "bool:true"},
    {"OR/short_circuit_type_right", "'horses' || true", "bool:true"},
    {"OR/short_circuit_error_left", "true || (2 / 0 > 3 ? false : true)", "bool:true"},
    {"OR/short_circuit_error_right", "(2 / 0 > 3 ? false : true) || true", "bool:true"},
    {"OR/error_right", "false || 1/0 != 0", "error"},
    {"OR/error_left", "1/0 != 0 || false", "error"},
    {"OR/no_overload", "'less filling' || 'tastes great'", "error:no such overload"},
    {"NOT/not_true", "!true", "bool:false"},
    {"NOT/not_false", "!false", "bool:true"},
    {"NOT/no_overload", "!0", "error:no such overload"},
};

const Case kString[] = {
    {"size/empty", "size('')", "int:0"},
    {"size/one_ascii", "size('A')", "int:1"},
    {"size/one_unicode", "size('\xC3\xBF')", "int:1"},
    {"size/ascii", "size('four')", "int:4"},
    {"size/unicode", "size('\xCF\x80\xE1\xBD\xB3\xCE\xBD\xCF\x84\xCE\xB5')", "int:5"},
    {"starts_with/basic_true", "'foobar'.startsWith('foo')", "bool:true"},
    {"starts_with/basic_false", "'foobar'.startsWith('bar')", "bool:false"},
    {"starts_with/empty_target", "''.startsWith('foo')", "bool:false"},
    {"starts_with/empty_arg", "'foobar'.startsWith('')", "bool:true"},
    {"starts_with/empty_empty", "''.startsWith('')", "bool:true"},
    {"ends_with/basic_true", "'foobar'.endsWith('bar')", "bool:true"},
    {"ends_with/basic_false", "'foobar'.endsWith('foo')", "bool:false"},
    {"ends_with/empty_target", "''.endsWith('foo')", "bool:false"},
    {"ends_with/empty_arg", "'foobar'.endsWith('')", "bool:true"},
    {"ends_with/unicode", "'fort\xC3\xA9'.endsWith('t\xC3\xA9')", "bool:true"},
    {"matches/basic", "'hubba'.matches('ubb')", "bool:true"},
    {"matches/empty_target", "''.matches('foo|bar')", "bool:false"},
    {"matches/empty_arg", "'cows'.matches('')", "bool:true"},
    {"matches/empty_empty", "''.matches('')", "bool:true"},
    {"matches/re_concat", "'abcd'.matches('bc')", "bool:true"},
    {"matches/re_alt", "'grey'.matches('gr(a|e)y')", "bool:true"},
    {"matches/re_rep", "'banana'.matches('ba(na)*')", "bool:true"},
    {"matches/unicode",
     "'ma\xC3\xB1"
     "ana'.matches('a+\xC3\xB1+a+')",
     "bool:true"},
    {"matches/global", "matches('hubba', 'ubb')", "bool:true"},
    {"concatentation/concat_true", "'he' + 'llo'", "string:\"hello\""},
    {"concatentation/concat_with_spaces", "'hello' + ' ' == 'hello'", "bool:false"},
    {"concatentation/concat_empty_string_beginning", "'' + 'abc'", "string:\"abc\""},
    {"concatentation/concat_empty_string_end", "'abc' + ''", "string:\"abc\""},
    {"concatentation/concat_empty_with_empty", "'' + ''", "string:\"\""},
    {"concatentation/ascii_unicode", "'r' + '\xC3\xB4' + 'le'", "string:\"r\xC3\xB4le\""},
    {"contains/contains_true", "'hello'.contains('he')", "bool:true"},
    {"contains/contains_empty", "'hello'.contains('')", "bool:true"},
    {"contains/contains_false", "'hello'.contains('ol')", "bool:false"},
    {"contains/contains_multiple", "'abababc'.contains('ababc')", "bool:true"},
    {"contains/contains_unicode",
     "'Stra\xC3\x9F"
     "e'.contains('a\xC3\x9F')",
     "bool:true"},
    {"bytes_concat", "b'abc' + b'def'", "bytes:\"abcdef\""},
    {"size_bytes", "size(b'\xC3\xBF')", "int:2"},
};

const Case kParse[] = {
    {"nest/funcall", "int(uint(int(uint(int(uint(int(uint(int(uint(int(uint(7))))))))))))",
     "int:7"},
    {"nest/list_literal", "size([[[[[[[[[[[[0]]]]]]]]]]]])", "int:1"},
    {"nest/map_literal", "size({0: {0: {0: {0: {0: {0: {0: {0: {0: {0: {0: {0: 'foo'}}}}}}}}}}}})",
     "int:1"},
    {"nest/parens", "((((((((((((((((((((((((((((((((7))))))))))))))))))))))))))))))))", "int:7"},
    {"repeat/conditional",
     "true ? true : true ? true : true ? true : true ? true : true ? true : true ? true : true ? "
     "true : true ? true : true ? true : true ? true : true ? true : true ? true : true ? true : "
     "true ? true : true ? true : true ? true : true ? true : true ? true : true ? true : true ? "
     "true : true ? true : true ? true : true ? true : true ? true : false",
     "bool:true"},
    {"repeat/or",
     "false || false || false || false || false || false || false || false || false || false || "
     "false || false || false || false || false || false || false || false || false || false || "
     "false || false || false || false || false || false || false || false || false || false || "
     "false || false || true",
     "bool:true"},
    {"repeat/and",
     "true && true && true && true && true && true && true && true && true && true && true && "
     "true && true && true && true && true && true && true && true && true && true && true && "
     "true && true && true && true && true && true && true && true && true && true && false",
     "bool:false"},
    {"repeat/add_sub",
     "3 - 3 + 3 - 3 + 3 - 3 + 3 - 3 + 3 - 3 + 3 - 3 + 3 - 3 + 3 - 3 + 3 - 3 + 3 - 3 + 3 - 3 + 3 - "
     "3 + 3",
     "int:3"},
    {"repeat/mul_div",
     "4 * 4 / 4 * 4 / 4 * 4 / 4 * 4 / 4 * 4 / 4 * 4 / 4 * 4 / 4 * 4 / 4 * 4 / 4 * 4 / 4 * 4 / 4 * "
     "4 / 4",
     "int:4"},
    {"repeat/not", "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!true", "bool:true"},
    {"repeat/unary_neg", "--------------------------------19", "int:19"},
    {"repeat/index", "[[[[[[[[[[[['foo']]]]]]]]]]]][0][0][0][0][0][0][0][0][0][0][0][0]",
     "string:\"foo\""},
    {"repeat/list_literal",
     "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, "
     "25, 26, 27, 28, 29, 30, 31][17]",
     "int:17"},
    {"repeat/map_literal",
     "{0: 'zero', 1: 'one', 2: 'two', 3: 'three', 4: 'four', 5: 'five', 6: 'six', 7: 'seven', 8: "
     "'eight', 9: 'nine', 10: 'ten', 11: 'eleven', 12: 'twelve', 13: 'thirteen', 14: 'fourteen', "
     "15: 'fifteen', 16: 'sixteen', 17: 'seventeen', 18: 'eighteen', 19: 'nineteen', 20: "
     "'twenty'}[17]",
     "string:\"seventeen\""},
    {"string_literals/single_quoted", "'hello'", "string:\"hello\""},
    {"string_literals/double_quoted", "\"hello\"", "string:\"hello\""},
    {"string_literals/triple_single_quoted", "'''hello'''", "string:\"hello\""},
    {"string_literals/triple_double_quoted", "\"\"\"hello\"\"\"", "string:\"hello\""},
    {"string_literals/single_quoted_escaped_punctuation", "' \\\\ \\? \\\" \\' \\` '",
     "string:\" \\ ? \" ' ` \""},
    {"string_literals/triple_single_quoted_unescaped_punctuation", "''' ? \" ' ` '''",
     "string:\" ? \" ' ` \""},
    {"string_literals/single_quoted_escaped_special_control_characters", "' \\a \\b \\f \\t \\v '",
     "string:\" \a \b \f \t \v \""},
    {"string_literals/single_quoted_escaped_line_feed", "' \\n '", "string:\" \n \""},
    {"string_literals/triple_single_quoted_unescaped_line_feed", "''' \n '''", "string:\" \n \""},
    {"string_literals/double_quoted_escaped_windows_line_end", "\" \\r\\n \"", "string:\" \r\n \""},
    {"string_literals/single_quoted_octal_escapes", "' \\012 \\177 '", "string:\" \n \x7F \""},
    {"string_literals/hex_escape", "'\\x41\\u0042\\U00000043'", "string:\"ABC\""},
    {"string_literals/raw_keeps_backslash", "r'\\n'", "string:\"\\n\""},
    {"syntax/reserved_identifier", "if", "parse-error"},
    {"syntax/unclosed_string", "'abc", "parse-error"},
    {"syntax/line_break_in_string", "'a\nb'", "parse-error"},
    {"syntax/bad_escape", "'\\q'", "parse-error"},
    {"syntax/missing_operand", "1 +", "parse-error"},
    {"syntax/trailing_input", "1 2", "parse-error"},
    {"syntax/undeclared_reference", "x + 1", "parse-error"},
    {"syntax/undeclared_function", "frobnicate(1)", "parse-error"},
    {"syntax/int_literal_too_large", "9223372036854775808", "parse-error"},
    {"syntax/comment", "1 + // one\n 2", "int:3"},
    {"syntax/trailing_comma_list", "[1, 2,]", "list:[int:1, int:2]"},
};

const Case kIntegerMath[] = {
    {"int64_math/add_positive_positive", "40 + 2", "int:42"},
    {"int64_math/add_positive_negative", "42 + (-7)", "int:35"},
    {"int64_math/sub_positive_negative", "42 - (-7)", "int:49"},
    {"int64_math/multiply_positive_negative", "42 * -2", "int:-84"},
    {"int64_math/divide_positive_negative", "-84 / 2", "int:-42"},
    {"int64_math/division_truncates", "-10 / 3", "int:-3"},
    {"int64_math/modulus", "47 % 5", "int:2"},
    {"int64_math/modulus_negative", "-47 % 5", "int:-2"},
    {"int64_math/negate", "-(5)", "int:-5"},
    {"int64_math/negative_zero", "-0", "int:0"},
    {"int64_math/division_by_zero", "34 / 0", "error:division by zero"},
    {"int64_math/modulus_by_zero", "34 % 0", "error:modulus by zero"},
    {"int64_math/int64_overflow_positive", "9223372036854775807 + 1", "error:overflow"},
    {"int64_math/int64_overflow_negative", "-9223372036854775808 - 1", "error:overflow"},
    {"int64_math/int64_mul_overflow", "4611686018427387904 * 2", "error:overflow"},
    {"int64_math/int64_div_overflow", "-9223372036854775808 / -1", "error:overflow"},
    {"int64_math/int64_negate_overflow", "-(-9223372036854775808)", "error:overflow"},
    {"uint64_math/add", "42u + 2u", "uint:44"},
    {"uint64_math/sub", "42u - 2u", "uint:40"},
    {"uint64_math/sub_underflow", "0u - 1u", "error:overflow"},
    {"uint64_math/add_overflow", "18446744073709551615u + 1u", "error:overflow"},
    {"uint64_math/mul_overflow", "9223372036854775808u * 2u", "error:overflow"},
    {"uint64_math/divide", "84u / 2u", "uint:42"},
    {"uint64_math/division_by_zero", "1u / 0u", "error:division by zero"},
    {"uint64_math/hex", "0xFFu", "uint:255"},
    {"int64_math/hex", "0x10", "int:16"},
    {"mixed/int_plus_uint", "1 + 1u", "error:no such overload"},
    {"mixed/int_plus_double", "1 + 1.0", "error:no such overload"},
    {"uint_negate", "-(1u)", "error:no such overload"},
};

const Case kFpMath[] = {
    {"fp_math/add", "4.25 + 15.25", "double:19.5"},
    {"fp_math/sub", "4.75 - 15.25", "double:-10.5"},
    {"fp_math/multiply", "-2.0 * 3.5", "double:-7"},
    {"fp_math/divide", "7.0 / -2.0", "double:-3.5"},
    {"fp_math/divide_by_zero", "1.0 / 0.0", "double:inf"},
    {"fp_math/negate", "-(4.5)", "double:-4.5"},
    {"fp_math/mod_unsupported", "47.5 % 5.5", "error:no such overload"},
};

const Case kConversions[] = {
    {"int/double_truncate", "int(-5.9)", "int:-5"},
    {"int/double_range", "int(1e99)", "error:range"},
    {"int/double_2_63", "int(9223372036854775807.0)", "error:range"},
    {"int/uint", "int(42u)", "int:42"},
    {"int/uint_range", "int(18446744073709551615u)", "error:range"},
    {"int/string", "int('987')", "int:987"},
    {"int/string_bad", "int('12a')", "error"},
    {"uint/int", "uint(1729)", "uint:1729"},
    {"uint/int_neg", "uint(-1)", "error:range"},
    {"uint/double", "uint(3.9)", "uint:3"},
    {"double/int", "double(-1)", "double:-1"},
    {"double/string", "double('1.5e2')", "double:150"},
    {"double/string_bad", "double('1.5x')", "error"},
    {"string/int", "string(-42)", "string:\"-42\""},
    {"string/uint", "string(42u)", "string:\"42\""},
    {"string/double", "string(1.5)", "string:\"1.5\""},
    {"string/bytes", "string(b'abc')", "string:\"abc\""},
    {"string/bytes_invalid", "string(b'\\xFF')", "error"},
    {"string/bool", "string(true)", "string:\"true\""},
    {"bytes/string", "bytes('abc')", "bytes:\"abc\""},
    {"bool/string_true", "bool('true')", "bool:true"},
    {"bool/string_false", "bool('f')", "bool:false"},
    {"bool/string_bad", "bool('yes')", "error"},
    {"type/int", "type(1) == int", "bool:true"},
    {"type/string", "type('a') == string", "bool:true"},
    {"type/list", "type([]) == list", "bool:true"},
    {"type/map", "type({}) == map", "bool:true"},
    {"type/null", "type(null) == null_type", "bool:true"},
    {"type/type", "type(int) == type", "bool:true"},
    {"type/not_equal", "type(1u) == int", "bool:false"},
    {"dyn/identity", "dyn(1) == 1", "bool:true"},
};

const Case kListsAndMaps[] = {
    {"lists/concat", "[1, 2] + [3]", "list:[int:1, int:2, int:3]"},
    {"lists/index", "[7, 8, 9][1]", "int:8"},
    {"lists/index_uint", "[7, 8, 9][2u]", "int:9"},
    {"lists/index_out_of_range", "[1, 2][2]", "error:index out of range"},
    {"lists/index_negative", "[1, 2][-1]", "error:index out of range"},
    {"lists/in_true", "2 in [1, 2, 3]", "bool:true"},
    {"lists/in_false", "4 in [1, 2, 3]", "bool:false"},
    {"lists/size", "size([1, 2, 3])", "int:3"},
    {"lists/size_method", "[1, 2, 3].size()", "int:3"},
    {"maps/in", "'a' in {'a': 1}", "bool:true"},
    {"maps/index", "{'a': 1, 'b': 2}['b']", "int:2"},
    {"maps/missing_key", "{'a': 1}['b']", "error:no such key"},
    {"maps/select", "{'a': {'b': 3}}.a.b", "int:3"},
    {"maps/select_missing", "{'a': 1}.b", "error:no such key"},
    {"maps/repeated_key", "{'a': 1, 'a': 2}", "error:repeated key"},
    {"maps/bad_key_type", "{[1]: 2}", "error:unsupported key type"},
    {"maps/size", "size({'a': 1, 'b': 2})", "int:2"},
    {"index/string_unsupported", "'abc'[0]", "error:no such overload"},
};

const Case kMacros[] = {
    {"exists/list_elem_all_true", "[1, 2, 3].exists(e, e > 0)", "bool:true"},
    {"exists/list_elem_none", "[1, 2, 3].exists(e, e > 3)", "bool:false"},
    {"exists/list_elem_type_exhaustive", "[1, 'foo', 3].exists(e, e != '1')", "bool:true"},
    {"exists/list_elem_error_shortcircuit", "[1, 0].exists(e, 1 / e == 1)", "bool:true"},
    {"exists/list_elem_error", "[0, 2].exists(e, 1 / e == 1)", "error:division by zero"},
    {"exists/map_key", "{'key1': 1, 'key2': 2}.exists(k, k == 'key2')", "bool:true"},
    {"exists/empty", "[].exists(e, e == 1)", "bool:false"},
    {"all/list_elem_all_true", "[1, 2, 3].all(e, e > 0)", "bool:true"},
    {"all/list_elem_some_false", "[1, 2, 3].all(e, e == 2)", "bool:false"},
    {"all/list_elem_error_shortcircuit", "[1, 0].all(e, 1 / e != 1)", "bool:false"},
    {"all/list_elem_error", "[1, 0].all(e, 1 / e >= 1)", "error:division by zero"},
    {"all/empty", "[].all(e, e > 0)", "bool:true"},
    {"exists_one/list_one", "[1, 2, 3].exists_one(e, e > 2)", "bool:true"},
    {"exists_one/list_two", "[1, 2, 3].exists_one(e, e > 1)", "bool:false"},
    {"exists_one/list_error", "[1, 0].exists_one(e, 1 / e == 1)", "error:division by zero"},
    {"map/list_elem", "[1, 2, 3].map(n, n * n)", "list:[int:1, int:4, int:9]"},
    {"map/filter_and_transform", "[1, 2, 3, 4].map(n, n % 2 == 0, n * 10)",
     "list:[int:20, int:40]"},
    {"map/error", "[1, 0].map(n, 2 / n)", "error:division by zero"},
    {"filter/list_elem", "[1, 2, 3].filter(e, e > 1)", "list:[int:2, int:3]"},
    {"filter/map_keys", "{'a': 1, 'b': 2}.filter(k, k != 'a')", "list:[string:\"b\"]"},
    {"nested/exists_all", "[[1, 2], [3]].exists(l, l.all(x, x > 2))", "bool:true"},
    {"has/present", "has({'a': 1}.a)", "bool:true"},
    {"has/absent", "has({'a': 1}.b)", "bool:false"},
    {"has/not_a_select", "has(1)", "parse-error"},
    {"macro/not_a_list", "1.exists(e, true)", "error:no such overload"},
};

class Conformance : public ::testing::TestWithParam<std::pair<const char*, std::span<const Case>>> {
};

TEST_P(Conformance, EachCaseGivesTheSuitesValue) {
  for (const Case& c : GetParam().second) check(c);
}

INSTANTIATE_TEST_SUITE_P(
    CelSpec, Conformance,
    ::testing::Values(std::pair{"basic", std::span<const Case>(kBasic)},
                      std::pair{"comparisons", std::span<const Case>(kComparisons)},
                      std::pair{"logic", std::span<const Case>(kLogic)},
                      std::pair{"string", std::span<const Case>(kString)},
                      std::pair{"parse", std::span<const Case>(kParse)},
                      std::pair{"integer_math", std::span<const Case>(kIntegerMath)},
                      std::pair{"fp_math", std::span<const Case>(kFpMath)},
                      std::pair{"conversions", std::span<const Case>(kConversions)},
                      std::pair{"lists", std::span<const Case>(kListsAndMaps)},
                      std::pair{"macros", std::span<const Case>(kMacros)}),
    [](const auto& info) { return std::string(info.param.first); });

}  // namespace
}  // namespace planter::cel
