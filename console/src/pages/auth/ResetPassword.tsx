import { Alert, Anchor, Button, PasswordInput, Stack } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { AuthCard } from '../../components/AuthCard';
import { FormError } from '../../components/FormError';

export function ResetPassword() {
  const [params] = useSearchParams();
  const [password, setPassword] = useState('');
  const reset = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/auth/reset-password', { body: { token: params.get('token') ?? '', password } })).data
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    reset.mutate();
  };
  return (
    <AuthCard title="Choose a new password">
      {reset.isSuccess ? (
        <Alert role="status">{reset.data.message}</Alert>
      ) : (
        <form onSubmit={submit}>
          <Stack>
            <PasswordInput label="New password" autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} error={fieldError(reset.error, 'password')} />
            <FormError error={reset.error} fields={['password']} />
            <Button type="submit" loading={reset.isPending}>
              Set password
            </Button>
          </Stack>
        </form>
      )}
      <Anchor component={Link} to="/sign-in" size="sm">
        Sign in
      </Anchor>
    </AuthCard>
  );
}
