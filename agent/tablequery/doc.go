// Package tablequery turns an analyst's plain-language question about a table (the HMIS gas
// table and others with a typed schema) into a filter expression, checks the expression
// against the schema before it runs, runs it, and recovers in tiers when the model writes
// something that does not compile or, asked about rows ([AskOver]), fails on every row.
//
// # Expressions
//
// Filters are boolean expressions in the expr language (github.com/expr-lang/expr) over the
// table's fields: `has(flash_point_c) and flash_point_c < 0 and empty(cas_number)`. [Compile]
// rejects SQL (SELECT, WHERE, LIKE, IS NULL, a single = as comparison, …), unknown fields
// (with did-you-mean suggestions) and type errors (a number compared with text, a result
// that is not true/false) before a single row is read. The analyst sees the expression and
// may edit it and run it again through the same [Compile] and [Run].
//
// # Missing values
//
// A cell without a value is nil in the row (or absent from it). The rules, which the prompt's
// syntax sheet states for the model as well:
//
//   - Text fields: a missing text is the empty text "". `cas_number == ""`, `empty(cas_number)`
//     and `cas_number == nil` are all true for a blank CAS number; `contains`, `startsWith`
//     and `lower()` never fail on a blank cell.
//   - Number, int and bool fields: a comparison (==, !=, <, <=, >, >=, in, contains, …) that
//     reads a missing value is false, != included. A bool field used on its own
//     (`flammable`, `not flammable`, `flammable and …`) counts as `flammable == true`, so it is
//     false when the cell is blank. `not` turns false into true: `not (flash_point_c > 0)`
//     holds for a blank flash point; write `has(flash_point_c) and not (flash_point_c > 0)` to
//     leave blanks out.
//   - `empty(x)` is true for nil and ""; `has(x)` is its opposite. `x == nil` and `x != nil`
//     mean `empty(x)` and `has(x)`.
//   - Anything else that meets a missing value at run time (arithmetic, a function argument)
//     makes that row not match; [Run] reports an error only when no row could be evaluated.
//
// Compile gets there by rewriting the checked expression (it wraps comparisons in has() tests
// and text fields in a nil-to-"" conversion); the expression shown to the analyst is never
// rewritten.
//
// # Recovery tiers
//
// [Ask] spends at most [MaxCalls] model exchanges on one question (repair rounds of the
// gateway included):
//
//   - tier 0: the model writes an expression from the schema and a syntax sheet;
//   - tier 1: a targeted fix: the model sees its expression, the error, its kind and the
//     did-you-mean names (at most 2 rounds, in the same conversation); a [Runtime] error,
//     an expression that compiled and failed on every row, is fixed the same way;
//   - tier 2: a fresh start with a different prompt that lists the rejected attempts as what
//     not to do (at most 2 rounds);
//   - tier 3: a fallback built without the model, labelled [Answer.Fallback]: a word match
//     of field names and their synonyms ("flammable", "no CAS") and of the row's text (see
//     [Fallback]); a question with nothing to match selects no rows.
package tablequery
