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
      // Both widths the console is built for: a phone (390 px, Lighthouse's mobile form factor) and a
      // desk (1360 px, desktop); the main screens an operator lives in.
      const widths = [
        { label: '390 px', formFactor: 'mobile' as const, screenEmulation: { mobile: true, width: 390, height: 844, deviceScaleFactor: 3, disabled: false } },
        { label: '1360 px', formFactor: 'desktop' as const, screenEmulation: { mobile: false, width: 1360, height: 900, deviceScaleFactor: 1, disabled: false } }
      ];
      const lowest = { performance: 100, accessibility: 100 };
      for (const width of widths) {
        for (const [name, path, signedIn] of [
          ['sign-in', '/app/sign-in', false],
          ['home', '/app/', true],
          ['orders', '/app/orders', true],
          ['products', '/app/products', true],
          ['customers', '/app/customers', true],
          ['discounts', '/app/discounts', true]
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
          const result = await lighthouse(
            `${server.api}${path}`,
            { port: chrome.port, onlyCategories: ['performance', 'accessibility'], disableStorageReset: true, logLevel: 'error', output: 'json' },
            { extends: 'lighthouse:default', settings: { formFactor: width.formFactor, screenEmulation: width.screenEmulation, ...(width.formFactor === 'desktop' ? { throttling: { rttMs: 40, throughputKbps: 10240, cpuSlowdownMultiplier: 1, requestLatencyMs: 0, downloadThroughputKbps: 0, uploadThroughputKbps: 0 } } : {}) } }
          );
          const categories = result?.lhr.categories ?? {};
          const score = (key: 'performance' | 'accessibility') => Math.round((categories[key]?.score ?? 0) * 100);
          lowest.performance = Math.min(lowest.performance, score('performance'));
          lowest.accessibility = Math.min(lowest.accessibility, score('accessibility'));
          console.log(`lighthouse ${name} at ${width.label}: performance ${score('performance')} (target >= 90), accessibility ${score('accessibility')} (target >= 95)`);
        }
      }
      console.log(`lighthouse lowest over ${widths.length * 6} screens: performance ${lowest.performance} (target >= 90), accessibility ${lowest.accessibility} (target >= 95)`);
      await cdp.close();
    } finally {
      chrome.kill();
    }
  } finally {
    await server.stop();
  }
}
