import type { components } from './schema';
import { api } from './client';
import { useLive } from './live';

export type Job = components['schemas']['Job'];

const finished = (job: Job) => job.status === 'completed' || job.status === 'failed';

/** A job's live state over GET /admin/jobs/{jobId}/events, polling GET /admin/jobs/{jobId} as the fallback. */
export function useJobProgress(jobId: string | null, initial: Job | null = null) {
  const { value, mode } = useLive<Job>(
    {
      path: jobId ? `/api/v1/admin/jobs/${encodeURIComponent(jobId)}/events` : null,
      name: 'job',
      ended: finished,
      read: async (signal) => (await api.GET('/api/v1/admin/jobs/{jobId}', { params: { path: { jobId: jobId! } }, signal })).data?.data.job
    },
    initial
  );
  return { job: value, mode };
}
