import { Button, Group, Text } from '@mantine/core';
import { useState } from 'react';
import { FormError } from './FormError';

/**
 * A destructive action asked twice: the button, then "question? [Yes] [No]". The error of the
 * action, if any, shows under it.
 */
export function ConfirmButton({ label, question, confirm, onConfirm, pending, error }: { label: string; question: string; confirm: string; onConfirm: () => void; pending?: boolean; error?: unknown }) {
  const [asking, setAsking] = useState(false);
  return (
    <div>
      {!asking ? (
        <Button variant="default" color="red" onClick={() => setAsking(true)}>
          {label}
        </Button>
      ) : (
        <Group gap="xs">
          <Text role="status">{question}</Text>
          <Button color="red" onClick={onConfirm} loading={pending}>
            {confirm}
          </Button>
          <Button variant="default" onClick={() => setAsking(false)}>
            No, keep it
          </Button>
        </Group>
      )}
      <FormError error={error} />
    </div>
  );
}
