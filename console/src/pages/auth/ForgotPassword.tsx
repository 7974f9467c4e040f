import { Alert, Anchor, Button, Stack, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { AuthCard } from '../../components/AuthCard';
import { FormError } from '../../components/FormError';

export function ForgotPassword() {
  const [email, setEmail] = useState('');
  const forgot = useMutation({ mutationFn: async () => unwrap(await api.POST('/api/v1/auth/forgot-password', { body: { email } })).data });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    forgot.mutate();
  };
  return (
    <AuthCard title="Reset your password">
      {forgot.isSuccess ? (
        <Alert role="status">{forgot.data.message}</Alert>
      ) : (
        <form onSubmit={submit}>
          <Stack>
            <TextInput label="Email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} error={fieldError(forgot.error, 'email')} />
            <FormError error={forgot.error} fields={['email']} />
            <Button type="submit" loading={forgot.isPending}>
              Email me a link
            </Button>
          </Stack>
        </form>
      )}
      <Anchor component={Link} to="/sign-in" size="sm">
        Back to sign in
      </Anchor>
    </AuthCard>
  );
}
