import { Alert, Button, Code, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { FormError } from '../../components/FormError';

/** Storefront tokens: create (the secret is shown once), rotate, revoke. */
export function StorefrontTokens() {
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const tokens = useQuery({ queryKey: ['storefront-tokens'], queryFn: async () => unwrap(await api.GET('/api/v1/admin/store/storefront-tokens')).data.tokens });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['storefront-tokens'] });
  const create = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/store/storefront-tokens', { body: { name } })).data,
    onSuccess: (data) => (setSecret(data.secret), setName(''), refresh())
  });
  const rotate = useMutation({
    mutationFn: async (tokenId: string) => unwrap(await api.POST('/api/v1/admin/store/storefront-tokens/{tokenId}/rotate', { params: { path: { tokenId } } })).data,
    onSuccess: (data) => (setSecret(data.secret), refresh())
  });
  const revoke = useMutation({
    mutationFn: async (tokenId: string) => unwrap(await api.POST('/api/v1/admin/store/storefront-tokens/{tokenId}/revoke', { params: { path: { tokenId } } })),
    onSuccess: refresh
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Stack>
      <Title order={1}>Storefront tokens</Title>
      <form onSubmit={submit}>
        <Group align="flex-end">
          <TextInput label="Token name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldError(create.error, 'name')} />
          <Button type="submit" loading={create.isPending}>
            Create token
          </Button>
        </Group>
      </form>
      {secret && (
        <Alert>
          <Text fw={700}>Copy the secret now: it is not shown again</Text>
          <Code>{secret}</Code>
        </Alert>
      )}
      <FormError error={create.error ?? rotate.error ?? revoke.error} fields={['name']} />
      <Table striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Prefix</Table.Th>
            <Table.Th>Last used</Table.Th>
            <Table.Th>Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {tokens.data?.map((token) => (
            <Table.Tr key={token.id}>
              <Table.Td>{token.name}</Table.Td>
              <Table.Td>{token.prefix}</Table.Td>
              <Table.Td>{token.lastUsedAt ? new Date(token.lastUsedAt).toLocaleString() : 'never'}</Table.Td>
              <Table.Td>
                {token.revokedAt ? (
                  'revoked'
                ) : (
                  <Group gap="xs">
                    <Button size="xs" variant="default" onClick={() => rotate.mutate(token.id)}>
                      Rotate {token.name}
                    </Button>
                    <Button size="xs" variant="default" color="red" onClick={() => revoke.mutate(token.id)}>
                      Revoke {token.name}
                    </Button>
                  </Group>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
