import { Alert, Button, Group, Skeleton, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

interface QueryLike {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  refetch: () => unknown;
}

/**
 * What a list shows besides its rows: skeleton rows while the first page loads (a slow API no longer
 * looks like an empty store), the error with a retry, or the empty state with the next action.
 * Renders nothing once there are rows.
 */
export function ListState({ query, count, empty, action, label = 'items' }: { query: QueryLike; count: number | undefined; empty: string; action?: ReactNode; label?: string }) {
  if (query.isError)
    return (
      <Alert color="red" role="alert" title={`Could not load ${label}`}>
        <Stack gap="xs" align="flex-start">
          <Text size="sm">{query.error instanceof Error ? query.error.message : String(query.error)}</Text>
          <Button size="xs" variant="default" onClick={() => void query.refetch()}>
            Retry
          </Button>
        </Stack>
      </Alert>
    );
  if (query.isPending)
    return (
      <Stack gap="xs" aria-busy="true" aria-label={`Loading ${label}`} role="status">
        {[0, 1, 2, 3].map((i) => (
          <Skeleton key={i} height={28} />
        ))}
      </Stack>
    );
  if (count === 0)
    return (
      <Group data-testid="empty-state" gap="sm">
        <Text>{empty}</Text>
        {action}
      </Group>
    );
  return null;
}
