/** `q` as a literal inside a LIKE pattern: its own `%`, `_` and `\` match themselves. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Case-insensitive "starts with" pattern, for `lower(column) like ?`. */
export const startsWithPattern = (q: string) => `${escapeLike(q.toLowerCase())}%`;

/** Case-insensitive "contains" pattern, for `lower(column) like ?`. */
export const containsPattern = (q: string) => `%${escapeLike(q.toLowerCase())}%`;
