import Papa from 'papaparse';
import { open } from 'node:fs/promises';
import { badRequest } from '../../errors.js';

const SNIFF_BYTES = 64 * 1024;

/**
 * Cheap request-time look at an upload (its first 64 KB): 400 when empty or binary, else its header
 * row, for the caller to check it names the columns it needs before a job is queued.
 */
export async function sniffCsvHeader(filePath: string): Promise<string[] | undefined> {
  const handle = await open(filePath, 'r');
  let head: Buffer;
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  if (head.length === 0) throw badRequest('The uploaded file is empty', [{ path: 'file', message: 'file is empty' }]);
  if (head.includes(0)) throw badRequest('The uploaded file is not a CSV file', [{ path: 'file', message: 'file is binary, not CSV' }]);
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  return Papa.parse<string[]>(text, { preview: 1, skipEmptyLines: 'greedy' }).data[0];
}
