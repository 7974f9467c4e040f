const MAX_TERMS = 10;

/**
 * Search as you type, with web-search syntax, as a `to_tsquery` argument: every plain word is a
 * prefix term (`swea` finds "Sweaters"), all required; `"a phrase"` matches exactly, `-word`
 * excludes, `or` between terms offers alternatives. Words are reduced to letters and digits and
 * quoted, so `to_tsquery` never sees syntax from the client.
 */
export function storefrontSearchTerms(q: string): string {
  const parts: string[] = [];
  let pendingOr = false;
  for (const match of q.normalize('NFKC').toLowerCase().matchAll(/(-?)"([^"]*)"?|(-?)([\p{L}\p{N}]+)/gu)) {
    let term: string;
    let negate: boolean;
    if (match[2] !== undefined) {
      const words = match[2].match(/[\p{L}\p{N}]+/gu) ?? [];
      if (!words.length) continue;
      term = words.length > 1 ? `(${words.map((w) => `'${w}'`).join(' <-> ')})` : `'${words[0]}'`;
      negate = match[1] === '-';
    } else {
      const word = match[4]!;
      if (word === 'or' && !match[3]) {
        pendingOr = parts.length > 0;
        continue;
      }
      term = `'${word}':*`;
      negate = match[3] === '-';
    }
    if (parts.length) parts.push(pendingOr ? '|' : '&');
    parts.push(negate ? `!${term}` : term);
    pendingOr = false;
    if (parts.length >= MAX_TERMS * 2 - 1) break;
  }
  return parts.join(' ');
}
