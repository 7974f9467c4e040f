import Papa from 'papaparse';
import type { Readable } from 'node:stream';

/** The delimiter and line break of a file, fixed once so that every pass over it splits it alike. */
export interface CsvDialect {
  delimiter: string;
  newline: string;
}

/**
 * The delimiter papaparse guesses from the file's first chunk, blank lines left out: counted in,
 * the empty row after a small file's final newline pulled every candidate's average below two
 * fields, and a semicolon file of a few rows was read as one comma column ("no header row").
 */
export function sniffDialect(firstChunk: string): CsvDialect {
  const meta = Papa.parse<string[]>(firstChunk, { preview: 10, skipEmptyLines: true }).meta;
  const newline = meta.linebreak === '\r\n' || meta.linebreak === '\r' ? meta.linebreak : '\n';
  return { delimiter: meta.delimiter || ',', newline };
}

export interface QuoteProblem {
  /** File line (1-based, every line counted) on which the quoted field opens. */
  line: number;
  /** `unclosed`: no closing quote before the end of the file; `stray`: a quote inside the field that is neither doubled nor closing. */
  kind: 'unclosed' | 'stray';
}

const QUOTE = '"';
const WHITESPACE = /\s/;

/**
 * Follows papaparse's quoting rules without building a single row, so a whole file can be checked
 * before any of it is applied: a field is quoted only when its first character is `"`; inside it
 * `""` is a quote; it closes on a quote followed by optional whitespace and then the delimiter, the
 * line break or the end of the file. Any other quote inside it is a problem (papaparse would keep
 * the field open, swallowing the lines after it), and so is a field still open at the end.
 * Fed in chunks of any size; only a quote whose meaning depends on the next chunk is carried over.
 */
export class QuoteScanner {
  private readonly delimiter: number;
  private readonly newline: string;
  /** The character counted as one file line (the main parse counts lines the same way). */
  private readonly lineChar: string;
  private inQuotes = false;
  private carry = '';
  /** The (up to) two characters before the current buffer, to tell whether a quote opens a field. */
  private before = '';
  /** Offset in the file of the current buffer's first character. */
  private offset = 0;
  /** Line of the current buffer's character `countedTo`. */
  private line = 1;
  private countedTo = 0;
  private openLine = 0;

  constructor(dialect: CsvDialect) {
    if (dialect.delimiter.length !== 1) throw new Error('a one-character delimiter is expected');
    this.delimiter = dialect.delimiter.charCodeAt(0);
    this.newline = dialect.newline;
    this.lineChar = dialect.newline === '\r' ? '\r' : '\n';
  }

  /** Scans the next chunk; returns the first problem (scanning stops there) or null. */
  push(chunk: string): QuoteProblem | null {
    return this.scan(this.carry + chunk, false);
  }

  /** The end of the file: a field still open is unclosed. */
  end(): QuoteProblem | null {
    const problem = this.scan(this.carry, true);
    if (problem) return problem;
    return this.inQuotes ? { line: this.openLine, kind: 'unclosed' } : null;
  }

  private scan(buf: string, final: boolean): QuoteProblem | null {
    const len = buf.length;
    this.carry = '';
    this.countedTo = 0;
    let i = 0;
    let keepFrom = len;
    outer: while (i < len) {
      const q = buf.indexOf(QUOTE, i);
      if (q === -1) break;
      if (!this.inQuotes) {
        if (this.opensField(buf, q)) {
          this.inQuotes = true;
          this.openLine = this.lineAt(buf, q);
        }
        i = q + 1;
        continue;
      }
      let j = q + 1;
      if (j < len && buf.charCodeAt(j) === 0x22) {
        i = j + 1; // a doubled quote: part of the field
        continue;
      }
      if (j === len && final) {
        this.inQuotes = false; // closed by the end of the file
        i = len;
        break;
      }
      for (;;) {
        if (j < len && (buf.charCodeAt(j) === this.delimiter || buf.startsWith(this.newline, j))) {
          this.inQuotes = false;
          i = j;
          continue outer;
        }
        // What follows the quote is still to come: decide on the next chunk.
        if (!final && len - j < this.newline.length && this.newline.startsWith(buf.slice(j))) {
          keepFrom = q;
          break outer;
        }
        if (j < len && WHITESPACE.test(buf[j]!)) {
          j += 1;
          continue;
        }
        return { line: this.openLine, kind: 'stray' };
      }
    }
    this.lineAt(buf, keepFrom);
    this.carry = buf.slice(keepFrom);
    this.before = (this.before + buf.slice(Math.max(0, keepFrom - 2), keepFrom)).slice(-2);
    this.offset += keepFrom;
    return null;
  }

  /** A quote opens a quoted field when it is the field's first character. */
  private opensField(buf: string, q: number): boolean {
    if (this.offset + q === 0) return true;
    const previous = q >= 2 ? buf.slice(q - 2, q) : (this.before + buf.slice(0, q)).slice(-2);
    return previous.charCodeAt(previous.length - 1) === this.delimiter || previous.endsWith(this.newline);
  }

  /** The file line of `pos` in `buf`, counting forward from the last position asked about. */
  private lineAt(buf: string, pos: number): number {
    for (let k = buf.indexOf(this.lineChar, this.countedTo); k !== -1 && k < pos; k = buf.indexOf(this.lineChar, k + 1)) this.line += 1;
    this.countedTo = Math.max(this.countedTo, pos);
    return this.line;
  }
}

/**
 * Reads a whole CSV stream: its dialect (sniffed from the first chunk) and its first quoting problem,
 * or null when every quoted field closes. Cheap (no rows are built), so the import runs it before it
 * writes anything.
 */
export async function findQuoteProblem(body: Readable): Promise<{ dialect: CsvDialect; problem: QuoteProblem | null }> {
  body.setEncoding('utf8');
  let scanner: QuoteScanner | undefined;
  let found: CsvDialect | undefined;
  try {
    for await (const chunk of body as AsyncIterable<string>) {
      if (!scanner) {
        found = sniffDialect(chunk);
        scanner = new QuoteScanner(found);
      }
      const problem = scanner.push(chunk);
      if (problem) return { dialect: found!, problem };
    }
  } finally {
    body.destroy();
  }
  if (!scanner) return { dialect: { delimiter: ',', newline: '\n' }, problem: null };
  return { dialect: found!, problem: scanner.end() };
}
