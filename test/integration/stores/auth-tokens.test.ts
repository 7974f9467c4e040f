import Jwt from '@hapi/jwt';
import t from 'tap';
import { buildApp, signupOwner, type TestApp } from '../../helpers/app.js';

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

// One app for the file (issue #32); each test signs up its own store, so none sees another's data.
// The forgot-password test (its own mail server and worker) builds its own.
let app: TestApp;
t.before(async () => {
  app = await buildApp(t);
});

t.test('access tokens: exp required, alg fixed, aud/iss checked, expiry enforced', async (t) => {
  const owner = await signupOwner(app);
  const { config } = app.ctx;
  const base = { sub: owner.user.id, sv: 0, aud: config.jwtAudience, iss: config.jwtIssuer };
  const sign = (payload: object, ttlSec?: number) =>
    Jwt.token.generate(payload, { key: config.jwtSecret, algorithm: 'HS256' }, ttlSec === undefined ? { iat: true } : { ttlSec });

  const good = sign(base, 600);
  t.equal((await app.request({ url: '/auth/me', token: good })).status, 200, 'a proper token works');

  const cases: Record<string, string> = {
    'no exp': sign(base),
    'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...base, exp: Math.floor(Date.now() / 1000) + 600 })}.`,
    'wrong aud': sign({ ...base, aud: 'someone-else' }, 600),
    'wrong iss': sign({ ...base, iss: 'someone-else' }, 600),
    expired: Jwt.token.generate({ ...base, iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }, { key: config.jwtSecret, algorithm: 'HS256' }, { iat: false }),
    'wrong key': Jwt.token.generate({ ...base }, { key: 'another-secret-another-secret-123456', algorithm: 'HS256' }, { ttlSec: 600 }),
    'HS512 with our key': Jwt.token.generate({ ...base }, { key: config.jwtSecret, algorithm: 'HS512' }, { ttlSec: 600 }),
    garbage: 'not.a.jwt'
  };
  for (const [name, token] of Object.entries(cases)) {
    const response = await app.request({ url: '/auth/me', token });
    t.equal(response.status, 401, `${name} is refused`);
    t.equal(response.body.error.code, 'unauthenticated', `${name} code`);
    t.ok(response.headers['www-authenticate'], `${name} has WWW-Authenticate`);
  }
  const none = await app.request({ url: '/auth/me' });
  t.equal(none.status, 401);
  t.equal(none.body.error.code, 'unauthenticated');
});

t.test('forgot-password emails a single-use link that resets the password and ends old tokens', async (t) => {
  const { SmtpCapture } = await import('../../helpers/smtp-capture.js');
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { workers: ['email'], env: { SMTP_URL: smtp.url } });
  const owner = await signupOwner(app);

  const unknown = await app.request({ method: 'POST', url: '/auth/forgot-password', payload: { email: 'ghost@example.com' } });
  const known = await app.request({ method: 'POST', url: '/auth/forgot-password', payload: { email: owner.email } });
  t.equal(unknown.status, 200);
  t.equal(known.status, 200);
  t.same(unknown.body.data, known.body.data, 'same answer: no account enumeration');

  const mail = await smtp.waitFor((m) => m.envelopeTo.includes(owner.email));
  t.match(mail.parsed.subject, /reset/i);
  const link = /https?:\/\/\S+reset-password\?token=([\w%-]+)/.exec(mail.parsed.text ?? '');
  t.ok(link, 'the email carries a reset link');
  const token = decodeURIComponent(link![1]!);
  const stored = await app.ctx.db('passwordResets').first();
  t.not(stored.tokenHash, token, 'reset token stored hashed');

  const tooShort = await app.request({ method: 'POST', url: '/auth/reset-password', payload: { token, password: 'short' } });
  t.equal(tooShort.status, 422);

  const reset = await app.request({ method: 'POST', url: '/auth/reset-password', payload: { token, password: 'a brand new password' } });
  t.equal(reset.status, 200);
  t.type(reset.body.data.message, 'string');

  const oldToken = await app.request({ url: '/auth/me', token: owner.accessToken });
  t.equal(oldToken.status, 401, 'access tokens issued before the reset stop working');

  const again = await app.request({ method: 'POST', url: '/auth/reset-password', payload: { token, password: 'yet another password' } });
  t.equal(again.status, 422);
  t.equal(again.body.error.code, 'invalid_token', 'the link is single-use');

  const oldPassword = await app.request({ method: 'POST', url: '/auth/login', payload: { email: owner.email, password: owner.password } });
  t.equal(oldPassword.status, 401);
  const newPassword = await app.request({ method: 'POST', url: '/auth/login', payload: { email: owner.email, password: 'a brand new password' } });
  t.equal(newPassword.status, 200);
  t.equal((await app.request({ url: '/auth/me', token: newPassword.body.data.accessToken })).status, 200);

  const bogus = await app.request({ method: 'POST', url: '/auth/reset-password', payload: { token: 'nope', password: 'whatever password' } });
  t.equal(bogus.status, 422);
  t.equal(bogus.body.error.code, 'invalid_token');

  const logged = await app.ctx.db('emailLog').where({ templateKey: 'password_reset' }).first();
  t.equal(logged.status, 'sent');
  t.ok(logged.providerMessageId);
});

t.test('an expired reset link is refused', async (t) => {
  const owner = await signupOwner(app);
  const { hashToken } = await import('../../../src/platform/secrets.js');
  await app.ctx.db('passwordResets').insert({ userId: owner.user.id, tokenHash: hashToken('expired-token'), expiresAt: new Date(Date.now() - 1000) });
  const response = await app.request({ method: 'POST', url: '/auth/reset-password', payload: { token: 'expired-token', password: 'a brand new password' } });
  t.equal(response.status, 422);
  t.equal(response.body.error.code, 'invalid_token');
});
