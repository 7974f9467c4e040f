import { Button, Group, NativeSelect, Stack, Table, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { useMe } from '../../api/me';
import { FormError } from '../../components/FormError';

type InviteRole = 'owner' | 'admin' | 'staff';

export function Team() {
  const me = useMe();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<InviteRole>('staff');
  const team = useQuery({ queryKey: ['team'], queryFn: async () => unwrap(await api.GET('/api/v1/admin/store/team')).data });
  const invite = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/store/team/invites', { body: { email, role } })).data.invite,
    onSuccess: () => {
      setEmail('');
      void queryClient.invalidateQueries({ queryKey: ['team'] });
    }
  });
  const revoke = useMutation({
    mutationFn: async (userId: string) => unwrap(await api.POST('/api/v1/admin/store/team/members/{userId}/revoke', { params: { path: { userId } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['team'] })
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate();
  };
  const roles = [...(me.data?.role === 'owner' ? ['owner'] : []), 'admin', 'staff'];
  return (
    <Stack>
      <Title order={1}>Team</Title>
      <form onSubmit={submit}>
        <Group align="flex-end">
          <TextInput label="Email to invite" type="email" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} error={fieldError(invite.error, 'email')} />
          <NativeSelect label="Role" value={role} onChange={(e) => setRole(e.currentTarget.value as InviteRole)} data={roles} />
          <Button type="submit" loading={invite.isPending}>
            Send invite
          </Button>
        </Group>
      </form>
      <FormError error={invite.error ?? revoke.error} fields={['email']} />
      <Title order={2} size="h3">
        Members
      </Title>
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Email</Table.Th>
            <Table.Th>Role</Table.Th>
            <Table.Th>Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {team.data?.members.map((m) => (
            <Table.Tr key={m.userId}>
              <Table.Td>
                {m.firstName} {m.lastName}
              </Table.Td>
              <Table.Td>{m.email}</Table.Td>
              <Table.Td>{m.role}</Table.Td>
              <Table.Td>
                {m.userId !== me.data?.user.id && (
                  <Button size="xs" variant="subtle" color="red" onClick={() => revoke.mutate(m.userId)}>
                    Remove {m.email}
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Title order={2} size="h3">
        Pending invites
      </Title>
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Email</Table.Th>
            <Table.Th>Role</Table.Th>
            <Table.Th>Expires</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {team.data?.invites.map((i) => (
            <Table.Tr key={i.id}>
              <Table.Td>{i.email}</Table.Td>
              <Table.Td>{i.role}</Table.Td>
              <Table.Td>{new Date(i.expiresAt).toLocaleDateString()}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
