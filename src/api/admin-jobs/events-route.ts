import { PassThrough } from 'node:stream';
import { getJob, type JobDto } from '../../services/job-history/job-runs.js';
import { ADMINS } from '../../services/roles.js';
import { tenantOf } from '../plugins/auth.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';

/** How often the stream reads the job row, the keep-alive comment interval, and a stream's lifetime. */
export const JOB_EVENTS_POLL_MS = 400;
const HEARTBEAT_MS = 10_000;
const MAX_STREAM_MS = 5 * 60_000;

const frame = (event: string, job: JobDto) => `event: ${event}\ndata: ${JSON.stringify({ job })}\n\n`;

/**
 * A job's progress as server-sent events, with the admin API's own auth (bearer JWT + x-store-id, or
 * an API key): the console reads it with fetch and a stream reader, as EventSource cannot send
 * headers, so no token ever travels in a URL. Events: `progress` (the job, whenever it changes, the
 * first at once) and `end` (the job once completed or failed; then the stream closes). A stream open
 * five minutes closes without `end`; the client opens another (or polls GET /admin/jobs/{jobId}).
 */
export const jobEventsRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/jobs/{jobId}/events',
  options: {
    description:
      'Server-sent events (text/event-stream) of a job: `progress` with `{ job }` whenever it changes (the first at once), then `end` with `{ job }` once completed or failed; same auth as the admin API (headers, so read it with fetch; EventSource cannot send them)',
    tags: ['jobs'],
    validate: { params: idParams('jobId') },
    plugins: {
      openapi: {
        success: {
          status: 200,
          description: 'An event stream; each event\'s data is `{ "job": Job }` (JSON)',
          content: { 'text/event-stream': { schema: { type: 'string' } } }
        }
      }
    },
    handler: async (request, h) => {
      const ctx = request.server.app.ctx;
      const storeId = tenantOf(request).storeId;
      const jobId = request.params.jobId as string;
      // 404 (as JSON) before the stream opens, for an unknown job or another store's.
      let job = await getJob(ctx, storeId, jobId);
      const stream = new PassThrough();
      let last = '';
      let closed = false;
      const timers: NodeJS.Timeout[] = [];
      const close = () => {
        if (closed) return;
        closed = true;
        timers.forEach(clearTimeout);
        stream.end();
      };
      const send = (current: JobDto) => {
        const state = JSON.stringify(current);
        const ended = current.status === 'completed' || current.status === 'failed';
        if (state !== last) stream.write(frame('progress', current));
        last = state;
        if (ended) {
          stream.write(frame('end', current));
          close();
        }
      };
      const poll = async () => {
        if (closed) return;
        try {
          job = await getJob(ctx, storeId, jobId);
          send(job);
        } catch (error) {
          ctx.log.warn({ err: { message: (error as Error).message }, jobId }, 'job events: read failed');
        }
        if (!closed) timers[0] = setTimeout(poll, JOB_EVENTS_POLL_MS);
      };
      request.events.once('disconnect', close);
      stream.write(`retry: 2000\n\n`);
      send(job);
      if (!closed) {
        timers[0] = setTimeout(poll, JOB_EVENTS_POLL_MS);
        timers[1] = setInterval(() => stream.write(': keep-alive\n\n'), HEARTBEAT_MS);
        timers[2] = setTimeout(close, MAX_STREAM_MS);
      }
      return h
        .response(stream)
        .type('text/event-stream; charset=utf-8')
        .header('cache-control', 'no-cache, no-transform')
        // Never compressed (text/event-stream is not compressible: src/api/server.ts) nor buffered by a proxy.
        .header('x-accel-buffering', 'no');
    }
  }
});
