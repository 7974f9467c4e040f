import { Alert, Progress, Stack, Text } from '@mantine/core';
import type { Job } from '../api/job-events';

const numberOf = (value: unknown) => (typeof value === 'number' ? value : null);

/** A job's progress bar and status, announced politely to screen readers. */
export function JobProgress({ job, label }: { job: Job | null; label: string }) {
  if (!job) return null;
  const percent = job.progress.percent;
  const processed = numberOf(job.progress.processed) ?? numberOf(job.progress.processedRows);
  return (
    <Stack gap={4}>
      <Progress value={percent} aria-label={label} animated={job.status === 'active' || job.status === 'queued'} />
      <Text size="sm" role="status" aria-live="polite" data-testid="job-status">
        {label}: {job.status}, {percent}%{processed !== null ? ` (${processed} rows)` : ''}
      </Text>
      {job.status === 'failed' && (
        <Alert color="red" role="alert">
          {job.error}
        </Alert>
      )}
    </Stack>
  );
}
