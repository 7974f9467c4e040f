import t from 'tap';
import { addMember, buildApp, signupOwner, unique } from '../../helpers/app.js';
import { SmtpCapture } from '../../helpers/smtp-capture.js';

const tokenFrom = (text: string) => {
  const match = /accept-invite\?token=([A-Za-z0-9_%-]+)/.exec(text);
  if (!match) throw new Error(`no invite link in: ${text}`);
  return decodeURIComponent(match[1]!);
};

t.test('invite flows end to end through SMTP: new account, existing account, resend kills the old link', async (t) => {
  const smtp = await new SmtpCapture().start();
  t.teardown(() => smtp.stop());
  const app = await buildApp(t, { workers: ['email'], env: { SMTP_URL: smtp.url, ADMIN_URL: 'https://admin.shop.test/' } });
  const owner = await signupOwner(app, { storeName: 'Team Store' });
  const admin = { token: owner.accessToken, storeId: owner.store.id };

  const newcomer = `${unique('new')}@Example.com`;
  const created = await app.request({ method: 'POST', url: '/admin/store/team/invites', payload: { email: newcomer, role: 'staff' }, ...admin });
  t.equal(created.status, 201, created.raw);
  const invite = created.body.data.invite;
  t.match(invite, { email: newcomer.toLowerCase(), role: 'staff', status: 'pending' });
  const ttl = new Date(invite.expiresAt).getTime() - Date.now();
  t.ok(ttl > 6.9 * 24 * 3600_000 && ttl <= 7 * 24 * 3600_000, 'valid for 7 days');

  const mail = await smtp.waitFor((m) => m.envelopeTo.includes(newcomer.toLowerCase()));
  t.match(mail.parsed.subject, /Team Store/);
  t.match(mail.parsed.text, /https:\/\/admin\.shop\.test\/app\/accept-invite\?token=/, "the link is based on ADMIN_URL and opens the console's accept page");
  const firstToken = tokenFrom(mail.parsed.text ?? '');

  const listed = await app.request({ url: '/admin/store/team', ...admin });
  t.equal(listed.status, 200);
  t.equal(listed.body.data.members.length, 1);
  t.match(listed.body.data.members[0], { userId: owner.user.id, email: owner.email, role: 'owner', firstName: 'Olivia' });
  t.ok(listed.body.data.members[0].joinedAt);
  t.match(listed.body.data.invites, [{ id: invite.id, email: newcomer.toLowerCase(), role: 'staff', status: 'pending' }]);

  // Resend: a new mail with a new token; the first link is dead.
  const resent = await app.request({ method: 'POST', url: `/admin/store/team/invites/${invite.id}/resend`, ...admin });
  t.equal(resent.status, 200);
  await smtp.waitFor((m) => m.envelopeTo.includes(newcomer.toLowerCase()) && tokenFrom(m.parsed.text ?? '') !== firstToken);
  const mails = smtp.messages.filter((m) => m.envelopeTo.includes(newcomer.toLowerCase()));
  t.equal(mails.length, 2);
  const secondToken = tokenFrom(mails[1]!.parsed.text ?? '');

  const dead = await app.request({ method: 'POST', url: '/auth/accept-invite', payload: { token: firstToken, firstName: 'N', lastName: 'W', password: 'long enough pw' } });
  t.equal(dead.status, 422);
  t.equal(dead.body.error.code, 'invalid_token');

  const missing = await app.request({ method: 'POST', url: '/auth/accept-invite', payload: { token: secondToken } });
  t.equal(missing.status, 422, 'a new account needs names and a password');
  t.equal(missing.body.error.code, 'validation_failed');

  const accepted = await app.request({ method: 'POST', url: '/auth/accept-invite', payload: { token: secondToken, firstName: 'Nia', lastName: 'West', password: 'long enough pw' } });
  t.equal(accepted.status, 200, accepted.raw);
  t.match(accepted.body.data.user, { email: newcomer.toLowerCase(), firstName: 'Nia', lastName: 'West' });
  t.match(accepted.body.data.memberships, [{ storeId: owner.store.id, role: 'staff', storeName: 'Team Store' }]);
  const staffToken = accepted.body.data.accessToken;
  const me = await app.request({ url: '/auth/me', token: staffToken });
  t.equal(me.status, 200);
  const login = await app.request({ method: 'POST', url: '/auth/login', payload: { email: newcomer, password: 'long enough pw' } });
  t.equal(login.status, 200, 'the new account can sign in');

  const again = await app.request({ method: 'POST', url: '/auth/accept-invite', payload: { token: secondToken, firstName: 'Nia', lastName: 'West', password: 'long enough pw' } });
  t.equal(again.status, 422, 'single use');

  // An existing account (owner of another store) joins with the token.
  const other = await signupOwner(app);
  const invited = await app.request({ method: 'POST', url: '/admin/store/team/invites', payload: { email: other.email.toUpperCase(), role: 'admin' }, ...admin });
  t.equal(invited.status, 201);
  const otherMail = await smtp.waitFor((m) => m.envelopeTo.includes(other.email));
  const otherToken = tokenFrom(otherMail.parsed.text ?? '');
  const wrongPassword = await app.request({ method: 'POST', url: '/auth/accept-invite', payload: { token: otherToken, password: 'not the password' } });
  t.equal(wrongPassword.status, 401);
  const joined = await app.request({ method: 'POST', url: '/auth/accept-invite', payload: { token: otherToken } });
  t.equal(joined.status, 200, joined.raw);
  t.equal(joined.body.data.user.id, other.user.id);
  t.equal(joined.body.data.memberships.length, 2);
  t.ok(joined.body.data.memberships.some((m: any) => m.storeId === owner.store.id && m.role === 'admin'));
  t.ok(joined.body.data.accessToken);

  const team = await app.request({ url: '/admin/store/team', ...admin });
  t.equal(team.body.data.members.length, 3);
  t.equal(team.body.data.invites.length, 0, 'accepted invites leave the list');

  const member = await app.request({ method: 'POST', url: '/admin/store/team/invites', payload: { email: other.email, role: 'staff' }, ...admin });
  t.equal(member.status, 409, 'already a member');
});

