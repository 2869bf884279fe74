/** Appended to a text whose unstorable characters were replaced, so a reader knows it is not the original. */
export const TEXT_ALTERED_MARK = ' [text altered: unstorable characters replaced]';

/** U+0000 (PostgreSQL text refuses it) and UTF-16 surrogates without their pair (no UTF-8 encoding). */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Whether `text` holds a character no store keeps as given (see UNSTORABLE). */
export function hasUnstorable(text: string): boolean {
  UNSTORABLE.lastIndex = 0;
  const found = UNSTORABLE.test(text);
  UNSTORABLE.lastIndex = 0;
  return found;
}

/**
 * Text every store keeps as given: unstorable characters become U+FFFD and the text is marked
 * (TEXT_ALTERED_MARK). Text without them is returned unchanged.
 */
export function storableText(text: string): string {
  const replaced = text.replace(UNSTORABLE, '\uFFFD');
  return replaced === text ? text : replaced + TEXT_ALTERED_MARK;
}

/**
 * The same characters in JSON text made by JSON.stringify, where they appear only as escapes
 * (`\u0000`, a lone `\udXXX`), in keys or values: each becomes U+FFFD. The JSON keeps its shape
 * (no mark is added; the replacement character is the visible sign). An escaped backslash before
 * `u` is text, not an escape, and is left alone.
 */
const UNSTORABLE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/gi;

export function storableJson(json: string): string {
  return json.replace(UNSTORABLE_ESCAPE, '$1\uFFFD');
}
