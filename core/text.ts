// The one rule for text a client sends (docs/design.md "Strings"): well-formed Unicode, no NUL.
// PostgreSQL text cannot hold NUL, and a lone UTF-16 surrogate has no UTF-8 encoding, so either
// one would make the control plane refuse a whole group-commit transaction (every request in the
// group failing with it) or a reader's query fail; both are refused at the door instead.

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with `text` as client text ("must …"), or null when it is fine. */
export function textFault(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  if (LONE_SURROGATE.test(text)) return 'must be well-formed Unicode (no unpaired UTF-16 surrogates)';
  return null;
}
