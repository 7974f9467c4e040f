import { Button, Card, Stack, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { api, authHeaders } from '../../api/client';
import { unwrap } from '../../api/errors';
import { useJobProgress, type Job } from '../../api/job-events';
import { FormError } from '../../components/FormError';
import { JobProgress } from '../../components/JobProgress';

/** Starts an export, follows it live, then downloads the CSV (with the auth headers, as a blob). */
export function CustomerExport() {
  const start = useMutation({ mutationFn: async () => unwrap(await api.POST('/api/v1/admin/customers/export')).data.job as Job });
  const { job } = useJobProgress(start.data?.id ?? null, start.data ?? null);
  const download = async () => {
    if (!job) return;
    const response = await fetch(`/api/v1/admin/jobs/${job.id}/download`, { headers: authHeaders() });
    const url = URL.createObjectURL(await response.blob());
    const link = document.createElement('a');
    link.href = url;
    link.download = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'customers.csv';
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  return (
    <Card withBorder>
      <Stack>
        <Title order={2} size="h4">
          Export customers
        </Title>
        <Button variant="default" onClick={() => start.mutate()} loading={start.isPending}>
          Export to CSV
        </Button>
        <FormError error={start.error} />
        <JobProgress job={job} label="Export" />
        {job?.status === 'completed' && <Button onClick={download}>Download CSV</Button>}
      </Stack>
    </Card>
  );
}
