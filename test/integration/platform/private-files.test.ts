import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { buildApp, signupOwner } from '../../helpers/app.js';
import { admin, multipart, TINY_PNG } from '../../helpers/catalog.js';
import { waitForJob } from '../../helpers/jobs.js';
import { waitFor } from '../../helpers/webhook-receiver.js';

const mode = async (file: string) => (await stat(file)).mode & 0o777;

/** Every folder and file under `root`, the root included. */
async function tree(root: string): Promise<Array<{ file: string; dir: boolean }>> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return [{ file: root, dir: true }, ...entries.map((entry) => ({ file: path.join(entry.parentPath ?? entry.path, entry.name), dir: entry.isDirectory() }))];
}

t.test('mail in the local outbox, exports and uploads are 0600 in 0700 folders, in a storage folder that was looser before', async (t) => {
  // A storage folder from before the rule: world-readable, with an outbox folder and an old message in it.
  const storage = await mkdtemp(path.join(os.tmpdir(), 'shopwright-private-'));
  t.teardown(() => rm(storage, { recursive: true, force: true }));
  await mkdir(path.join(storage, 'outbox'), { mode: 0o755 });
  await chmod(storage, 0o755);
  await chmod(path.join(storage, 'outbox'), 0o755);
  await writeFile(path.join(storage, 'outbox', 'old.eml'), 'Subject: old\n\nan old reset link', { mode: 0o644 });

  const app = await buildApp(t, { workers: ['email', 'imports'], env: { STORAGE_DIR: storage, SMTP_URL: '' } });
  t.equal(await mode(storage), 0o700, 'the storage folder is made private at start: older files are out of reach too');

  const owner = await signupOwner(app);
  // Mail: a password reset through the local outbox (no SMTP server configured).
  const forgot = await app.request({ method: 'POST', url: '/auth/forgot-password', payload: { email: owner.email } });
  t.equal(forgot.status, 200);
  const outbox = path.join(storage, 'outbox');
  const mail = await waitFor('the reset mail on disk', async () => (await readdir(outbox)).find((name) => name !== 'old.eml'));
  t.match(mail, /\.eml$/);
  // An export: the customers CSV.
  const exported = await app.request({ method: 'POST', url: '/admin/customers/export', ...admin(owner) });
  t.equal(exported.status, 202, exported.raw);
  t.equal((await waitForJob(app, owner, exported.body.data.job.id)).status, 'completed');
  // An upload: a media image.
  const upload = await app.request({ method: 'POST', url: '/admin/store/media', ...multipart({ filename: 'p.png', contentType: 'image/png', data: TINY_PNG }), ...admin(owner) });
  t.equal(upload.status, 201, upload.raw);

  const written = (await tree(storage)).filter(({ file }) => !file.endsWith('old.eml'));
  const files = written.filter((entry) => !entry.dir);
  t.ok(files.some(({ file }) => file.startsWith(outbox)), 'the mail');
  t.ok(files.some(({ file }) => file.endsWith('.csv')), 'the export');
  t.ok(files.length >= 3, `mail, export and upload written (${files.map(({ file }) => path.relative(storage, file)).join(', ')})`);
  for (const { file, dir } of written) {
    t.equal(await mode(file), dir ? 0o700 : 0o600, `${path.relative(storage, file) || 'the storage folder'} is ${dir ? '0700' : '0600'}`);
  }

  // Upload bodies stream into a folder of the server's own, private, gone when the server stops.
  const uploads = (app.server.settings.routes as { payload: { uploads: string } }).payload.uploads;
  t.equal(await mode(uploads), 0o700, 'the temporary upload folder is 0700');
  await app.server.stop();
  await t.rejects(stat(uploads), { code: 'ENOENT' }, 'and removed when the server stops');
});