t.test('roles: owner invites only by an owner; revoke and last_owner', async (t) => {
  const app = await buildApp(t, { workers: false });
  const owner = await signupOwner(app);
  const asOwner = { token: owner.accessToken, storeId: owner.store.id };
  const admin = await addMember(app, owner.store.id, 'admin');
  const asAdmin = { token: admin.accessToken, storeId: owner.store.id };
  const staff = await addMember(app, owner.store.id, 'staff');

  const byAdmin = await app.request({ method: 'POST', url: '/admin/store/team/invites', payload: { email: 'boss@example.com', role: 'owner' }, ...asAdmin });
  t.equal(byAdmin.status, 403);
  const adminInvitesStaff = await app.request({ method: 'POST', url: '/admin/store/team/invites', payload: { email: 'helper@example.com', role: 'staff' }, ...asAdmin });
  t.equal(adminInvitesStaff.status, 201);
  const byOwner = await app.request({ method: 'POST', url: '/admin/store/team/invites', payload: { email: 'boss@example.com', role: 'owner' }, ...asOwner });
  t.equal(byOwner.status, 201);
  const adminResendsOwner = await app.request({ method: 'POST', url: `/admin/store/team/invites/${byOwner.body.data.invite.id}/resend`, ...asAdmin });
  t.equal(adminResendsOwner.status, 403);
  const badRole = await app.request({ method: 'POST', url: '/admin/store/team/invites', payload: { email: 'x@example.com', role: 'god' }, ...asOwner });
  t.equal(badRole.status, 422);
  const unknownInvite = await app.request({ method: 'POST', url: '/admin/store/team/invites/00000000-0000-4000-8000-000000000000/resend', ...asOwner });
  t.equal(unknownInvite.status, 404);

  const adminRevokesOwner = await app.request({ method: 'POST', url: `/admin/store/team/members/${owner.user.id}/revoke`, ...asAdmin });
  t.equal(adminRevokesOwner.status, 403);
  const lastOwner = await app.request({ method: 'POST', url: `/admin/store/team/members/${owner.user.id}/revoke`, ...asOwner });
  t.equal(lastOwner.status, 409);
  t.equal(lastOwner.body.error.code, 'last_owner');

  const revokeStaff = await app.request({ method: 'POST', url: `/admin/store/team/members/${staff.user.id}/revoke`, ...asAdmin });
  t.equal(revokeStaff.status, 200);
  const staffLocked = await app.request({ url: '/admin/store', token: staff.accessToken, storeId: owner.store.id });
  t.equal(staffLocked.status, 403, 'a revoked member loses access at once');
  const gone = await app.request({ method: 'POST', url: `/admin/store/team/members/${staff.user.id}/revoke`, ...asAdmin });
  t.equal(gone.status, 404);

  // Two owners revoking each other at once: exactly one succeeds, one owner remains.
  const second = await addMember(app, owner.store.id, 'owner');
  const [a, b] = await Promise.all([
    app.request({ method: 'POST', url: `/admin/store/team/members/${second.user.id}/revoke`, ...asOwner }),
    app.request({ method: 'POST', url: `/admin/store/team/members/${owner.user.id}/revoke`, token: second.accessToken, storeId: owner.store.id })
  ]);
  const statuses = [a.status, b.status].sort();
  t.equal(statuses[0], 200, 'one revoke wins');
  t.ok([403, 409].includes(statuses[1]!), `the other is refused (${statuses[1]})`);
  const owners = await app.ctx.db('memberships').where({ storeId: owner.store.id, role: 'owner' });
  t.equal(owners.length, 1, 'never zero owners');
});
