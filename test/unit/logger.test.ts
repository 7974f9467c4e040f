import t from 'tap';
import { createLogger } from '../../src/logger.js';

t.test('logs never hold passwords, tokens or secrets', async (t) => {
  const written: string[] = [];
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => (written.push(String(chunk)), true)) as typeof process.stdout.write;
  try {
    const log = createLogger('info');
    log.info(
      {
        password: 'p1',
        body: { token: 't1', apiKey: 'k1', email: { smtp: { password: 'smtp1' } } },
        headers: { authorization: 'Bearer j1', 'x-storefront-token': 'swsf_s1' },
        user: { email: 'kept@example.com' }
      },
      'request'
    );
  } finally {
    process.stdout.write = stdoutWrite;
  }
  const text = written.join('');
  t.match(text, /\[redacted\]/);
  t.match(text, /kept@example.com/, 'ordinary fields stay');
  for (const secret of ['p1', 't1', 'k1', 'smtp1', 'Bearer j1', 'swsf_s1']) t.notOk(text.includes(`"${secret}"`), `${secret} is redacted`);
});
