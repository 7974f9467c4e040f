import { useEffect, useState } from 'react';
import { authHeaders } from './client';

/**
 * Reads a server-sent-events route of the admin API (`/admin/jobs/{id}/events`,
 * `/admin/marketing/campaigns/{id}/events`) with fetch, as EventSource cannot send the auth headers.
 * Resolves with the last value once the stream closes.
 */
async function stream<T>(path: string, name: string, onValue: (value: T) => void, signal: AbortSignal): Promise<T | null> {
  const response = await fetch(path, { headers: { ...authHeaders(), accept: 'text/event-stream' }, signal });
  if (!response.ok || !response.body) throw new Error(`event stream refused (${response.status})`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let last: T | null = null;
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
      last = (JSON.parse(data) as Record<string, T>)[name] ?? null;
      if (last) onValue(last);
    }
  }
}

/** Re-reads the resource once a second until it ends: the fallback when the stream cannot be opened. */
async function poll<T>(read: (signal: AbortSignal) => Promise<T | undefined>, onValue: (value: T) => void, ended: (value: T) => boolean, signal: AbortSignal) {
  while (!signal.aborted) {
    const value = await read(signal);
    if (value) {
      onValue(value);
      if (ended(value)) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

export interface LiveSource<T> {
  /** The event stream's path, e.g. `/api/v1/admin/jobs/${id}/events`; null: nothing to follow yet. */
  path: string | null;
  name: string;
  ended: (value: T) => boolean;
  /** One read of the resource, for the polling fallback. */
  read: (signal: AbortSignal) => Promise<T | undefined>;
}

/** A resource's live state: streamed (re-opened when the server closes a long stream), else polled. */
export function useLive<T>(source: LiveSource<T>, initial: T | null = null) {
  const [value, setValue] = useState<T | null>(initial);
  const [mode, setMode] = useState<'stream' | 'poll'>('stream');
  const { path } = source;
  // A new path (the next job a screen follows) starts from its own first state, not from the last
  // state of the one before: a job that had completed before its stream answered went from
  // "completed" to "completed", and a screen waiting for that change (the bulk actions, which then
  // read the list again) never saw it. Reset while rendering, so no render shows the old value.
  const [valuePath, setValuePath] = useState(path);
  if (valuePath !== path) {
    setValuePath(path);
    setValue(initial);
    setMode('stream');
  }
  useEffect(() => {
    if (!path) return;
    const controller = new AbortController();
    (async () => {
      try {
        for (;;) {
          const last = await stream<T>(path, source.name, setValue, controller.signal);
          if (controller.signal.aborted || (last && source.ended(last))) return;
        }
      } catch {
        if (controller.signal.aborted) return;
        setMode('poll');
        await poll(source.read, setValue, source.ended, controller.signal).catch(() => undefined);
      }
    })();
    return () => controller.abort();
    // Keyed by the path: the source's functions mean the same for one path.
  }, [path]);
  return { value, mode };
}
