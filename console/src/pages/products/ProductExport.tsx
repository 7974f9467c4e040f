import { Button, Card, Group, NativeSelect, Stack, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, authHeaders } from '../../api/client';
import { ensureOk, unwrap } from '../../api/errors';
import { useJobProgress, type Job } from '../../api/job-events';
import { FormError } from '../../components/FormError';
import { JobProgress } from '../../components/JobProgress';

type Status = 'draft' | 'active' | 'archived';

/** Exports products (optionally by status or tag) as a Shopify CSV: follows the job, then downloads the file with the auth headers. */
export function ProductExport() {
  const [status, setStatus] = useState<Status | ''>('');
  const [tag, setTag] = useState('');
  const start = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/products/export', { body: { ...(status ? { status } : {}), ...(tag.trim() ? { tag: tag.trim() } : {}) } })).data.job as Job
  });
  const { job } = useJobProgress(start.data?.id ?? null, start.data ?? null);
  const download = useMutation({
    mutationFn: async (jobId: string) => {
      const response = await ensureOk(await fetch(`/api/v1/admin/jobs/${encodeURIComponent(jobId)}/download`, { headers: authHeaders() }));
      const url = URL.createObjectURL(await response.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'products.csv';
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    }
  });
  return (
    <Card withBorder component="section" aria-labelledby="product-export-title">
      <Stack>
        <Title order={2} size="h4" id="product-export-title">
          Export products
        </Title>
        <Group align="flex-end">
          <NativeSelect
            label="Export status"
            value={status}
            onChange={(e) => setStatus(e.currentTarget.value as Status | '')}
            data={[
              { value: '', label: 'All products' },
              { value: 'active', label: 'Active' },
              { value: 'draft', label: 'Draft' },
              { value: 'archived', label: 'Archived' }
            ]}
          />
          <TextInput label="Export tag (optional)" value={tag} onChange={(e) => setTag(e.currentTarget.value)} />
          <Button variant="default" onClick={() => start.mutate()} loading={start.isPending}>
            Export to CSV
          </Button>
        </Group>
        <FormError error={start.error ?? download.error} />
        <JobProgress job={job} label="Export" />
        {job?.status === 'completed' && (
          <Button onClick={() => download.mutate(job.id)} loading={download.isPending} w="fit-content">
            Download product CSV
          </Button>
        )}
      </Stack>
    </Card>
  );
}
