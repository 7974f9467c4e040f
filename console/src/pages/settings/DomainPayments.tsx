import { Badge, Button, Code, Group, List, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { ApiError, fieldError, unwrap } from '../../api/errors';
import { FormError } from '../../components/FormError';

/** The custom domain: connect a hostname, the DNS records to add, their status and a check. */
function Domain() {
  const [hostname, setHostname] = useState('');
  const [checkedBefore, setCheckedBefore] = useState<string | null | undefined>(undefined);
  const queryClient = useQueryClient();
  // Asked for only once one is connected (the dashboard says so): no 404 before.
  const dashboard = useQuery({ queryKey: ['dashboard'], queryFn: async () => unwrap(await api.GET('/api/v1/admin/store')).data });
  const domain = useQuery({
    queryKey: ['domain'],
    retry: false,
    enabled: dashboard.data?.setup.domainConnected === true,
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/store/domain')).data.domain,
    // After "Check DNS records", poll until the queued check has run (lastCheckedAt moves).
    refetchInterval: (query) => (checkedBefore !== undefined && query.state.data?.lastCheckedAt === checkedBefore ? 1000 : false)
  });
  const connect = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/store/domain/onboarding-link', { body: { hostname } })).data.domain,
    onSuccess: (data) => (queryClient.setQueryData(['domain'], data), void queryClient.invalidateQueries({ queryKey: ['dashboard'] }))
  });
  const check = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/store/domain/check')).data.domain,
    onSuccess: (data) => (setCheckedBefore(data.lastCheckedAt), queryClient.setQueryData(['domain'], data))
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    connect.mutate();
  };
  const d = domain.data;
  const missing = (dashboard.data?.setup.domainConnected === false && !domain.data) || (domain.error instanceof ApiError && domain.error.status === 404);
  return (
    <section aria-labelledby="domain-title">
      <Stack>
        <Title order={2} id="domain-title">
          Domain
        </Title>
        {!missing && <FormError error={domain.error} />}
        <form onSubmit={submit} aria-label="Connect a domain">
          <Group align="flex-end">
            <TextInput label="Hostname" placeholder="shop.example.com" required value={hostname} onChange={(e) => setHostname(e.currentTarget.value)} error={fieldError(connect.error, 'hostname')} />
            <Button type="submit" loading={connect.isPending}>
              {d ? 'Change domain' : 'Connect domain'}
            </Button>
          </Group>
        </form>
        <FormError error={connect.error ?? check.error} fields={['hostname']} />
        {d && (
          <Stack gap="xs">
            <Group>
              <Text fw={700}>{d.hostname}</Text>
              <Badge data-testid="domain-status">{d.status}</Badge>
              <Button size="xs" variant="default" loading={check.isPending} onClick={() => check.mutate()}>
                Check DNS records
              </Button>
            </Group>
            <Text size="sm">Add these records at your DNS host{d.lastCheckedAt ? ` · last checked ${new Date(d.lastCheckedAt).toLocaleString()}` : ''}:</Text>
            <Table aria-label="DNS records">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Type</Table.Th>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Value</Table.Th>
                  <Table.Th>Status</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {d.records.map((record) => {
                  const failure = d.failures.find((f) => f.type === record.type && f.name === record.name);
                  return (
                    <Table.Tr key={`${record.type}${record.name}`} data-testid="dns-record">
                      <Table.Td>{record.type}</Table.Td>
                      <Table.Td>
                        <Code>{record.name}</Code>
                      </Table.Td>
                      <Table.Td>
                        <Code>{record.value}</Code>
                      </Table.Td>
                      <Table.Td>{failure ? failure.message : d.verifiedAt || d.lastCheckedAt ? 'found' : 'not checked yet'}</Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Stack>
        )}
      </Stack>
    </section>
  );
}

/** Stripe Connect: the account's status and flags, and a link to (continue) onboarding. */
function Payments() {
  const account = useQuery({ queryKey: ['payments'], queryFn: async () => unwrap(await api.GET('/api/v1/admin/store/payments')).data });
  const onboard = useMutation({
    mutationFn: async () => {
      const here = `${location.origin}/app/settings/domain-payments`;
      return unwrap(await api.POST('/api/v1/admin/store/payments/onboarding-link', { body: { returnUrl: here, refreshUrl: here } })).data;
    },
    onSuccess: (link) => location.assign(link.url)
  });
  const a = account.data;
  return (
    <section aria-labelledby="payments-title">
      <Stack>
        <Title order={2} id="payments-title">
          Payments
        </Title>
        <FormError error={account.error ?? onboard.error} />
        {a && (
          <>
            <Group>
              <Text>Stripe</Text>
              <Badge data-testid="payments-status">{a.status.replace('_', ' ')}</Badge>
            </Group>
            <List size="sm">
              <List.Item>Charges {a.chargesEnabled ? 'enabled' : 'not enabled'}</List.Item>
              <List.Item>Payouts {a.payoutsEnabled ? 'enabled' : 'not enabled'}</List.Item>
              <List.Item>Details {a.detailsSubmitted ? 'submitted' : 'not submitted'}</List.Item>
              {a.requirementsDue.length > 0 && <List.Item>Still needed: {a.requirementsDue.join(', ')}</List.Item>}
            </List>
            {a.status !== 'active' && (
              <Button w="fit-content" loading={onboard.isPending} onClick={() => onboard.mutate()}>
                {a.status === 'not_connected' ? 'Set up payments' : 'Continue onboarding'}
              </Button>
            )}
          </>
        )}
      </Stack>
    </section>
  );
}

export function DomainPayments() {
  return (
    <Stack>
      <Title order={1}>Domain and payments</Title>
      <Domain />
      <Payments />
    </Stack>
  );
}
