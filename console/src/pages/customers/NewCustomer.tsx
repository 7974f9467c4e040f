import { Button, Card, Group, NativeSelect, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { FormError } from '../../components/FormError';

type Marketing = 'subscribed' | 'unsubscribed' | 'not_subscribed';
const FIELDS = ['email', 'firstName', 'lastName', 'emailMarketing'];

/** A customer made by hand (POST /admin/customers); opens the new customer. */
export function NewCustomer() {
  const [form, setForm] = useState({ email: '', firstName: '', lastName: '', emailMarketing: 'not_subscribed' as Marketing });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/customers', { body: form })).data.customer,
    onSuccess: (customer) => {
      void queryClient.invalidateQueries({ queryKey: ['customers'] });
      navigate(`/customers/${customer.id}`);
    }
  });
  const set = (key: keyof typeof form) => (e: { currentTarget: { value: string } }) => {
    const value = e.currentTarget.value;
    setForm((old) => ({ ...old, [key]: value }));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Card withBorder component="section" aria-labelledby="new-customer-title">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="new-customer-title">
            New customer
          </Title>
          <Group align="flex-start">
            <TextInput label="Customer email" required type="email" value={form.email} onChange={set('email')} error={fieldError(create.error, 'email')} />
            <TextInput label="First name" value={form.firstName} onChange={set('firstName')} error={fieldError(create.error, 'firstName')} />
            <TextInput label="Last name" value={form.lastName} onChange={set('lastName')} error={fieldError(create.error, 'lastName')} />
            <NativeSelect
              label="Marketing consent"
              value={form.emailMarketing}
              onChange={set('emailMarketing')}
              data={[
                { value: 'not_subscribed', label: 'Not subscribed' },
                { value: 'subscribed', label: 'Subscribed (they agreed)' },
                { value: 'unsubscribed', label: 'Unsubscribed' }
              ]}
            />
          </Group>
          <FormError error={create.error} fields={FIELDS} />
          <Button type="submit" loading={create.isPending} w="fit-content">
            Create customer
          </Button>
        </Stack>
      </form>
    </Card>
  );
}
