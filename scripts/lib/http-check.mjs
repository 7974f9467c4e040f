// What the outside checks (scripts/*-check.mjs) share: PASS/FAIL steps, HTTP calls to the API with the
// contract's headers, polling, the local mail outbox, and the summary with its exit code. Plain Node 20
// ESM with no dependencies, so a check runs from a fresh clone.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function check(condition, message) {
  if (!condition) throw new Error(message);
}

export function expectStatus(response, status, what) {
  check(response.status === status, `${what}: expected ${status}, got ${response.status} ${response.text.slice(0, 400)}`);
  return response.json?.data;
}

/**
 * One check run against `api` (the server's /api/v1 URL). `requestTimeoutMs` bounds each request,
 * so a server that stopped answering fails its step instead of hanging the check.
 */
export function httpCheck({ api, outbox, timeoutMs, requestTimeoutMs }) {
  const results = [];

  /** Runs one step; a thrown Error is its FAIL with the message. */
  async function step(name, fn) {
    const started = Date.now();
    try {
      const detail = await fn();
      results.push({ name, ok: true });
      console.log(`PASS  ${name}${detail ? `: ${detail}` : ''} (${Date.now() - started} ms)`);
      return true;
    } catch (error) {
      results.push({ name, ok: false, error: error.message });
      console.log(`FAIL  ${name}: ${error.message} (${Date.now() - started} ms)`);
      return false;
    }
  }

  /** One HTTP call; JSON in and out unless `raw` is given. */
  async function call(method, url, { token, storeId, storefront, body, raw, contentType, headers = {} } = {}) {
    const h = { ...headers };
    if (token) h.authorization = `Bearer ${token}`;
    if (storeId) h['x-store-id'] = storeId;
    if (storefront) h['x-storefront-token'] = storefront;
    let payload;
    if (raw !== undefined) {
      payload = raw;
      h['content-type'] = contentType ?? 'application/octet-stream';
    } else if (body !== undefined) {
      payload = JSON.stringify(body);
      h['content-type'] = 'application/json';
    }
    const started = Date.now();
    let response;
    let text;
    try {
      const signal = requestTimeoutMs ? AbortSignal.timeout(requestTimeoutMs) : undefined;
      response = await fetch(`${api}${url}`, { method, headers: h, body: payload, signal });
      text = await response.text();
    } catch (error) {
      throw new Error(`${method} ${url}: ${error.name === 'TimeoutError' ? `no answer within ${requestTimeoutMs} ms (the server is stuck)` : error.message}`);
    }
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      // not JSON (a 304 has no body)
    }
    return { status: response.status, headers: response.headers, json, text, ms: Date.now() - started };
  }

  async function poll(what, fn, pollTimeoutMs = timeoutMs, intervalMs = 250) {
    const deadline = Date.now() + pollTimeoutMs;
    let last;
    for (;;) {
      last = await fn();
      if (last.done) return last.value;
      if (Date.now() > deadline) throw new Error(`${what}: still ${last.state ?? 'not done'} after ${pollTimeoutMs} ms`);
      await sleep(intervalMs);
    }
  }

  /** Every .eml in the outbox: file name, recipients (To), subject, campaign id header, body. */
  async function readOutbox() {
    let names;
    try {
      names = (await readdir(outbox)).filter((n) => n.endsWith('.eml'));
    } catch (error) {
      if (error.code === 'ENOENT') return [];
      throw error;
    }
    const mails = [];
    for (const name of names) {
      const text = await readFile(path.join(outbox, name), 'utf8');
      const head = text.split(/\r?\n\r?\n/)[0].replace(/\r?\n[ \t]+/g, ' ');
      const header = (key) => head.split(/\r?\n/).find((line) => line.toLowerCase().startsWith(`${key.toLowerCase()}:`))?.slice(key.length + 1).trim() ?? '';
      const to = [...header('To').matchAll(/<?([^\s<>",]+@[^\s<>",]+)>?/g)].map((m) => m[1].toLowerCase());
      // Bodies as plain text: quoted-printable soft breaks and escapes undone (enough to find links).
      const body = text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
      mails.push({ name, to, campaignId: header('X-Campaign-Id'), subject: header('Subject'), body });
    }
    return mails;
  }

  /** Prints the summary and exits: 0 when every step passed (and there was one), else 1. */
  function finish() {
    const failed = results.filter((r) => !r.ok);
    console.log(`\n${failed.length ? 'FAIL' : 'PASS'}: ${results.length - failed.length}/${results.length} steps passed${failed.length ? `; failed: ${failed.map((r) => r.name).join('; ')}` : ''}`);
    process.exit(failed.length || !results.length ? 1 : 0);
  }

  return { results, step, call, poll, readOutbox, finish };
}
