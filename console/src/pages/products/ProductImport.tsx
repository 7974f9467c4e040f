import { Anchor, Button, Card, FileInput, NativeSelect, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { authHeaders } from '../../api/client';
import { ApiError, type ApiErrorBody } from '../../api/errors';
import { useJobProgress, type Job } from '../../api/job-events';
import { FormError } from '../../components/FormError';
import { JobProgress } from '../../components/JobProgress';

type Mode = 'upsert' | 'create' | 'update';
interface RowError {
  row?: number;
  column?: string;
  message?: string;
}

/** Uploads a Shopify product CSV (multipart `file`, ?mode=), follows the import job live and lists the rows it could not take. */
export function ProductImport() {
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [mode, setMode] = useState<Mode>('upsert');
  const upload = useMutation({
    mutationFn: async (csv: File) => {
      const form = new FormData();
      form.append('file', csv, csv.name);
      const response = await fetch(`/api/v1/admin/products/import?mode=${mode}`, { method: 'POST', headers: authHeaders(), body: form });
      const body = (await response.json().catch(() => ({}))) as { data?: { job: Job } } & ApiErrorBody;
      if (!response.ok || !body.data) throw new ApiError(response.status, body.error?.code ?? 'error', body.error?.message ?? 'Upload failed', body.error?.details);
      return body.data.job;
    }
  });
  const { job } = useJobProgress(upload.data?.id ?? null, upload.data ?? null);
  useEffect(() => {
    if (job?.status === 'completed') void queryClient.invalidateQueries({ queryKey: ['products'] });
  }, [job?.status, queryClient]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (file) upload.mutate(file);
  };
  const result = job?.status === 'completed' ? (job.result as Record<string, unknown> & { errors?: RowError[] }) : null;
  const figures = result ? Object.entries(result).filter(([, v]) => typeof v === 'number') : [];
  return (
    <Card withBorder component="section" aria-labelledby="product-import-title">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="product-import-title">
            Import products
          </Title>
          <Text size="sm">A Shopify product CSV (Handle, Title, Body (HTML), Variant Price, …), up to 50 MB.</Text>
          <FileInput label="Product CSV file" accept="text/csv,.csv" value={file} onChange={setFile} clearable clearButtonProps={{ 'aria-label': 'Clear file' }} />
          <NativeSelect
            label="Products already in the store"
            value={mode}
            onChange={(e) => setMode(e.currentTarget.value as Mode)}
            data={[
              { value: 'upsert', label: 'Update them, add the new ones' },
              { value: 'create', label: 'Only add new products (a known handle is a row error)' },
              { value: 'update', label: 'Only update them (an unknown handle is a row error)' }
            ]}
          />
          <FormError error={upload.error} />
          <Button type="submit" disabled={!file} loading={upload.isPending} w="fit-content">
            Import
          </Button>
          <JobProgress job={job} label="Import" />
          {job && (
            <Anchor component={Link} to={`/jobs/${job.id}`} size="sm">
              Open the import's job page
            </Anchor>
          )}
          {result && (
            <Text data-testid="import-result">
              {figures.map(([key, value]) => `${String(value)} ${key.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()}`).join(', ')}
            </Text>
          )}
          {result?.errors && result.errors.length > 0 && (
            <div className="table-scroll">
              <Table aria-label="Rows not imported">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Row</Table.Th>
                    <Table.Th>Column</Table.Th>
                    <Table.Th>Problem</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {result.errors.slice(0, 200).map((e, i) => (
                    <Table.Tr key={i} data-testid="import-error">
                      <Table.Td>{e.row ?? ''}</Table.Td>
                      <Table.Td>{e.column ?? ''}</Table.Td>
                      <Table.Td>{e.message ?? ''}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </div>
          )}
        </Stack>
      </form>
    </Card>
  );
}
