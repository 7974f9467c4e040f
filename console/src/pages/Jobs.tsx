import { Anchor, NativeSelect, Group, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../api/client';
import { unwrap } from '../api/errors';
import { human } from '../components/labels';
import { ListState } from '../components/ListState';
import { nextCursorOf, Pager, useCursor } from '../components/Pager';
import { ScheduledJobs } from './ScheduledJobs';

const TYPES = ['customers.import', 'customers.export', 'products.import', 'products.export', 'products.bulk', 'audit.export', 'domains.check', 'external_system.backfill'] as const;
type JobType = (typeof TYPES)[number];

/** This store's background jobs, newest first, filtered by kind; re-read every 2 s while any is queued or active. Each opens to its detail. */
export function Jobs() {
  const pager = useCursor();
  const [type, setType] = useState<JobType | ''>('');
  const jobs = useQuery({
    queryKey: ['jobs', type, pager.cursor],
    placeholderData: keepPreviousData,
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/admin/jobs', { params: { query: { limit: 20, ...(type ? { type } : {}), ...(pager.cursor ? { cursor: pager.cursor } : {}) } } })),
    refetchInterval: (query) => (query.state.data?.data.jobs.some((job) => job.status === 'queued' || job.status === 'active') ? 2000 : false)
  });
  return (
    <Stack>
      <Title order={1}>Jobs</Title>
      <Text size="sm">
        Imports, exports and bulk edits of this store, newest first. Platform operators see every queue on the{' '}
        <Anchor href="/admin/queues" target="_blank" rel="noopener">
          queue dashboard
        </Anchor>{' '}
        (its own sign-in).
      </Text>
      <Group>
        <NativeSelect
          label="Kind"
          value={type}
          onChange={(e) => (setType(e.currentTarget.value as JobType | ''), pager.reset())}
          data={[{ value: '', label: 'Any' }, ...TYPES.map((value) => ({ value, label: human(value) }))]}
        />
      </Group>
      <div className="table-scroll">
        <Table striped aria-label="Jobs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Kind</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Progress</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>Error</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {jobs.data?.data.jobs.map((job) => (
              <Table.Tr key={job.id}>
                <Table.Td>
                  <Anchor component={Link} to={`/jobs/${job.id}`}>
                    {human(job.type)}
                  </Anchor>
                </Table.Td>
                <Table.Td>{human(job.status)}</Table.Td>
                <Table.Td>{job.progress.percent}%</Table.Td>
                <Table.Td>{new Date(job.createdAt).toLocaleString()}</Table.Td>
                <Table.Td>{job.error}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </div>
      <ListState query={jobs} count={jobs.data?.data.jobs.length} empty={type ? 'No job of this kind.' : 'No jobs yet: imports and exports show here.'} label="jobs" />
      <Pager pager={pager} nextCursor={nextCursorOf(jobs.data?.meta)} />
      <ScheduledJobs />
    </Stack>
  );
}
