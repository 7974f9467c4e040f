import { PassThrough } from 'node:stream';
import type { Request, ResponseObject, ResponseToolkit, Server } from '@hapi/hapi';
import { notFound } from '../errors.js';
import { EventStreamHub, frame, send, type EventStreamTopic, type HubStream } from './event-streams/hub.js';
import { reserveStreamSlots } from './event-streams/limits.js';
import { credentialOf, tenantOf } from './plugins/auth.js';

export type { EventStreamTopic } from './event-streams/hub.js';

declare module '@hapi/hapi' {
  interface ServerApplicationState {
    /** The one poller behind every event stream this server holds open (src/api/event-streams/hub.ts). */
    eventStreams: EventStreamHub;
  }
}

/** Gives a server its stream hub, which ends every stream when the server stops. */
export function installEventStreams(server: Server): void {
  server.app.eventStreams = new EventStreamHub(server.app.ctx);
  server.ext('onPreStop', () => server.app.eventStreams.stop());
}

/** How many streams a server holds open and how its one poller has worked (tests, operators). */
export const eventStreamStats = (server: Server) => server.app.eventStreams.stats();

/** The OpenAPI description of such a stream (`plugins.openapi.success`). */
export const eventStreamSuccess = (name: string, schema: string) => ({
  status: 200,
  description:
    `An event stream; each event's data is \`{ "${name}": ${schema} }\` (JSON): \`progress\` whenever it changes (the first at once), then \`end\`. ` +
    'If the credential stops holding meanwhile (key revoked, member removed, role lowered, token expired), an `error` event carries the error envelope and the stream ends. ' +
    'At most EVENT_STREAMS_PER_PRINCIPAL (default 5) open streams per user or API key and EVENT_STREAMS_PER_STORE (default 50) per store, across every process: past either, 429 `rate_limited`.',
  content: { 'text/event-stream': { schema: { type: 'string' } } }
});

/**
 * Server-sent events of one resource, read with the admin API's own auth (headers, so clients use
 * fetch: EventSource cannot send them, and a token in a URL would end up in logs). `progress` with the
 * resource at once and whenever it changes, then `end` once `ended` says so, and the stream closes; a
 * `: keep-alive` comment every 10 s; a stream open five minutes closes without `end` (the client
 * opens another, or polls the resource). A finished resource is answered at once and holds nothing;
 * a live one takes places under the stream caps (429 past them) and joins the process's one poller,
 * which also re-checks its credential on every tick.
 */
export async function eventStream<T>(request: Request, h: ResponseToolkit, topic: EventStreamTopic<T>, resourceId: string): Promise<ResponseObject> {
  const ctx = request.server.app.ctx;
  const hub = request.server.app.eventStreams;
  const { storeId } = tenantOf(request);
  const value = (await topic.readMany(ctx, storeId, [resourceId])).get(resourceId);
  if (value === undefined) throw notFound(topic.label);
  const out = new PassThrough();
  out.write('retry: 2000\n\n');
  if (topic.ended(value)) {
    out.end(frame('progress', topic.name, value) + frame('end', topic.name, value));
  } else {
    const credential = credentialOf(request);
    const release = await reserveStreamSlots(ctx, credential);
    const stream: HubStream = { topic: topic as EventStreamTopic<unknown>, storeId, resourceId, credential, out, last: '', openedAt: Date.now(), release };
    send(hub, stream, value);
    hub.add(stream);
    request.events.once('disconnect', () => hub.close(stream));
    // Gone while its places were being taken: the disconnect event has already passed.
    if (!request.active()) hub.close(stream);
  }
  return (
    h
      .response(out)
      .type('text/event-stream; charset=utf-8')
      .header('cache-control', 'no-cache, no-transform')
      // Never compressed (text/event-stream is not compressible: src/api/server.ts) nor buffered by a proxy.
      .header('x-accel-buffering', 'no')
  );
}
