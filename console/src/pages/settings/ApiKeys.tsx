import { Alert, Button, Checkbox, Code, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';

type Scope = components['schemas']['ApiKey']['scopes'][number];
const SCOPES: Scope[] = ['read_products', 'write_products', 'read_orders', 'write_orders', 'read_customers', 'write_customers', 'marketing', 'read_jobs'];

/** Admin API keys: create with scopes (the secret is shown once), revoke. */
export function ApiKeys() {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['read_products']);
  const [secret, setSecret] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: async () => unwrap(await api.GET('/api/v1/admin/store/api-keys')).data });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['api-keys'] });
  const create = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/store/api-keys', { body: { name, scopes } })).data,
    onSuccess: (data) => (setSecret(data.secret), setName(''), refresh())
  });
  const revoke = useMutation({
    mutationFn: async (keyId: string) => unwrap(await api.DELETE('/api/v1/admin/store/api-keys/{keyId}', { params: { path: { keyId } } })),
    onSuccess: refresh
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const list = keys.data?.apiKeys ?? [];
  return (
    <Stack>
      <Title order={1}>API keys</Title>
      <form onSubmit={submit}>
        <Stack>
          <TextInput label="Key name" required w={320} value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldError(create.error, 'name')} />
          <Checkbox.Group label="Scopes" value={scopes} onChange={(value) => setScopes(value as Scope[])} error={fieldError(create.error, 'scopes')}>
            <Group mt="xs">
              {SCOPES.map((scope) => (
                <Checkbox key={scope} value={scope} label={scope} />
              ))}
            </Group>
          </Checkbox.Group>
          <Button type="submit" loading={create.isPending} w="fit-content">
            Create key
          </Button>
        </Stack>
      </form>
      {secret && (
        <Alert>
          <Text fw={700}>Copy the key now: it is not shown again</Text>
          <Code>{secret}</Code>
        </Alert>
      )}
      <FormError error={create.error ?? revoke.error} fields={['name', 'scopes']} />
      <Table striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Prefix</Table.Th>
            <Table.Th>Scopes</Table.Th>
            <Table.Th>Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.map((key) => (
            <Table.Tr key={key.id}>
              <Table.Td>{key.name}</Table.Td>
              <Table.Td>{key.prefix}</Table.Td>
              <Table.Td>{key.scopes.join(', ')}</Table.Td>
              <Table.Td>
                {key.revokedAt ? (
                  'revoked'
                ) : (
                  <Button size="xs" variant="default" color="red" onClick={() => revoke.mutate(key.id)}>
                    Revoke {key.name}
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
