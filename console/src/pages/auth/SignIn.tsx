import { Anchor, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { session } from '../../api/session';
import { AuthCard } from '../../components/AuthCard';
import { FormError } from '../../components/FormError';

export function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const queryClient = useQueryClient();
  const login = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/auth/login', { body: { email, password } })).data,
    onSuccess: (data) => {
      session.signIn(data.accessToken, data.memberships[0]?.storeId ?? null);
      queryClient.clear();
      navigate(params.get('next') ?? '/', { replace: true });
    }
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate();
  };
  return (
    <AuthCard title="Sign in">
      <form onSubmit={submit}>
        <Stack>
          <TextInput label="Email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} error={fieldError(login.error, 'email')} />
          <PasswordInput label="Password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} error={fieldError(login.error, 'password')} />
          <FormError error={login.error} fields={['email', 'password']} />
          <Button type="submit" loading={login.isPending}>
            Sign in
          </Button>
        </Stack>
      </form>
      <Text size="sm">
        New here? <Anchor component={Link} to="/sign-up">Create a store</Anchor> · <Anchor component={Link} to="/forgot-password">Forgot password?</Anchor>
      </Text>
    </AuthCard>
  );
}
