import { Button, Card, Code, Group, Stack, Table, Title } from '@mantine/core';
import type { components } from '../../api/schema';

type Entry = components['schemas']['AuditEntry'];

/** Who acted, in words: a member's email, an API key's name (its id when the key is gone), or the system. */
export const actorOf = (entry: Entry, keyNames: ReadonlyMap<string, string> = new Map()) =>
  entry.actor.type === 'system'
    ? `System${entry.actor.email ? ` (${entry.actor.email})` : ''}`
    : entry.actor.type === 'api_key'
      ? `API key ${(entry.actor.apiKeyId && keyNames.get(entry.actor.apiKeyId)) ?? entry.actor.apiKeyId ?? ''}`
      : (entry.actor.email ?? entry.actor.userId ?? 'Unknown member');

/** One audit entry in full: who, when, from where, on what, and what changed (before and after, as recorded). */
export function AuditEntryDetail({ entry, keyNames, onClose }: { entry: Entry; keyNames?: ReadonlyMap<string, string>; onClose: () => void }) {
  const rows: Array<[string, string]> = [
    ['When', new Date(entry.createdAt).toLocaleString()],
    ['Who', actorOf(entry, keyNames)],
    ['Action', entry.action],
    ['Resource', `${entry.resource.type}${entry.resource.id ? ` ${entry.resource.id}` : ''}`],
    ['Request', entry.requestId ?? '—'],
    ['IP address', entry.ip ?? '—'],
    ['Browser or client', entry.userAgent ?? '—'],
    ['Sequence', String(entry.seq)],
    ['Hash', entry.hash]
  ];
  return (
    <Card withBorder component="section" aria-labelledby="audit-entry-title" data-testid="audit-entry">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={2} size="h4" id="audit-entry-title">
            Entry {entry.seq}: {entry.action}
          </Title>
          <Button size="xs" variant="default" onClick={onClose}>
            Close entry
          </Button>
        </Group>
        <div className="table-scroll">
          <Table aria-label="Entry details">
            <Table.Tbody>
              {rows.map(([label, value]) => (
                <Table.Tr key={label}>
                  <Table.Th scope="row">{label}</Table.Th>
                  <Table.Td style={{ wordBreak: 'break-all' }}>{value}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </div>
        <Title order={3} size="h5">
          Changes
        </Title>
        {/* Wrapped, not scrolled: a long value stays readable on a phone without a scrolling region to reach by keyboard. */}
        <Code block data-testid="audit-changes" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', overflow: 'visible' }}>
          {entry.changes ? JSON.stringify(entry.changes, null, 2) : 'None recorded'}
        </Code>
      </Stack>
    </Card>
  );
}
