import { Stack, Table, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { unwrap } from '../api/errors';
import { nextCursorOf, Pager, useCursor } from '../components/Pager';

/** This store's background jobs; re-read every 2 s while any is queued or active. */
export function Jobs() {
  const pager = useCursor();
  const jobs = useQuery({
    queryKey: ['jobs', pager.cursor],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/jobs', { params: { query: { limit: 20, ...(pager.cursor ? { cursor: pager.cursor } : {}) } } })),
    refetchInterval: (query) => (query.state.data?.data.jobs.some((job) => job.status === 'queued' || job.status === 'active') ? 2000 : false)
  });
  return (
    <Stack>
      <Title order={1}>Jobs</Title>
      <Table striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Type</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Progress</Table.Th>
            <Table.Th>Created</Table.Th>
            <Table.Th>Error</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {jobs.data?.data.jobs.map((job) => (
            <Table.Tr key={job.id}>
              <Table.Td>{job.type}</Table.Td>
              <Table.Td>{job.status}</Table.Td>
              <Table.Td>{job.progress.percent}%</Table.Td>
              <Table.Td>{new Date(job.createdAt).toLocaleString()}</Table.Td>
              <Table.Td>{job.error}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Pager pager={pager} nextCursor={nextCursorOf(jobs.data?.meta)} />
    </Stack>
  );
}
