import { existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { launch } from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { chromium } from 'playwright-core';
import { freshBenchDatabase } from './lib/database.js';
import { startBenchServer } from './lib/http.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The JS and CSS /app's index.html loads, gzipped as the server sends them (issue 26: < 300 KB). */
async function firstLoad(base: string) {
  const index = await (await fetch(`${base}/app`)).text();
  const assets = [...index.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  let raw = 0;
  let gzip = 0;
  for (const asset of assets) {
    const body = Buffer.from(await (await fetch(`${base}${asset}`, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer());
    raw += body.length;
    gzip += gzipSync(body, { level: 4 }).length;
  }
  return { assets: assets.length, raw, gzip };
}

/**
 * `npm run bench -- console`: first-load bytes of /app, then Lighthouse performance and
 * accessibility (same chromium as the browser tests) on sign-in, orders and products, signed in
 * through localStorage before each audit (Lighthouse keeps storage: disableStorageReset).
 */
export async function run(): Promise<void> {
  console.log('\n# console: first load of /app and Lighthouse (targets: < 300 KB gzip JS+CSS, performance >= 90, accessibility >= 95)');
  const server = await startBenchServer(await freshBenchDatabase('console'));
  try {
    const load = await firstLoad(server.api);
    console.log(`first load: ${load.assets} files, ${(load.raw / 1024).toFixed(1)} KB raw, ${(load.gzip / 1024).toFixed(1)} KB gzip (target < 300 KB)`);
    if (!existsSync(CHROMIUM)) {
      console.log(`lighthouse: skipped, no browser at ${CHROMIUM} (apt-get install chromium)`);
      return;
    }
    const signup = await fetch(`${server.api}/api/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ firstName: 'Bench', lastName: 'Mark', email: 'console@example.com', password: 'benchmark-password', storeName: 'Bench', storeSlug: 'bench-console' })
    });
    const { data } = (await signup.json()) as { data: { accessToken: string; store: { id: string } } };
    const chrome = await launch({ chromePath: CHROMIUM, chromeFlags: ['--headless=new', '--no-sandbox', '--disable-dev-shm-usage'] });
    try {
      const cdp = await chromium.connectOverCDP(`http://127.0.0.1:${chrome.port}`);
      for (const [name, path, signedIn] of [
        ['sign-in', '/app/sign-in', false],
        ['orders', '/app/orders', true],
        ['products', '/app/products', true]
      ] as const) {
        const page = await cdp.contexts()[0]!.newPage();
        await page.goto(`${server.api}/app/sign-in`);
        await page.evaluate(
          ([token, storeId, keep]) => {
            const storage = (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void; clear(): void } }).localStorage;
            storage.clear();
            if (keep) {
              storage.setItem('sw.accessToken', token);
              storage.setItem('sw.storeId', storeId);
            }
          },
          [data.accessToken, data.store.id, signedIn] as const
        );
        await page.close();
        const result = await lighthouse(`${server.api}${path}`, {
          port: chrome.port,
          onlyCategories: ['performance', 'accessibility'],
          disableStorageReset: true,
          logLevel: 'error',
          output: 'json'
        });
        const categories = result?.lhr.categories ?? {};
        const score = (key: string) => Math.round((categories[key]?.score ?? 0) * 100);
        console.log(`lighthouse ${name}: performance ${score('performance')} (target >= 90), accessibility ${score('accessibility')} (target >= 95)`);
      }
      await cdp.close();
    } finally {
      chrome.kill();
    }
  } finally {
    await server.stop();
  }
}
