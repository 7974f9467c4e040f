import { Alert, List } from '@mantine/core';
import { ApiError } from '../api/errors';

/**
 * The contract's message for an error no single field owns; a validation failure lists its details
 * with human field names ("Variant 1 price: must be a number"), except those a form field shows.
 */
export function FormError({ error, fields = [] }: { error: unknown; fields?: string[] }) {
  if (!error) return null;
  if (error instanceof ApiError && error.details.length && error.details.every((d) => d.path && fields.includes(d.path))) return null;
  const message = error instanceof Error ? error.message : String(error);
  const details = error instanceof ApiError && error.status === 422 ? error.describe(fields) : [];
  return (
    <Alert color="red" role="alert">
      {message}
      {details.length > 0 && (
        <List size="sm" mt={4}>
          {details.map((line) => (
            <List.Item key={line}>{line}</List.Item>
          ))}
        </List>
      )}
    </Alert>
  );
}
