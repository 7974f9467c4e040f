import { Button, Group } from '@mantine/core';
import { useState } from 'react';

/** Keyset pagination over the API's opaque cursors: a stack of the cursors of the pages seen. */
export function useCursor() {
  const [stack, setStack] = useState<Array<string | undefined>>([undefined]);
  const cursor = stack[stack.length - 1];
  return {
    cursor,
    reset: () => setStack([undefined]),
    next: (nextCursor: string) => setStack((old) => [...old, nextCursor]),
    previous: () => setStack((old) => (old.length > 1 ? old.slice(0, -1) : old)),
    hasPrevious: stack.length > 1
  };
}

export function Pager({ pager, nextCursor }: { pager: ReturnType<typeof useCursor>; nextCursor: string | null | undefined }) {
  return (
    <Group justify="flex-end">
      <Button variant="default" disabled={!pager.hasPrevious} onClick={pager.previous}>
        Previous page
      </Button>
      <Button variant="default" disabled={!nextCursor} onClick={() => nextCursor && pager.next(nextCursor)}>
        Next page
      </Button>
    </Group>
  );
}

/** `meta.pagination.nextCursor` of a list answer (meta is untyped in the document). */
export const nextCursorOf = (meta: unknown) => (meta as { pagination?: { nextCursor?: string | null } } | undefined)?.pagination?.nextCursor ?? null;
