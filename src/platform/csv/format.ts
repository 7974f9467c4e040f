/**
 * Shared by every CSV import and export (customers, products).
 *
 * CSV cell rules shared by the customer export and import.
 *
 * Formula injection: a spreadsheet runs a cell that begins with `=`, `+`, `-`, `@`, tab or carriage
 * return, also after leading whitespace, and some importers split on embedded newlines, so the same
 * holds at the start of every line inside a cell. Such a cell is written with a leading `'`.
 * To keep export -> import lossless the rule is a bijection: a cell gets the prefix when it is
 * dangerous or when it already starts with `'` followed by something that would get one; the
 * importer strips exactly one `'` under the same condition, and nothing else.
 */
const DANGEROUS = /(?:^|\n)(?:[\t\r]|[ \t\r\f\v\u00a0]*[=+\-@])/;

export function needsFormulaGuard(value: string): boolean {
  if (DANGEROUS.test(value)) return true;
  return value.startsWith("'") && needsFormulaGuard(value.slice(1));
}

export function neutraliseFormula(value: string): string {
  return needsFormulaGuard(value) ? `'${value}` : value;
}

/** The importer's inverse of `neutraliseFormula`. */
export function restoreFormula(value: string): string {
  return value.startsWith("'") && needsFormulaGuard(value.slice(1)) ? value.slice(1) : value;
}

const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

/** One CSV field (RFC 4180 quoting), formula-guarded. */
export function csvCell(value: string | number | null | undefined): string {
  // Empty cells (most of a product export's) need neither the formula guard nor quotes.
  if (value === null || value === undefined || value === '') return '';
  const text = neutraliseFormula(String(value));
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvLine = (cells: Array<string | number | null | undefined>) => `${cells.map(csvCell).join(',')}\r\n`;

/** Tags travel as one cell, comma separated (Shopify's format); a tag cannot contain a comma. */
export const TAG_SEPARATOR = ', ';
export function parseTags(cell: string): string[] {
  const seen = new Set<string>();
  for (const raw of cell.split(',')) {
    const tag = raw.trim();
    if (tag) seen.add(tag);
  }
  return [...seen];
}
