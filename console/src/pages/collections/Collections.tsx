import { Anchor, Button, Checkbox, Group, Stack, Table, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { Link } from 'react-router-dom';
import { ListState } from '../../components/ListState';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { FormError } from '../../components/FormError';
import { nextCursorOf, Pager, useCursor } from '../../components/Pager';

/** Collections: list (newest first, cursor pages) and create; each opens to edit it and its products. */
export function Collections() {
  const pager = useCursor();
  const queryClient = useQueryClient();
  const [title, setTitle] = useState('');
  const [isPublished, setPublished] = useState(true);
  const [q, setQ] = useState('');
  // Debounced like the customers list: one request once typing pauses, not one per key.
  const [search] = useDebouncedValue(q.trim(), 250);
  const collections = useQuery({
    queryKey: ['collections', search, pager.cursor],
    placeholderData: keepPreviousData,
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/admin/collections', { params: { query: { limit: 20, ...(search ? { q: search } : {}), ...(pager.cursor ? { cursor: pager.cursor } : {}) } } }))
  });
  const create = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/collections', { body: { title, isPublished } })).data,
    onSuccess: () => (setTitle(''), void queryClient.invalidateQueries({ queryKey: ['collections'] }))
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Stack>
      <Title order={1}>Collections</Title>
      <form onSubmit={submit}>
        <Group align="flex-end">
          <TextInput label="Collection title" required value={title} onChange={(e) => setTitle(e.currentTarget.value)} error={fieldError(create.error, 'title')} />
          <Checkbox label="Published" checked={isPublished} onChange={(e) => setPublished(e.currentTarget.checked)} mb={8} />
          <Button type="submit" loading={create.isPending}>
            Create collection
          </Button>
        </Group>
      </form>
      <FormError error={create.error} fields={['title']} />
      <Title order={2} size="h4">
        Newest first
      </Title>
      <TextInput label="Search collections" description="Title or handle" maw={360} value={q} onChange={(e) => (setQ(e.currentTarget.value), pager.reset())} />
      <div className="table-scroll">
      <Table striped aria-label="Collections">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Title</Table.Th>
            <Table.Th>Products</Table.Th>
            <Table.Th>Published</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {collections.data?.data.collections.map((c) => (
            <Table.Tr key={c.id}>
              <Table.Td>
                <Anchor component={Link} to={`/collections/${c.id}`}>
                  {c.title}
                </Anchor>
              </Table.Td>
              <Table.Td>{c.productsCount}</Table.Td>
              <Table.Td>{c.isPublished ? 'Yes' : 'No'}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      </div>
      <ListState query={collections} count={collections.data?.data.collections.length} empty={search ? 'No collection matches this search.' : 'No collections yet: give the first one a title above.'} label="collections" />
      <Pager pager={pager} nextCursor={nextCursorOf(collections.data?.meta)} />
    </Stack>
  );
}
