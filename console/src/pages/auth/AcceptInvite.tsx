import { Button, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { session } from '../../api/session';
import { AuthCard } from '../../components/AuthCard';
import { FormError } from '../../components/FormError';

/** Joins the store an invite names; a new account gives its name and a password. */
export function AcceptInvite() {
  const [params] = useSearchParams();
  const [form, setForm] = useState({ firstName: '', lastName: '', password: '' });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const accept = useMutation({
    mutationFn: async () => {
      const body = { token: params.get('token') ?? '', ...(form.password ? form : {}) };
      return unwrap(await api.POST('/api/v1/auth/accept-invite', { body })).data;
    },
    onSuccess: (data) => {
      session.signIn(data.accessToken, data.memberships.at(-1)?.storeId ?? null);
      queryClient.clear();
      navigate('/', { replace: true });
    }
  });
  const set = (field: keyof typeof form) => (event: { currentTarget: { value: string } }) => {
    const value = event.currentTarget.value;
    setForm((old) => ({ ...old, [field]: value }));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    accept.mutate();
  };
  return (
    <AuthCard title="Join the store">
      <Text size="sm">New to Shopwright? Give your name and a password. Already have an account? Leave them empty.</Text>
      <form onSubmit={submit}>
        <Stack>
          <Group grow>
            <TextInput label="First name" autoComplete="given-name" value={form.firstName} onChange={set('firstName')} error={fieldError(accept.error, 'firstName')} />
            <TextInput label="Last name" autoComplete="family-name" value={form.lastName} onChange={set('lastName')} error={fieldError(accept.error, 'lastName')} />
          </Group>
          <PasswordInput label="Password" autoComplete="new-password" value={form.password} onChange={set('password')} error={fieldError(accept.error, 'password')} />
          <FormError error={accept.error} fields={['firstName', 'lastName', 'password']} />
          <Button type="submit" loading={accept.isPending}>
            Accept invite
          </Button>
        </Stack>
      </form>
    </AuthCard>
  );
}
