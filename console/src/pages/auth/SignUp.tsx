import { Anchor, Button, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { session } from '../../api/session';
import { AuthCard } from '../../components/AuthCard';
import { FormError } from '../../components/FormError';

const FIELDS = ['firstName', 'lastName', 'email', 'password', 'storeName', 'storeSlug'] as const;
type Field = (typeof FIELDS)[number];

const slugOf = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 63);

export function SignUp() {
  const [form, setForm] = useState<Record<Field, string>>({ firstName: '', lastName: '', email: '', password: '', storeName: '', storeSlug: '' });
  const [slugTouched, setSlugTouched] = useState(false);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const signup = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/auth/signup', { body: form })).data,
    onSuccess: (data) => {
      session.signIn(data.accessToken, data.store.id);
      queryClient.clear();
      navigate('/', { replace: true });
    }
  });
  const set = (field: Field) => (event: { currentTarget: { value: string } }) => {
    const value = event.currentTarget.value;
    setForm((old) => ({ ...old, [field]: value, ...(field === 'storeName' && !slugTouched ? { storeSlug: slugOf(value) } : {}) }));
    if (field === 'storeSlug') setSlugTouched(true);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signup.mutate();
  };
  const error = (field: Field) => fieldError(signup.error, field);
  return (
    <AuthCard title="Create your store">
      <form onSubmit={submit}>
        <Stack>
          <Group grow>
            <TextInput label="First name" autoComplete="given-name" required value={form.firstName} onChange={set('firstName')} error={error('firstName')} />
            <TextInput label="Last name" autoComplete="family-name" required value={form.lastName} onChange={set('lastName')} error={error('lastName')} />
          </Group>
          <TextInput label="Email" type="email" autoComplete="email" required value={form.email} onChange={set('email')} error={error('email')} />
          <PasswordInput label="Password" description="8 to 128 characters" autoComplete="new-password" required value={form.password} onChange={set('password')} error={error('password')} />
          <TextInput label="Store name" required value={form.storeName} onChange={set('storeName')} error={error('storeName')} />
          <TextInput label="Store address" description="Lower-case letters, digits and dashes" required value={form.storeSlug} onChange={set('storeSlug')} error={error('storeSlug')} />
          <FormError error={signup.error} fields={[...FIELDS]} />
          <Button type="submit" loading={signup.isPending}>
            Create store
          </Button>
        </Stack>
      </form>
      <Text size="sm">
        Already have an account? <Anchor component={Link} to="/sign-in">Sign in</Anchor>
      </Text>
    </AuthCard>
  );
}
