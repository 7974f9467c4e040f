import { Button, Card, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router-dom';
import { api, authHeaders } from '../api/client';
import { ensureOk, unwrap } from '../api/errors';
import { ConfirmButton } from '../components/ConfirmButton';
import { FormError } from '../components/FormError';
import { JobProgress } from '../components/JobProgress';
import { human } from '../components/labels';
import { ListState } from '../components/ListState';

interface RowError {
  row?: number;
  line?: number;
  column?: string;
  message?: string;
}

const EXPORTS = new Set(['customers.export', 'products.export', 'audit.export', 'taxes.report']);

/**
 * A job: its progress (re-read every second while it runs), when it started and finished, its
 * result's figures, the rows it could not take with their line and problem, and the file of a
 * completed export to download.
 */
export function JobDetail() {
  const jobId = useParams().jobId!;
  const queryClient = useQueryClient();
  const job = useQuery({
    queryKey: ['job', jobId],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/jobs/{jobId}', { params: { path: { jobId } } })).data.job,
    refetchInterval: (query) => (query.state.data && (query.state.data.status === 'queued' || query.state.data.status === 'active') ? 1000 : false)
  });
  const download = useMutation({
    mutationFn: async () => {
      const response = await ensureOk(await fetch(`/api/v1/admin/jobs/${encodeURIComponent(jobId)}/download`, { headers: authHeaders() }));
      const url = URL.createObjectURL(await response.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'export.csv';
      link.click();
      URL.revokeObjectURL(url);
    }
  });
  // Retry (a failed job) and cancel (a queued one): the API answers the job as it now is.
  const control = useMutation({
    mutationFn: async (action: 'retry' | 'cancel') =>
      action === 'retry'
        ? unwrap(await api.POST('/api/v1/admin/jobs/{jobId}/retry', { params: { path: { jobId } } })).data.job
        : unwrap(await api.POST('/api/v1/admin/jobs/{jobId}/cancel', { params: { path: { jobId } } })).data.job,
    onSuccess: (next) => {
      queryClient.setQueryData(['job', jobId], next);
      void queryClient.invalidateQueries({ queryKey: ['jobs'] });
    }
  });
  if (!job.data)
    return (
      <Stack>
        <Title order={1}>Job</Title>
        <ListState query={job} count={undefined} empty="" label="the job" />
      </Stack>
    );
  const j = job.data;
  const result = (j.result ?? {}) as Record<string, unknown>;
  const errors = Array.isArray(result.errors) ? (result.errors as RowError[]) : [];
  const figures = Object.entries(result).filter(([, value]) => typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean');
  return (
    <Stack>
      <Title order={1}>{human(j.type)}</Title>
      <Card withBorder>
        <Stack gap="xs">
          <JobProgress job={j} label={human(j.type)} />
          <Text size="sm">
            Created {new Date(j.createdAt).toLocaleString()}
            {j.startedAt ? ` · started ${new Date(j.startedAt).toLocaleString()}` : ''}
            {j.finishedAt ? ` · finished ${new Date(j.finishedAt).toLocaleString()}` : ''}
          </Text>
          {figures.length > 0 && (
            <Text size="sm" data-testid="job-result">
              {figures.map(([key, value]) => `${human(key.replace(/([a-z])([A-Z])/g, '$1_$2'))}: ${String(value)}`).join(' · ')}
            </Text>
          )}
          {EXPORTS.has(j.type) && j.status === 'completed' && (
            <Group>
              <Button onClick={() => download.mutate()} loading={download.isPending}>
                Download file
              </Button>
            </Group>
          )}
          {j.status === 'failed' && (
            <Group>
              <Button variant="default" onClick={() => control.mutate('retry')} loading={control.isPending}>
                Retry job
              </Button>
            </Group>
          )}
          {j.status === 'queued' && (
            <ConfirmButton label="Cancel job" question="Cancel this job before it starts?" confirm="Yes, cancel the job" onConfirm={() => control.mutate('cancel')} pending={control.isPending} />
          )}
          <FormError error={download.error ?? control.error} />
        </Stack>
      </Card>
      {errors.length > 0 && (
        <section aria-labelledby="job-errors">
          <Title order={2} size="h4" id="job-errors">
            Rows not taken ({errors.length})
          </Title>
          <div className="table-scroll">
            <Table aria-label="Rows not taken">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Row</Table.Th>
                  <Table.Th>Column</Table.Th>
                  <Table.Th>Problem</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {errors.slice(0, 500).map((e, i) => (
                  <Table.Tr key={i}>
                    <Table.Td>{e.row ?? e.line ?? ''}</Table.Td>
                    <Table.Td>{e.column ?? ''}</Table.Td>
                    <Table.Td>{e.message ?? ''}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </div>
        </section>
      )}
    </Stack>
  );
}
