/**
 * A LIKE pattern matching `text` as a literal substring: `%`, `_` and the backslash (PostgreSQL's
 * default LIKE escape character) are escaped, so a search for `_` is not a wildcard.
 */
export const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, '\\$&')}%`;
