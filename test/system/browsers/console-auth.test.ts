import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { chromiumSkip, launchBrowser, screenshot, seriousViolations, watchPageErrors } from '../../helpers/browser.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';

// The browser is a system package (`apt-get install chromium`, done by .ci/run): without it, a stated skip.
const skip = chromiumSkip();

t.test('sign-in errors, forgot and reset password in the browser', { skip }, async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { workers: ['email'], listen: true, env: { SMTP_URL: smtp.url } });
  const owner = await signupOwner(app);
  const base = app.server.info.uri;
  const browser = await launchBrowser();
  t.teardown(() => browser.close());
  const page = await (await browser.newContext()).newPage();
  const pageErrors = watchPageErrors(page);

  await page.goto(`${base}/app/sign-in`);
  await page.getByLabel('Email').fill(owner.email);
  await page.getByLabel('Password').first().fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const refused = page.getByRole('alert');
  await refused.waitFor();
  t.match(await refused.textContent(), /invalid|incorrect|password/i, "the contract's message for invalid_credentials");

  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await page.getByLabel('Email').fill(owner.email);
  await page.getByRole('button', { name: 'Email me a link' }).click();
  await page.getByRole('alert').or(page.getByRole('status')).first().waitFor();
  await screenshot(page, '20-forgot-password');
  t.same(await seriousViolations(page), [], 'forgot password: no serious or critical axe violations');
  const mail = await smtp.waitFor((m) => m.envelopeTo.includes(owner.email.toLowerCase()));
  const token = decodeURIComponent(/reset-password\?token=([A-Za-z0-9_%-]+)/.exec(mail.parsed.text ?? '')![1]!);

  await page.goto(`${base}/app/reset-password?token=${encodeURIComponent(token)}`);
  await page.getByLabel('New password').fill('short');
  await page.getByRole('button', { name: 'Set password' }).click();
  const tooShort = page.locator('[id$="-error"]').first();
  await tooShort.waitFor();
  t.match(await tooShort.textContent(), /8|length|characters/i, 'the field error sits next to the password');
  await page.getByLabel('New password').fill('a brand new password');
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.getByRole('alert').or(page.getByRole('status')).first().waitFor();
  await screenshot(page, '21-reset-password');
  t.same(await seriousViolations(page), [], 'reset password: no serious or critical axe violations');

  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.getByLabel('Email').fill(owner.email);
  await page.getByLabel('Password').first().fill('a brand new password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: owner.store.name }).waitFor();
  t.pass('signed in with the new password');
  t.same(pageErrors, [], 'no CSP refusal or uncaught error');
});
