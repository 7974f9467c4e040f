import { PassThrough } from 'node:stream';
import type { Request, ResponseObject, ResponseToolkit } from '@hapi/hapi';

/** How often a stream re-reads its resource, the keep-alive comment interval, and a stream's lifetime. */
export const EVENT_STREAM_POLL_MS = 400;
const HEARTBEAT_MS = 10_000;
const MAX_STREAM_MS = 5 * 60_000;

export interface EventStreamSource<T> {
  /** The resource's name in each event's data: `{ [name]: value }`. */
  name: string;
  /** Reads the resource (throws, e.g. 404, before the stream opens). */
  read: () => Promise<T>;
  /** True once the resource will not change any more: the stream sends `end` and closes. */
  ended: (value: T) => boolean;
}

/** The OpenAPI description of such a stream (`plugins.openapi.success`). */
export const eventStreamSuccess = (name: string, schema: string) => ({
  status: 200,
  description: `An event stream; each event's data is \`{ "${name}": ${schema} }\` (JSON): \`progress\` whenever it changes (the first at once), then \`end\``,
  content: { 'text/event-stream': { schema: { type: 'string' } } }
});

/**
 * Server-sent events of one resource, read with the admin API's own auth (headers, so clients use
 * fetch: EventSource cannot send them, and a token in a URL would end up in logs). `progress` with the
 * resource at once and whenever it changes (re-read every EVENT_STREAM_POLL_MS), then `end` once
 * `ended` says so, and the stream closes; a `: keep-alive` comment every 10 s; a stream open five
 * minutes closes without `end` (the client opens another, or polls the resource).
 */
export async function eventStream<T>(request: Request, h: ResponseToolkit, source: EventStreamSource<T>): Promise<ResponseObject> {
  const log = request.server.app.ctx.log;
  let value = await source.read();
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
  const frame = (event: string, current: T) => `event: ${event}\ndata: ${JSON.stringify({ [source.name]: current })}\n\n`;
  const send = (current: T) => {
    const state = JSON.stringify(current);
    if (state !== last) stream.write(frame('progress', current));
    last = state;
    if (source.ended(current)) {
      stream.write(frame('end', current));
      close();
    }
  };
  const poll = async () => {
    if (closed) return;
    try {
      value = await source.read();
      send(value);
    } catch (error) {
      log.warn({ err: { message: (error as Error).message }, path: request.path }, 'event stream: read failed');
    }
    if (!closed) timers[0] = setTimeout(poll, EVENT_STREAM_POLL_MS);
  };
  request.events.once('disconnect', close);
  stream.write('retry: 2000\n\n');
  send(value);
  if (!closed) {
    timers[0] = setTimeout(poll, EVENT_STREAM_POLL_MS);
    timers[1] = setInterval(() => stream.write(': keep-alive\n\n'), HEARTBEAT_MS);
    timers[2] = setTimeout(close, MAX_STREAM_MS);
  }
  return (
    h
      .response(stream)
      .type('text/event-stream; charset=utf-8')
      .header('cache-control', 'no-cache, no-transform')
      // Never compressed (text/event-stream is not compressible: src/api/server.ts) nor buffered by a proxy.
      .header('x-accel-buffering', 'no')
  );
}
