import type { EmailMarketing } from './customers.js';
import { parseTags, restoreFormula } from '../csv/format.js';
import type { ColumnMap, ImportField } from './csv-columns.js';

export interface RowError {
  /** The file line the record starts on (1-based, blank lines and quoted line breaks counted). */
  row: number;
  column: string;
  message: string;
}

/** A valid row, ready for the staging table. `null` means "not given": the stored value is kept. */
export interface StagedCustomer {
  email: string;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
  tags: string[];
  note: string | null;
  emailMarketing: EmailMarketing | null;
}

const EMAIL = /^[^\s@"(),:;<>[\\\]]+@[^\s@"(),:;<>[\\\]]+\.[^\s@"(),:;<>[\\\]]+$/;

const MARKETING_VALUES: Record<string, EmailMarketing> = {
  subscribed: 'subscribed',
  unsubscribed: 'unsubscribed',
  not_subscribed: 'not_subscribed',
  notsubscribed: 'not_subscribed',
  yes: 'subscribed',
  true: 'subscribed',
  '1': 'subscribed',
  no: 'not_subscribed',
  false: 'not_subscribed',
  '0': 'not_subscribed'
};

const LIMITS: Record<Exclude<ImportField, 'email' | 'tags' | 'emailMarketing'>, number> = {
  firstName: 255,
  lastName: 255,
  phone: 64,
  note: 5000
};

/** Validates one record; returns the staged customer or the list of problems (row skipped). */
export function validateRecord(record: string[], rowNumber: number, columns: ColumnMap): StagedCustomer | RowError[] {
  const errors: RowError[] = [];
  const cell = (field: ImportField): string => {
    const index = columns.indexes[field];
    if (index === undefined) return '';
    return restoreFormula((record[index] ?? '').trim());
  };
  const fail = (field: ImportField, message: string) => errors.push({ row: rowNumber, column: columns.names[field] ?? field, message });
  const checkText = (field: ImportField, value: string) => {
    if (value.includes('\u0000')) fail(field, `${field} contains a NUL character`);
  };

  const email = cell('email').toLowerCase();
  if (!email) fail('email', 'email is required');
  else if (email.length > 254 || !EMAIL.test(email)) fail('email', `"${email.slice(0, 100)}" is not a valid email address`);

  const text: Partial<Record<keyof typeof LIMITS, string | null>> = {};
  for (const field of Object.keys(LIMITS) as Array<keyof typeof LIMITS>) {
    const value = cell(field);
    if (value.length > LIMITS[field]) fail(field, `${field} is longer than ${LIMITS[field]} characters`);
    checkText(field, value);
    text[field] = value || null;
  }

  const tagCell = cell('tags');
  checkText('tags', tagCell);
  const tags = parseTags(tagCell.replace(/[\u0000-\u001f]/g, ' '));
  if (tags.length > 250) fail('tags', 'at most 250 tags');
  if (tags.some((tag) => tag.length > 255)) fail('tags', 'a tag is longer than 255 characters');

  const marketingCell = cell('emailMarketing').toLowerCase().replace(/[\s-]+/g, '_');
  let emailMarketing: EmailMarketing | null = null;
  if (marketingCell) {
    emailMarketing = MARKETING_VALUES[marketingCell] ?? null;
    if (!emailMarketing) fail('emailMarketing', 'must be subscribed, unsubscribed, not_subscribed, yes or no');
  }

  if (errors.length) return errors;
  return {
    email,
    firstName: text.firstName ?? null,
    lastName: text.lastName ?? null,
    phone: text.phone ?? null,
    tags,
    note: text.note ?? null,
    emailMarketing
  };
}

const quote = (value: string) => `"${value.replace(/"/g, '""')}"`;
const nullable = (value: string | null) => (value === null ? '' : quote(value));

/** One line of `COPY ... (FORMAT csv)` input (the customer, then its file line): an unquoted empty field is NULL. */
export function stagingLine(customer: StagedCustomer, line: number): string {
  return [
    quote(customer.email),
    nullable(customer.firstName),
    nullable(customer.lastName),
    nullable(customer.phone),
    customer.tags.length ? quote(customer.tags.join('\u001f')) : '',
    nullable(customer.note),
    customer.emailMarketing ?? '',
    line
  ].join(',') + '\n';
}
