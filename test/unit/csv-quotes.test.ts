import Papa from 'papaparse';
import t from 'tap';
import { QuoteScanner, type CsvDialect } from '../../src/platform/csv/quotes.js';

/** The line papaparse's first quoting error points at (the line its quoted field opens on), or null. */
function papaparseVerdict(text: string, dialect: CsvDialect): number | null {
  const { errors } = Papa.parse<string[]>(text, { delimiter: dialect.delimiter, newline: dialect.newline as Papa.ParseConfig['newline'] });
  const error = errors.find((e) => e.type === 'Quotes');
  if (!error) return null;
  const lineChar = dialect.newline === '\r' ? '\r' : '\n';
  return 1 + text.slice(0, error.index! - 1).split(lineChar).length - 1;
}

function scan(text: string, dialect: CsvDialect, chunkSizes: () => number): number | null {
  const scanner = new QuoteScanner(dialect);
  for (let at = 0; at < text.length; ) {
    const size = chunkSizes();
    const problem = scanner.push(text.slice(at, at + size));
    if (problem) return problem.line;
    at += size;
  }
  return scanner.end()?.line ?? null;
}

t.test('the quote scanner agrees with papaparse on every quoting error and its line, however the file is chunked', async (t) => {
  let seed = 20261123;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const pieces = ['a', 'b', ',', ';', '"', '"', '\n', '\r\n', '\r', ' ', '\t'];
  let disagreements = 0;
  let withProblem = 0;
  for (let i = 0; i < 30_000; i++) {
    const dialect = { delimiter: [',', ';'][random(2)]!, newline: ['\n', '\r\n', '\r'][random(3)]! };
    let text = '';
    for (let n = 1 + random(40); n > 0; n--) text += pieces[random(pieces.length)];
    const expected = papaparseVerdict(text, dialect);
    const got = scan(text, dialect, () => 1 + random(5));
    if (expected !== null) withProblem += 1;
    if (got !== expected && disagreements++ < 5) t.fail(`${JSON.stringify(text)} ${JSON.stringify(dialect)}: papaparse ${expected}, scanner ${got}`);
  }
  t.equal(disagreements, 0);
  t.ok(withProblem > 5_000 && withProblem < 25_000, `both verdicts exercised (${withProblem} with a problem)`);
});

t.test('the quote scanner names the line a never-closed field opens on, past earlier quoted line breaks', async (t) => {
  const dialect = { delimiter: ',', newline: '\r\n' };
  const text = 'email,note\r\na@x.com,"two\r\nlines"\r\n\r\nb@x.com,"fine ""quoted"""\r\nc@x.com,"open\r\nd@x.com,x\r\n';
  t.same(new QuoteScanner(dialect).push(text), null);
  const scanner = new QuoteScanner(dialect);
  scanner.push(text);
  t.same(scanner.end(), { line: 6, kind: 'unclosed' });
  t.equal(scan(text, dialect, () => 3), 6);
  t.same(new QuoteScanner(dialect).push('email,note\r\na@x.com,"say "hi""\r\n'), { line: 2, kind: 'stray' });
});
