import Papa from 'papaparse';
import type { Readable } from 'node:stream';
import type { CsvDialect } from './quotes.js';

/** Line breaks inside a record's quoted fields (each one moves the next record down a line). */
export function newlinesIn(record: string[]): number {
  let count = 0;
  for (const field of record) for (let i = field.indexOf('\n'); i >= 0; i = field.indexOf('\n', i + 1)) count += 1;
  return count;
}

/**
 * Streams a CSV through papaparse, handing each parsed chunk's records (with the file line each
 * starts on, blank lines and quoted line breaks counted) to `take`. While the promise `take`
 * returns is pending the file is paused, so memory holds one chunk plus what `take` keeps:
 * flat whatever the file's size. `bytesRead()` says how far the file has been read (progress).
 */
export async function streamCsvRecords(
  file: Readable,
  dialect: CsvDialect,
  take: (records: Array<{ record: string[]; line: number }>, bytesRead: number) => Promise<void> | void
): Promise<void> {
  let bytesRead = 0;
  let nextLine = 1;
  file.on('data', (chunk: string) => {
    bytesRead += Buffer.byteLength(chunk);
  });
  file.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    let failed = false;
    let pending: Promise<void> = Promise.resolve();
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      file.destroy();
      reject(error);
    };
    Papa.parse(file as unknown as never, {
      delimiter: dialect.delimiter,
      newline: dialect.newline,
      skipEmptyLines: false,
      chunk: (results: Papa.ParseResult<string[]>) => {
        if (failed) return;
        const records = results.data.map((record) => {
          const line = nextLine;
          nextLine += 1 + newlinesIn(record);
          return { record, line };
        });
        // Chunks are taken one after another, in file order; the file reads on only once the
        // chain is idle (a chunk papaparse had already buffered queues behind the running one).
        const read = bytesRead;
        file.pause();
        const link = pending.then(() => take(records, read));
        pending = link;
        link.then(() => {
          if (!failed && pending === link) file.resume();
        }, fail);
      },
      complete: () => {
        pending.then(() => {
          if (!failed) resolve();
        }, fail);
      },
      error: (error: Error) => fail(error)
    } as unknown as never);
  });
}
