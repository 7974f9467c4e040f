import { Button, Card, FileInput, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { authHeaders } from '../../api/client';
import { ApiError, type ApiErrorBody } from '../../api/errors';
import { useJobProgress, type Job } from '../../api/job-events';
import { FormError } from '../../components/FormError';
import { JobProgress } from '../../components/JobProgress';

interface RowError {
  row: number;
  column: string;
  message: string;
}

/** Uploads a CSV (multipart `file`) and follows the import job live; shows its per-row errors. */
export function CustomerImport() {
  const [file, setFile] = useState<File | null>(null);
  const queryClient = useQueryClient();
  const upload = useMutation({
    mutationFn: async (csv: File) => {
      const form = new FormData();
      form.append('file', csv, csv.name);
      const response = await fetch('/api/v1/admin/customers/import', { method: 'POST', headers: authHeaders(), body: form });
      const body = (await response.json()) as { data?: { job: Job } } & ApiErrorBody;
      if (!response.ok || !body.data) throw new ApiError(response.status, body.error?.code ?? 'error', body.error?.message ?? 'Upload failed', body.error?.details);
      return body.data.job;
    }
  });
  const { job } = useJobProgress(upload.data?.id ?? null, upload.data ?? null);
  useEffect(() => {
    if (job?.status === 'completed') void queryClient.invalidateQueries({ queryKey: ['customers'] });
  }, [job?.status, queryClient]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (file) upload.mutate(file);
  };
  const result = job?.status === 'completed' ? (job.result as Record<string, unknown> & { errors?: RowError[] }) : null;
  return (
    <Card withBorder>
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4">
            Import customers
          </Title>
          <FileInput label="CSV file" accept="text/csv,.csv" value={file} onChange={setFile} clearable clearButtonProps={{ 'aria-label': 'Clear file' }} />
          <FormError error={upload.error} />
          <Button type="submit" disabled={!file} loading={upload.isPending}>
            Import
          </Button>
          <JobProgress job={job} label="Import" />
          {result && (
            <Text data-testid="import-result">
              {String(result.created)} created, {String(result.updated)} updated, {String(result.unchanged)} unchanged, {String(result.invalidRows)} invalid
            </Text>
          )}
          {result?.errors && result.errors.length > 0 && (
            <Table aria-label="Rows not imported">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Row</Table.Th>
                  <Table.Th>Column</Table.Th>
                  <Table.Th>Problem</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {result.errors.map((e, i) => (
                  <Table.Tr key={i}>
                    <Table.Td>{e.row}</Table.Td>
                    <Table.Td>{e.column}</Table.Td>
                    <Table.Td>{e.message}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Stack>
      </form>
    </Card>
  );
}
