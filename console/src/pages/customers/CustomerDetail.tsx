import { Anchor, Badge, Button, Group, NativeSelect, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { useMe } from '../../api/me';
import { ConfirmButton } from '../../components/ConfirmButton';
import { human } from '../../components/labels';
import { ListState } from '../../components/ListState';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';
import { formatMoney } from '../../components/Money';

type Marketing = components['schemas']['Customer']['emailMarketing'];
interface Form {
  email: string;
  firstName: string;
  lastName: string;
  phone: string;
  tags: string;
  note: string;
  emailMarketing: Marketing;
}
const FIELDS = ['email', 'firstName', 'lastName', 'phone', 'tags', 'note', 'emailMarketing'];

/** A customer: their fields, marketing state, orders count and total, recent orders; edit (PATCH, the API's message under the field). */
export function CustomerDetail() {
  const customerId = useParams().customerId!;
  const queryClient = useQueryClient();
  const [form, setForm] = useState<Form | null>(null);
  const detail = useQuery({
    queryKey: ['customer', customerId],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/customers/{customerId}', { params: { path: { customerId } } })).data
  });
  useEffect(() => {
    const c = detail.data?.customer;
    if (c && !form) {
      setForm({ email: c.email, firstName: c.firstName ?? '', lastName: c.lastName ?? '', phone: c.phone ?? '', tags: c.tags.join(', '), note: c.note ?? '', emailMarketing: c.emailMarketing });
    }
  }, [detail.data, form]);
  const save = useMutation({
    mutationFn: async (f: Form) => {
      const tags = f.tags.split(',').map((tag) => tag.trim()).filter(Boolean);
      const body = { email: f.email, firstName: f.firstName, lastName: f.lastName, phone: f.phone, tags, note: f.note, emailMarketing: f.emailMarketing };
      return unwrap(await api.PATCH('/api/v1/admin/customers/{customerId}', { params: { path: { customerId } }, body })).data;
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['customer', customerId] });
      void queryClient.invalidateQueries({ queryKey: ['customers'] });
    }
  });
  const me = useMe();
  const navigate = useNavigate();
  const remove = useMutation({
    mutationFn: async () => {
      const result = await api.DELETE('/api/v1/admin/customers/{customerId}', { params: { path: { customerId } } });
      if (!result.response.ok) unwrap(result as never);
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['customers'] });
      navigate('/customers', { replace: true });
    }
  });
  if (!detail.data || !form)
    return (
      <Stack>
        <Title order={1}>Customer</Title>
        <ListState query={detail} count={undefined} empty="" label="the customer" />
      </Stack>
    );
  const c = detail.data.customer;
  const set = (key: keyof Form) => (event: { currentTarget: { value: string } }) => setForm({ ...form, [key]: event.currentTarget.value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(form);
  };
  return (
    <Stack>
      <Group>
        <Title order={1}>{[c.firstName, c.lastName].filter(Boolean).join(' ') || c.email}</Title>
        <Badge data-testid="customer-marketing">{human(c.emailMarketing)}</Badge>
      </Group>
      <Text data-testid="customer-figures">
        {c.ordersCount} orders · {formatMoney(c.totalSpent)} spent · customer since {new Date(c.createdAt).toLocaleDateString()}
        {c.emailMarketingUpdatedAt && ` · marketing ${human(c.emailMarketing).toLowerCase()} since ${new Date(c.emailMarketingUpdatedAt).toLocaleDateString()}${c.emailMarketingSource ? ` (${c.emailMarketingSource})` : ''}`}
      </Text>
      <form onSubmit={submit} aria-label="Edit customer">
        <Stack maw={480}>
          <TextInput label="Email" required value={form.email} onChange={set('email')} error={fieldError(save.error, 'email')} />
          <Group grow>
            <TextInput label="First name" value={form.firstName} onChange={set('firstName')} error={fieldError(save.error, 'firstName')} />
            <TextInput label="Last name" value={form.lastName} onChange={set('lastName')} error={fieldError(save.error, 'lastName')} />
          </Group>
          <TextInput label="Phone" value={form.phone} onChange={set('phone')} error={fieldError(save.error, 'phone')} />
          <TextInput label="Tags (comma separated)" value={form.tags} onChange={set('tags')} error={fieldError(save.error, 'tags')} />
          <NativeSelect
            label="Email marketing"
            value={form.emailMarketing}
            onChange={set('emailMarketing')}
            error={fieldError(save.error, 'emailMarketing')}
            data={[
              { value: 'subscribed', label: 'Subscribed' },
              { value: 'unsubscribed', label: 'Unsubscribed' },
              { value: 'not_subscribed', label: 'Not subscribed' }
            ]}
          />
          <Textarea label="Note" value={form.note} onChange={set('note')} error={fieldError(save.error, 'note')} />
          <Group>
            <Button type="submit" loading={save.isPending}>
              Save customer
            </Button>
            {save.isSuccess && <span role="status">Saved</span>}
          </Group>
          <FormError error={save.error} fields={FIELDS} />
        </Stack>
      </form>
      <Title order={2} size="h4">
        Recent orders
      </Title>
      <Table aria-label="Recent orders">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Order</Table.Th>
            <Table.Th>Placed</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Total</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {detail.data.recentOrders.map((order) => (
            <Table.Tr key={order.id}>
              <Table.Td>
                <Anchor component={Link} to={`/orders/${order.id}`}>
                  #{order.number}
                </Anchor>
              </Table.Td>
              <Table.Td>{new Date(order.createdAt).toLocaleString()}</Table.Td>
              <Table.Td>{human(order.status)}</Table.Td>
              <Table.Td>{formatMoney(order.total, order.currency)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {detail.data.recentOrders.length === 0 && <Text>No orders yet.</Text>}
      {me.data?.role !== 'staff' && (
        <ConfirmButton
          label="Delete customer"
          question={`Delete ${c.email}? Their orders stay, no longer linked to them.`}
          confirm="Yes, delete the customer"
          onConfirm={() => remove.mutate()}
          pending={remove.isPending}
          error={remove.error}
        />
      )}
    </Stack>
  );
}
