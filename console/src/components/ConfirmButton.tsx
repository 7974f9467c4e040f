import { Button, Group, Text, type MantineSize } from '@mantine/core';
import { useState } from 'react';
import { FormError } from './FormError';

/**
 * A destructive action asked twice: the button, then "question? [Yes] [No]". The error of the
 * action, if any, shows under it. In a table row, `size` makes it as small as its neighbours and
 * `ariaLabel` names the row's thing ("Delete Europe"), since every row's button reads "Delete".
 */
export function ConfirmButton({
  label,
  question,
  confirm,
  onConfirm,
  pending,
  error,
  size,
  ariaLabel
}: {
  label: string;
  question: string;
  confirm: string;
  onConfirm: () => void;
  pending?: boolean;
  error?: unknown;
  size?: MantineSize;
  ariaLabel?: string;
}) {
  const [asking, setAsking] = useState(false);
  return (
    <div>
      {!asking ? (
        <Button variant="default" color="red" size={size} onClick={() => setAsking(true)} aria-label={ariaLabel}>
          {label}
        </Button>
      ) : (
        <Group gap="xs">
          <Text role="status" size={size}>
            {question}
          </Text>
          <Button color="red" size={size} onClick={onConfirm} loading={pending}>
            {confirm}
          </Button>
          <Button variant="default" size={size} onClick={() => setAsking(false)}>
            No, keep it
          </Button>
        </Group>
      )}
      <FormError error={error} />
    </div>
  );
}
