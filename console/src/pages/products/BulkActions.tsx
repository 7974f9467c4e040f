import { Button, Card, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { useJobProgress, type Job } from '../../api/job-events';
import { FormError } from '../../components/FormError';
import { JobProgress } from '../../components/JobProgress';

type Kind = 'publish' | 'unpublish' | 'archive' | 'addTags' | 'removeTags' | 'delete';
const KINDS: Array<{ value: Kind; label: string }> = [
  { value: 'publish', label: 'Publish (active)' },
  { value: 'unpublish', label: 'Unpublish (draft)' },
  { value: 'archive', label: 'Archive' },
  { value: 'addTags', label: 'Add tags' },
  { value: 'removeTags', label: 'Remove tags' },
  { value: 'delete', label: 'Delete' }
];

function actionOf(kind: Kind, tags: string) {
  const list = tags.split(',').map((t) => t.trim()).filter(Boolean);
  if (kind === 'publish') return { type: 'setStatus' as const, status: 'active' as const };
  if (kind === 'unpublish') return { type: 'setStatus' as const, status: 'draft' as const };
  if (kind === 'archive') return { type: 'setStatus' as const, status: 'archived' as const };
  if (kind === 'delete') return { type: 'delete' as const };
  return { type: kind, tags: list };
}

interface BulkResult {
  matched?: number;
  changed?: number;
  skipped?: number;
  problems?: Array<{ productId: string; message: string }>;
}

/**
 * What to do with the products selected on the list (POST /admin/products/bulk, a job): publish,
 * unpublish, archive, tag, untag or delete (asked twice). Products that cannot take the change (an
 * ordered one cannot be deleted) are skipped and named.
 */
export function BulkActions({ ids, titles, onDone }: { ids: string[]; titles: Map<string, string>; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<Kind>('publish');
  const [tags, setTags] = useState('');
  const [asking, setAsking] = useState(false);
  const run = useMutation({
    mutationFn: async () => {
      const body = { ids, action: actionOf(kind, tags) } as never;
      return unwrap(await api.POST('/api/v1/admin/products/bulk', { body, headers: { 'idempotency-key': crypto.randomUUID() } })).data.job as Job;
    }
  });
  const { job } = useJobProgress(run.data?.id ?? null, run.data ?? null);
  useEffect(() => {
    if (job?.status === 'completed') {
      void queryClient.invalidateQueries({ queryKey: ['products'] });
      onDone();
    }
  }, [job?.status, queryClient, onDone]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (kind === 'delete' && !asking) return setAsking(true);
    setAsking(false);
    run.mutate();
  };
  const result = job?.status === 'completed' ? (job.result as BulkResult) : null;
  const tagsNeeded = kind === 'addTags' || kind === 'removeTags';
  return (
    <Card withBorder component="section" aria-label="Bulk actions">
      <form onSubmit={submit}>
        <Stack gap="xs">
          <Group align="flex-end">
            <Text fw={500} data-testid="selected-count">
              {ids.length} selected
            </Text>
            <NativeSelect label="Bulk action" value={kind} data={KINDS} onChange={(e) => (setKind(e.currentTarget.value as Kind), setAsking(false))} />
            {tagsNeeded && <TextInput label="Tags (comma separated)" required value={tags} onChange={(e) => setTags(e.currentTarget.value)} error={fieldError(run.error, 'action.tags')} />}
            {!asking && (
              <Button type="submit" disabled={ids.length === 0} loading={run.isPending}>
                Apply to selected
              </Button>
            )}
          </Group>
          {asking && (
            <Group gap="xs">
              <Text role="status">Delete {ids.length} products? Ordered products are kept (archive them instead).</Text>
              <Button type="submit" color="red">
                Yes, delete them
              </Button>
              <Button variant="default" onClick={() => setAsking(false)}>
                No, keep them
              </Button>
            </Group>
          )}
          <FormError error={run.error} fields={['action.tags']} />
          <JobProgress job={job} label="Bulk change" />
          {result && (
            <Text size="sm" role="status" data-testid="bulk-result">
              {result.changed ?? 0} changed{result.skipped ? `, ${result.skipped} skipped` : ''}
            </Text>
          )}
          {result?.problems?.map((p) => (
            <Text size="sm" c="red.8" key={p.productId}>
              {titles.get(p.productId) ?? p.productId}: {p.message}
            </Text>
          ))}
        </Stack>
      </form>
    </Card>
  );
}
