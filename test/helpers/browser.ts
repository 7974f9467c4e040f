import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

/** Debian's chromium (`apt-get install chromium`); Playwright's own browser download cannot run here. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = () => existsSync(CHROMIUM);

/** A browser test's `skip`: false with chromium here, else the reason (every browser file says the same). */
export const chromiumSkip = (): false | string =>
  hasChromium() ? false : 'needs /usr/bin/chromium (apt-get install chromium); Playwright cannot download its own browser here';

/** Where screenshots of each screen are kept (gitignored; CI keeps it as an artifact). */
export const ARTIFACTS = path.resolve('test-artifacts', 'console');

export async function launchBrowser(): Promise<Browser> {
  await mkdir(ARTIFACTS, { recursive: true });
  // --no-sandbox: CI runs as root, where chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

const require = createRequire(import.meta.url);
let axeSource: string | null = null;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * axe-core's serious and critical violations on the page as it is now. The script is evaluated
 * through the DevTools protocol, which the page's Content-Security-Policy does not govern (an inline
 * <script> would be refused, as it should be).
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  return (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Every axe-core violation on the page as it is now, whatever its impact (minor ones too). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = (await page.evaluate(async () => {
    const page = globalThis as unknown as { axe: { run: (context: unknown, options: object) => Promise<{ violations: unknown[] }> }; document: unknown };
    return (await page.axe.run(page.document, { resultTypes: ['violations'] })).violations;
  })) as AxeViolation[];
  return violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target })) }));
}

/** Collects what the page reports as CSP refusals and uncaught errors (each should stay empty). */
export function watchPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

/**
 * Clicks `target` once it is scrolled into view. Seen here (CI and this machine): Playwright's own
 * scroll-then-click on an element at the viewport's edge, or right after the layout moved, landed on
 * what had taken its place (a preview iframe, the page itself); bringing it into view first does not.
 */
export async function press(target: Locator): Promise<void> {
  await target.scrollIntoViewIfNeeded();
  await target.click();
}

/** Signs the console in as a member without the form: their token and store in the console's storage. */
export async function signIn(page: Page, base: string, member: { accessToken: string; store: { id: string } }): Promise<void> {
  await page.goto(`${base}/app/sign-in`);
  await page.evaluate(
    ([token, storeId]) => {
      const storage = (globalThis as unknown as { localStorage: { setItem(key: string, value: string): void } }).localStorage;
      storage.setItem('sw.accessToken', token!);
      storage.setItem('sw.storeId', storeId!);
    },
    [member.accessToken, member.store.id]
  );
}
