import { Button, Checkbox, Group, NumberInput, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { FormError } from '../../components/FormError';

interface Form {
  fromName: string;
  fromEmail: string;
  replyTo: string;
  host: string;
  port: number;
  secure: boolean;
  user: string;
  password: string;
}
const FIELDS = ['email.fromName', 'email.fromEmail', 'email.replyTo', 'email.smtp.host', 'email.smtp.port', 'email.smtp.user', 'email.smtp.password'];

/** The store's sender and SMTP server (the password is write-only: left empty, it is kept), a handshake check and a test email. */
export function EmailSettings() {
  const queryClient = useQueryClient();
  const [form, setForm] = useState<Form | null>(null);
  const [toEmail, setToEmail] = useState('');
  const store = useQuery({ queryKey: ['dashboard'], queryFn: async () => unwrap(await api.GET('/api/v1/admin/store')).data });
  useEffect(() => {
    const e = store.data?.store.email;
    if (e && !form) {
      setForm({ fromName: e.fromName ?? '', fromEmail: e.fromEmail ?? '', replyTo: e.replyTo ?? '', host: e.smtp?.host ?? '', port: e.smtp?.port ?? 587, secure: e.smtp?.secure ?? false, user: e.smtp?.user ?? '', password: '' });
    }
  }, [store.data, form]);
  const save = useMutation({
    mutationFn: async (f: Form) => {
      const smtp = f.host ? { host: f.host, port: f.port, secure: f.secure, user: f.user, ...(f.password ? { password: f.password } : {}) } : null;
      const email = { fromName: f.fromName, fromEmail: f.fromEmail || null, replyTo: f.replyTo || null, smtp };
      return unwrap(await api.PATCH('/api/v1/admin/store', { body: { email } })).data;
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['dashboard'] })
  });
  const verify = useMutation({ mutationFn: async () => unwrap(await api.GET('/api/v1/admin/store/email/verify')).data });
  const test = useMutation({ mutationFn: async () => unwrap(await api.POST('/api/v1/admin/store/email/test', { body: { toEmail } })).data });
  if (!form) return <Text>{store.error ? store.error.message : 'Loading…'}</Text>;
  const set = (key: keyof Form) => (event: { currentTarget: { value: string } }) => setForm({ ...form, [key]: event.currentTarget.value });
  const err = (path: string) => fieldError(save.error, `email.${path}`);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(form);
  };
  const sendTest = (event: FormEvent) => {
    event.preventDefault();
    test.mutate();
  };
  return (
    <Stack maw={560}>
      <Title order={1}>Email</Title>
      <form onSubmit={submit} aria-label="Email settings">
        <Stack>
          <TextInput label="Sender name" value={form.fromName} onChange={set('fromName')} error={err('fromName')} />
          <TextInput label="Sender email" value={form.fromEmail} onChange={set('fromEmail')} error={err('fromEmail')} />
          <TextInput label="Reply-to email" value={form.replyTo} onChange={set('replyTo')} error={err('replyTo')} />
          <Title order={2} size="h4">
            SMTP server (empty host: the platform's mailer)
          </Title>
          <Group grow>
            <TextInput label="SMTP host" value={form.host} onChange={set('host')} error={err('smtp.host')} />
            <NumberInput label="SMTP port" min={1} max={65535} value={form.port} onChange={(value) => setForm({ ...form, port: Number(value) || 0 })} error={err('smtp.port')} />
          </Group>
          <Checkbox label="TLS from the start (port 465)" checked={form.secure} onChange={(e) => setForm({ ...form, secure: e.currentTarget.checked })} />
          <TextInput label="SMTP user" value={form.user} onChange={set('user')} error={err('smtp.user')} />
          <PasswordInput
            label="SMTP password"
            description={store.data?.store.email.smtp?.passwordSet ? 'A password is saved; leave empty to keep it' : undefined}
            value={form.password}
            onChange={set('password')}
            error={err('smtp.password')}
          />
          <Group>
            <Button type="submit" loading={save.isPending}>
              Save email settings
            </Button>
            {save.isSuccess && <span role="status">Saved</span>}
          </Group>
          <FormError error={save.error} fields={FIELDS} />
        </Stack>
      </form>
      <Group>
        <Button variant="default" loading={verify.isPending} onClick={() => verify.mutate()}>
          Check the connection
        </Button>
        {verify.data && (
          <Text role="status" data-testid="email-verify">
            {verify.data.provider}: {verify.data.ok ? 'ok' : 'failed'} — {verify.data.message}
          </Text>
        )}
      </Group>
      <FormError error={verify.error} />
      <form onSubmit={sendTest} aria-label="Send a test email">
        <Group align="flex-end">
          <TextInput label="Send a test email to" required value={toEmail} onChange={(e) => setToEmail(e.currentTarget.value)} error={fieldError(test.error, 'toEmail')} />
          <Button type="submit" loading={test.isPending}>
            Send test
          </Button>
        </Group>
      </form>
      {test.data && (
        <Text role="status" data-testid="email-test">
          Sent: accepted by the server for {test.data.accepted.join(', ')}
        </Text>
      )}
      <FormError error={test.error} fields={['toEmail']} />
    </Stack>
  );
}
