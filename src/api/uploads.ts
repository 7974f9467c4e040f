/** A file hapi has streamed to a temporary path (`output: 'file'`, or a multipart part with `output: 'file'`). */
export interface UploadedFile {
  path: string;
  bytes: number;
  filename?: string;
}

export const isUploadedFile = (value: unknown): value is UploadedFile =>
  Boolean(value && typeof value === 'object' && typeof (value as UploadedFile).path === 'string' && typeof (value as UploadedFile).bytes === 'number');
