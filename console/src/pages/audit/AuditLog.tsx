import { Anchor, Button, Group, NativeSelect, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';
import { ListState } from '../../components/ListState';
import { nextCursorOf, Pager, useCursor } from '../../components/Pager';
import { actorOf, AuditEntryDetail } from './AuditEntryDetail';

type Entry = components['schemas']['AuditEntry'];
interface Filters {
  actor: string;
  action: string;
  resourceType: string;
  resourceId: string;
  since: string;
  until: string;
}
const NONE: Filters = { actor: '', action: '', resourceType: '', resourceId: '', since: '', until: '' };

/** The filters as the API takes them: dates are whole days in the operator's time zone, `until` inclusive. */
function queryOf(f: Filters) {
  const day = (value: string, plus = 0) => {
    const date = new Date(`${value}T00:00:00`);
    date.setDate(date.getDate() + plus);
    return date.toISOString();
  };
  return {
    ...(f.actor ? { actor: f.actor } : {}),
    ...(f.action.trim() ? { action: f.action.trim() } : {}),
    ...(f.resourceType.trim() ? { resourceType: f.resourceType.trim() } : {}),
    ...(f.resourceId.trim() ? { resourceId: f.resourceId.trim() } : {}),
    ...(f.since ? { since: day(f.since) } : {}),
    ...(f.until ? { until: day(f.until, 1) } : {})
  };
}

/**
 * The store's audit log, newest first: filtered by member or API key, action, resource and days; paged; an
 * entry opens in full; the filtered log exports to CSV (a job, downloaded from its page); the hash
 * chain can be checked.
 */
export function AuditLog() {
  const pager = useCursor();
  const [filters, setFilters] = useState<Filters>(NONE);
  const [debounced] = useDebouncedValue(filters, 300);
  const [open, setOpen] = useState<Entry | null>(null);
  const team = useQuery({ queryKey: ['team'], queryFn: async () => unwrap(await api.GET('/api/v1/admin/store/team')).data });
  // The keys act too: each is an actor of its own (a member's filter also holds their keys' entries).
  const keys = useQuery({ queryKey: ['api-keys', 'audit-actors'], queryFn: async () => unwrap(await api.GET('/api/v1/admin/store/api-keys', { params: { query: { limit: 100 } } })).data.apiKeys });
  const keyNames = new Map((keys.data ?? []).map((key) => [key.id, key.name]));
  const entries = useQuery({
    queryKey: ['audit-log', debounced, pager.cursor],
    placeholderData: keepPreviousData,
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/store/audit-log', { params: { query: { limit: 25, ...queryOf(debounced), ...(pager.cursor ? { cursor: pager.cursor } : {}) } } }))
  });
  const exportLog = useMutation({ mutationFn: async () => unwrap(await api.POST('/api/v1/admin/store/audit-log/export', { body: queryOf(filters) })).data.job });
  const verify = useMutation({ mutationFn: async () => unwrap(await api.GET('/api/v1/admin/store/audit-log/verify')).data });
  const set = (field: keyof Filters) => (e: { currentTarget: { value: string } }) => {
    const value = e.currentTarget.value;
    setFilters((old) => ({ ...old, [field]: value }));
    pager.reset();
  };
  const list = entries.data?.data.entries;
  const filtered = Object.values(filters).some(Boolean);
  return (
    <Stack>
      <Title order={1}>Audit log</Title>
      <Group align="flex-end">
        <NativeSelect
          label="Who"
          value={filters.actor}
          onChange={set('actor')}
          data={[
            { value: '', label: 'Anyone' },
            { group: 'Members', items: (team.data?.members ?? []).map((m) => ({ value: m.userId, label: m.email })) },
            ...(keyNames.size ? [{ group: 'API keys', items: [...keyNames].map(([id, name]) => ({ value: id, label: `API key ${name}` })) }] : [])
          ]}
        />
        <TextInput label="Action" placeholder="product.updated" value={filters.action} onChange={set('action')} />
        <TextInput label="Resource type" placeholder="product" value={filters.resourceType} onChange={set('resourceType')} />
        <TextInput label="Resource id" value={filters.resourceId} onChange={set('resourceId')} />
        <TextInput label="From day" type="date" value={filters.since} onChange={set('since')} />
        <TextInput label="To day" type="date" value={filters.until} onChange={set('until')} />
        {filtered && (
          <Button variant="subtle" onClick={() => (setFilters(NONE), pager.reset())}>
            Clear filters
          </Button>
        )}
      </Group>
      <FormError error={entries.isError && list ? entries.error : null} />
      {open && <AuditEntryDetail entry={open} keyNames={keyNames} onClose={() => setOpen(null)} />}
      <div className="table-scroll">
        <Table striped aria-label="Audit entries">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>When</Table.Th>
              <Table.Th>Who</Table.Th>
              <Table.Th>Action</Table.Th>
              <Table.Th>Resource</Table.Th>
              <Table.Th>
                <span className="visually-hidden">Details</span>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list?.map((entry) => (
              <Table.Tr key={entry.id} data-testid="audit-row">
                <Table.Td>{new Date(entry.createdAt).toLocaleString()}</Table.Td>
                <Table.Td>{actorOf(entry, keyNames)}</Table.Td>
                <Table.Td>{entry.action}</Table.Td>
                <Table.Td style={{ wordBreak: 'break-all' }}>
                  {entry.resource.type}
                  {entry.resource.id ? <Text size="xs">{entry.resource.id}</Text> : null}
                </Table.Td>
                <Table.Td>
                  <Button size="xs" variant="default" onClick={() => (setOpen(entry), window.scrollTo({ top: 0 }))} aria-label={`Details of entry ${entry.seq}`}>
                    Details
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </div>
      <ListState query={entries} count={list?.length} empty={filtered ? 'No entry matches these filters.' : 'Nothing recorded yet.'} label="the audit log" />
      <Pager pager={pager} nextCursor={nextCursorOf(entries.data?.meta)} />
      <Group>
        <Button variant="default" onClick={() => exportLog.mutate()} loading={exportLog.isPending}>
          {filtered ? 'Export these entries to CSV' : 'Export the log to CSV'}
        </Button>
        {exportLog.data && (
          <Text role="status">
            Export started:{' '}
            <Anchor component={Link} to={`/jobs/${exportLog.data.id}`}>
              download it from its job page
            </Anchor>
          </Text>
        )}
        <Button variant="default" onClick={() => verify.mutate()} loading={verify.isPending}>
          Check the log is intact
        </Button>
        {verify.data && (
          <Text role="status" data-testid="audit-verify">
            {verify.data.valid ? `Intact: ${verify.data.checked} entries checked` : `Broken at entry ${verify.data.firstBroken?.seq}: ${verify.data.firstBroken?.problem}`}
          </Text>
        )}
      </Group>
      <FormError error={exportLog.error ?? verify.error} />
    </Stack>
  );
}
