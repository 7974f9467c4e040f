import { Alert } from '@mantine/core';
import { ApiError } from '../api/errors';

/** The contract's message for an error no single field owns. */
export function FormError({ error, fields = [] }: { error: unknown; fields?: string[] }) {
  if (!error) return null;
  if (error instanceof ApiError && error.details.length && error.details.every((d) => d.path && fields.includes(d.path))) return null;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <Alert color="red" role="alert">
      {message}
    </Alert>
  );
}
