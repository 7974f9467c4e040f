import { Button, Checkbox, Group, List, NumberInput, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { FormError } from '../../components/FormError';
import { ListState } from '../../components/ListState';
import { ListMembers } from './ListMembers';

/** Marketing lists (create, delete) and the audience preview: how many subscribed customers a choice of lists and filters reaches, with a sample. */
export function Audiences() {
  const [name, setName] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  const [listIds, setListIds] = useState<string[]>([]);
  const [tags, setTags] = useState('');
  const [minOrders, setMinOrders] = useState<number | ''>('');
  const queryClient = useQueryClient();
  const lists = useQuery({
    queryKey: ['marketing-lists'],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/marketing/lists', { params: { query: { limit: 50 } } })).data.lists
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['marketing-lists'] });
  const create = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/marketing/lists', { body: { name } })).data.list,
    onSuccess: () => (setName(''), refresh())
  });
  const remove = useMutation({
    mutationFn: async (listId: string) => {
      const result = await api.DELETE('/api/v1/admin/marketing/lists/{listId}', { params: { path: { listId } } });
      if (!result.response.ok) unwrap(result);
    },
    onSuccess: refresh
  });
  const preview = useMutation({
    mutationFn: async () => {
      const tagList = tags.split(',').map((tag) => tag.trim()).filter(Boolean);
      const filters = { ...(tagList.length ? { tags: tagList } : {}), ...(minOrders !== '' ? { minOrders } : {}) };
      return unwrap(await api.POST('/api/v1/admin/marketing/audience/preview', { body: { audience: { listIds, filters } } })).data;
    }
  });
  const submitList = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const submitPreview = (event: FormEvent) => {
    event.preventDefault();
    preview.mutate();
  };
  return (
    <Stack>
      <Title order={1}>Lists and audiences</Title>
      <form onSubmit={submitList} aria-label="New list">
        <Group align="flex-end">
          <TextInput label="List name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldError(create.error, 'name')} />
          <Button type="submit" loading={create.isPending}>
            Create list
          </Button>
        </Group>
      </form>
      <FormError error={create.error ?? remove.error} fields={['name']} />
      <div className="table-scroll">
      <Table striped aria-label="Lists">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Members</Table.Th>
            <Table.Th>Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {lists.data?.map((list) => (
            <Table.Tr key={list.id}>
              <Table.Td>{list.name}</Table.Td>
              <Table.Td>{list.memberCount}</Table.Td>
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  <Button size="xs" variant="default" onClick={() => setOpen(list.id)} aria-label={`Members of ${list.name}`}>
                    Members
                  </Button>
                  <Button size="xs" variant="default" color="red" onClick={() => remove.mutate(list.id)} aria-label={`Delete ${list.name}`}>
                    Delete
                  </Button>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      </div>
      <ListState query={lists} count={lists.data?.length} empty="No lists yet: name one above." label="lists" />
      {(() => {
        const list = lists.data?.find((l) => l.id === open);
        return list ? <ListMembers list={list} onClose={() => setOpen(null)} /> : null;
      })()}
      <Title order={2} size="h3">
        Audience preview
      </Title>
      <form onSubmit={submitPreview} aria-label="Audience preview">
        <Stack maw={480}>
          {Boolean(lists.data?.length) && (
            <Checkbox.Group label="Lists (none: every subscribed customer)" value={listIds} onChange={setListIds}>
              <Group mt="xs">
                {lists.data?.map((list) => (
                  <Checkbox key={list.id} value={list.id} label={list.name} />
                ))}
              </Group>
            </Checkbox.Group>
          )}
          <TextInput label="Customer tags (comma separated)" value={tags} onChange={(e) => setTags(e.currentTarget.value)} error={fieldError(preview.error, 'audience.filters.tags')} />
          <NumberInput label="At least this many orders" min={0} value={minOrders} onChange={(value) => setMinOrders(value === '' ? '' : Number(value))} />
          <Button type="submit" loading={preview.isPending} w="fit-content">
            Preview audience
          </Button>
          <FormError error={preview.error} />
        </Stack>
      </form>
      {preview.data && (
        <Stack gap="xs">
          <Text data-testid="audience-count">{preview.data.count} subscribed customers</Text>
          <List>
            {/* Absent only for an API key without read_customers; the console signs in as a member. */}
            {(preview.data.sample ?? []).map((customer) => (
              <List.Item key={customer.id}>
                {customer.email} {[customer.firstName, customer.lastName].filter(Boolean).join(' ')}
              </List.Item>
            ))}
          </List>
        </Stack>
      )}
    </Stack>
  );
}
