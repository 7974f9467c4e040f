import { useEffect, useState } from 'react';
import type { components } from './schema';
import { api, authHeaders } from './client';

export type Job = components['schemas']['Job'];

const finished = (job: Job) => job.status === 'completed' || job.status === 'failed';

/** Reads `GET /admin/jobs/{jobId}/events` with fetch (EventSource cannot send the auth headers). */
async function streamJob(jobId: string, onJob: (job: Job) => void, signal: AbortSignal): Promise<Job | null> {
  const response = await fetch(`/api/v1/admin/jobs/${encodeURIComponent(jobId)}/events`, { headers: { ...authHeaders(), accept: 'text/event-stream' }, signal });
  if (!response.ok || !response.body) throw new Error(`event stream refused (${response.status})`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let last: Job | null = null;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return last;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      if (!data) continue;
      last = (JSON.parse(data) as { job: Job }).job;
      onJob(last);
      if (finished(last)) return last;
    }
  }
}

/** Polls GET /admin/jobs/{jobId} once a second until the job ends: the fallback when streaming fails. */
async function pollJob(jobId: string, onJob: (job: Job) => void, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    const { data } = await api.GET('/api/v1/admin/jobs/{jobId}', { params: { path: { jobId } }, signal });
    if (data) {
      onJob(data.data.job);
      if (finished(data.data.job)) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** A job's live state: streamed (re-opened when the server closes a long stream), else polled. */
export function useJobProgress(jobId: string | null, initial: Job | null = null) {
  const [job, setJob] = useState<Job | null>(initial);
  const [mode, setMode] = useState<'stream' | 'poll'>('stream');
  useEffect(() => {
    if (!jobId) return;
    const controller = new AbortController();
    (async () => {
      try {
        for (;;) {
          const last = await streamJob(jobId, setJob, controller.signal);
          if (controller.signal.aborted || (last && finished(last))) return;
        }
      } catch {
        if (controller.signal.aborted) return;
        setMode('poll');
        await pollJob(jobId, setJob, controller.signal).catch(() => undefined);
      }
    })();
    return () => controller.abort();
  }, [jobId]);
  return { job, mode };
}
