import t from 'tap';
import { diff, redact, REDACTED } from '../../src/services/audit/redact.js';

t.test('an entry keeps the changed fields with before and after, and never a secret or token', async (t) => {
  t.same(diff({ title: 'a', price: 100, updatedAt: new Date(0) }, { title: 'b', price: 100, updatedAt: new Date(1) }), { title: { before: 'a', after: 'b' } }, 'only what differs; timestamps are not changes');
  t.same(diff(null, { name: 'ci', secret: 'whsec_abc' }), { name: { before: null, after: 'ci' }, secret: { before: null, after: REDACTED } }, 'a created secret shows as redacted');
  t.same(diff({ webhookSecret: 'old' }, { webhookSecret: 'new' }), {}, 'a rotated secret is not a diff of its values (the action says it was rotated)');
  // The generic entry of a route whose service records none keeps the request body, redacted.
  const body = { params: { id: '1' }, body: { name: 'Acme', apiToken: 'tok_123', credentials: { user: 'u', password: 'p' }, list: [{ accessToken: 'x', keep: 1 }], authorization: 'Bearer y' } };
  t.same(redact(body), { params: { id: '1' }, body: { name: 'Acme', apiToken: REDACTED, credentials: REDACTED, list: [{ accessToken: REDACTED, keep: 1 }], authorization: REDACTED } });
  t.notOk(JSON.stringify(redact(body)).match(/tok_123|Bearer|"p"/));
});
