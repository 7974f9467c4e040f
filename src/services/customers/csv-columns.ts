import { badRequest } from '../../errors.js';
import { sniffCsvHeader } from '../csv/sniff.js';

/** The columns of our own export, in order (also accepted on import). */
export const EXPORT_COLUMNS = [
  'email',
  'firstName',
  'lastName',
  'phone',
  'tags',
  'note',
  'emailMarketing',
  'ordersCount',
  'totalSpent',
  'lastOrderAt',
  'createdAt'
] as const;

export type ImportField = 'email' | 'firstName' | 'lastName' | 'phone' | 'tags' | 'note' | 'emailMarketing';

/**
 * Header names (compared without case, spaces or punctuation) that feed each field: our export's
 * camelCase names and Shopify's customer export (`First Name`, `Accepts Email Marketing`, ...).
 * Other columns (addresses, totals, ids) are ignored.
 */
const ALIASES: Record<string, ImportField> = {
  email: 'email',
  emailaddress: 'email',
  firstname: 'firstName',
  lastname: 'lastName',
  phone: 'phone',
  defaultaddressphone: 'phone',
  tags: 'tags',
  note: 'note',
  emailmarketing: 'emailMarketing',
  acceptsemailmarketing: 'emailMarketing',
  acceptsmarketing: 'emailMarketing'
};

const normaliseHeader = (name: string) => name.replace(/^\uFEFF/, '').toLowerCase().replace(/[^a-z0-9]/g, '');

export interface ColumnMap {
  /** Field -> index of the column in each record. */
  indexes: Partial<Record<ImportField, number>>;
  /** Field -> the header as written in the file, for error reports. */
  names: Partial<Record<ImportField, string>>;
}

/** Maps a header row onto import fields; null when there is no email column. */
export function mapHeader(header: string[]): ColumnMap | null {
  const map: ColumnMap = { indexes: {}, names: {} };
  header.forEach((raw, index) => {
    const field = ALIASES[normaliseHeader(raw)];
    // `Default Address Phone` only fills in when there is no `Phone` column.
    if (field && (map.indexes[field] === undefined || normaliseHeader(raw) === 'phone')) {
      map.indexes[field] = index;
      map.names[field] = raw.replace(/^\uFEFF/, '').trim();
    }
  });
  return map.indexes.email === undefined ? null : map;
}

/**
 * Cheap request-time check that an upload is a CSV we can import: not binary, and a header row
 * with an email column. Anything else is answered 400 before a job is queued.
 */
export async function assertImportableCsv(filePath: string): Promise<void> {
  const header = await sniffCsvHeader(filePath);
  if (!header || !mapHeader(header)) {
    throw badRequest('The CSV file has no header row with an Email column', [{ path: 'file', message: 'an Email column is required' }]);
  }
}
