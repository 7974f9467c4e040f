import t from 'tap';
import { COMPRESSION_MIN_BYTES } from '../../../src/api/compression.js';
import { consoleIsStale } from '../../../src/api/console/ensure-built.js';
import { addMember, buildApp, signupOwner } from '../../helpers/app.js';
import { importCsv } from '../../helpers/jobs.js';

/** The console at /app: history fallback, caching, the Content-Security-Policy; and the job event stream. */
t.test('/app serves the built console: index never cached, hashed assets immutable, strict CSP', async (t) => {
  t.equal(await consoleIsStale(), false, 'npm run build leaves a console newer than its sources');
  const app = await buildApp(t);
  const index = await app.server.inject({ url: '/app' });
  t.equal(index.statusCode, 200);
  t.match(index.headers['content-type'], /^text\/html/);
  t.equal(index.headers['cache-control'], 'no-cache');
  const csp = String(index.headers['content-security-policy']);
  t.match(csp, /script-src 'self'(;|$)/, 'scripts from this origin only');
  t.notMatch(csp, /unsafe-eval/);
  t.match(csp, /frame-ancestors 'none'/);
  t.notMatch(index.payload, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script in index.html');

  const deep = await app.server.inject({ url: '/app/orders/9b2c1f8e-0000-4000-8000-000000000000?tab=items' });
  t.equal(deep.statusCode, 200, 'history fallback: any screen path answers index.html');
  t.equal(deep.payload, index.payload);

  const assets = [...index.payload.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  t.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), 'index names a hashed script and stylesheet');
  for (const asset of assets) {
    const response = await app.server.inject({ url: asset, headers: { 'accept-encoding': 'gzip' } });
    t.equal(response.statusCode, 200, asset);
    t.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable', `${asset} is cached for a year`);
    if (response.rawPayload.length > COMPRESSION_MIN_BYTES) t.equal(response.headers['content-encoding'], 'gzip', `${asset} is compressed`);
  }
  const missing = await app.server.inject({ url: '/app/assets/index-nothere.js' });
  t.equal(missing.statusCode, 404, 'a missing asset is a 404, not index.html');
  const outside = await app.server.inject({ url: '/app/assets/..%2f..%2fpackage.json' });
  t.equal(outside.statusCode, 404, 'nothing outside the build folder is served');
});

/** Reads server-sent events from a live response until `end` (or the stream closes). */
async function readEvents(response: Response, onEvent?: (event: string, job: { status: string }) => void) {
  const events: Array<{ event: string; job: { status: string; progress: { percent: number }; result: Record<string, unknown> | null } }> = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.+)$/m.exec(block)?.[1];
      const data = /^data: (.+)$/m.exec(block)?.[1];
      if (!event || !data) continue;
      const parsed = { event, job: JSON.parse(data).job };
      events.push(parsed);
      onEvent?.(event, parsed.job);
    }
  }
  return events;
}

t.test('GET /admin/jobs/{jobId}/events streams a job live until it ends, with the admin auth', async (t) => {
  const app = await buildApp(t, { listen: true });
  const owner = await signupOwner(app);
  const base = `${app.server.info.uri}/api/v1`;
  const headers = { authorization: `Bearer ${owner.accessToken}`, 'x-store-id': owner.store.id, 'accept-encoding': 'gzip, br' };
  const rows = Array.from({ length: 300 }, (_, i) => `sse${i}@example.com,Stream,Row${i}`).join('\n');
  const started = await importCsv(app, owner, `email,firstName,lastName\n${rows}\n`);
  t.equal(started.status, 202, started.raw);
  const jobId = started.body.data.job.id as string;

  const response = await fetch(`${base}/admin/jobs/${jobId}/events`, { headers });
  t.equal(response.status, 200);
  t.match(response.headers.get('content-type'), /^text\/event-stream/);
  t.equal(response.headers.get('content-encoding'), null, 'never compressed (a compressor would hold events back)');
  t.equal(response.headers.get('cache-control'), 'no-cache, no-transform');
  // The job is queued (no worker yet): the stream stays open and says so; workers then run it.
  let workersStarted = false;
  const events = await readEvents(response, (event, job) => {
    if (!workersStarted && event === 'progress' && job.status === 'queued') {
      workersStarted = true;
      void app.startWorkers(['imports']);
    }
  });
  t.equal(events[0]?.job.status, 'queued', 'the first event is the job as it is now');
  t.equal(events.at(-1)?.event, 'end', 'the stream ends with `end`');
  t.match(events.at(-1)?.job, { status: 'completed', progress: { percent: 100 }, result: { created: 300 } });
  t.ok(events.filter((e) => e.event === 'progress').length >= 2, 'progress events while it ran');

  const finished = await fetch(`${base}/admin/jobs/${jobId}/events`, { headers });
  const again = await readEvents(finished);
  t.same(
    again.map((e) => e.event),
    ['progress', 'end'],
    'a finished job answers its state and ends at once'
  );

  const unknown = await fetch(`${base}/admin/jobs/00000000-0000-4000-8000-000000000000/events`, { headers });
  t.equal(unknown.status, 404);
  t.equal(((await unknown.json()) as { error: { code: string } }).error.code, 'not_found');
  const anonymous = await fetch(`${base}/admin/jobs/${jobId}/events`);
  t.equal(anonymous.status, 401, 'no token, no stream');
  const staff = await addMember(app, owner.store.id, 'staff');
  const refused = await fetch(`${base}/admin/jobs/${jobId}/events`, { headers: { authorization: `Bearer ${staff.accessToken}`, 'x-store-id': owner.store.id } });
  t.equal(refused.status, 403, 'staff may not follow jobs, as they may not list them');

  const noCampaign = await fetch(`${base}/admin/marketing/campaigns/00000000-0000-4000-8000-000000000000/events`, { headers });
  t.equal(noCampaign.status, 404, 'an unknown campaign has no stream');
  // Last: building the document holds this process's event loop for seconds on a busy machine, and a
  // keep-alive socket fetch reused after it had been closed by the server meanwhile (CI: fetch failed).
  const document = await app.request({ url: '/openapi.json' });
  for (const path of ['/api/v1/admin/jobs/{jobId}/events', '/api/v1/admin/marketing/campaigns/{campaignId}/events']) {
    t.ok(document.body.paths[path].get.responses['200'].content['text/event-stream'], `the OpenAPI document describes ${path}`);
  }
});
