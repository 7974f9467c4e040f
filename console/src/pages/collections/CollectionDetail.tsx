import { Button, Card, Checkbox, Group, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FormError } from '../../components/FormError';
import { human } from '../../components/labels';
import { ListState } from '../../components/ListState';
import { formatMoney } from '../../components/Money';

type Collection = components['schemas']['Collection'];

/** A collection: edit its title, description and publication; add products (searched) and remove them. */
export function CollectionDetail() {
  const collectionId = useParams().collectionId!;
  const queryClient = useQueryClient();
  const collection = useQuery({
    queryKey: ['collection', collectionId],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/collections/{collectionId}', { params: { path: { collectionId }, query: { limit: 250 } } })).data.collection
  });
  const [form, setForm] = useState({ title: '', description: '', isPublished: true });
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (collection.data) setForm({ title: collection.data.title, description: collection.data.description, isPublished: collection.data.isPublished });
  }, [collection.data]);
  const [q, setQ] = useState('');
  const [search] = useDebouncedValue(q, 250);
  const found = useQuery({
    queryKey: ['products', 'collection-search', search],
    enabled: search.trim().length > 0,
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/products', { params: { query: { limit: 10, q: search } } })).data.products
  });
  const patch = useMutation({
    mutationFn: async (body: { title?: string; description?: string; isPublished?: boolean; productIds?: string[] }) =>
      unwrap(await api.PATCH('/api/v1/admin/collections/{collectionId}', { params: { path: { collectionId } }, body })).data.collection as Collection,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['collection', collectionId] });
      void queryClient.invalidateQueries({ queryKey: ['collections'] });
    }
  });
  const navigate = useNavigate();
  const remove = useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/v1/admin/collections/{collectionId}', { params: { path: { collectionId } } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['collections'] });
      queryClient.removeQueries({ queryKey: ['collection', collectionId] });
      navigate('/collections', { replace: true });
    }
  });
  if (!collection.data)
    return (
      <Stack>
        <Title order={1}>Collection</Title>
        <ListState query={collection} count={undefined} empty="" label="the collection" />
      </Stack>
    );
  const c = collection.data;
  const members = new Set(c.productIds);
  const save = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    patch.mutate(form, { onSuccess: () => setSaved(true) });
  };
  return (
    <Stack>
      <Title order={1}>{c.title}</Title>
      <Card withBorder component="section" aria-labelledby="collection-details">
        <form onSubmit={save}>
          <Stack>
            <Title order={2} size="h4" id="collection-details">
              Details
            </Title>
            <TextInput label="Collection title" required value={form.title} onChange={(e) => setForm({ ...form, title: e.currentTarget.value })} error={fieldError(patch.error, 'title')} />
            <Textarea label="Description" autosize minRows={2} value={form.description} onChange={(e) => setForm({ ...form, description: e.currentTarget.value })} error={fieldError(patch.error, 'description')} />
            <Checkbox label="Published" checked={form.isPublished} onChange={(e) => setForm({ ...form, isPublished: e.currentTarget.checked })} />
            <Group>
              <Button type="submit" loading={patch.isPending}>
                Save collection
              </Button>
              {saved && <Text role="status">Saved</Text>}
            </Group>
            <FormError error={patch.error} fields={['title', 'description']} />
          </Stack>
        </form>
      </Card>
      <section aria-labelledby="collection-products">
        <Stack>
          <Title order={2} size="h4" id="collection-products">
            Products ({c.productsCount})
          </Title>
          <TextInput label="Find a product to add" value={q} onChange={(e) => setQ(e.currentTarget.value)} />
          {found.data && (
            <Stack gap={4} aria-label="Products found">
              {found.data.length === 0 && <Text size="sm">No product matches.</Text>}
              {found.data.map((p) => (
                <Group key={p.id} justify="space-between">
                  <Text size="sm">{p.title}</Text>
                  <Button size="xs" variant="default" disabled={members.has(p.id)} onClick={() => patch.mutate({ productIds: [...c.productIds, p.id] })} aria-label={members.has(p.id) ? `In collection: ${p.title}` : `Add ${p.title}`}>
                    {members.has(p.id) ? 'In collection' : 'Add'}
                  </Button>
                </Group>
              ))}
            </Stack>
          )}
          <div className="table-scroll">
            <Table aria-label="Products in this collection">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Product</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Price</Table.Th>
                  <Table.Th>
                    <span className="visually-hidden">Actions</span>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {c.products.map((p) => (
                  <Table.Tr key={p.id}>
                    <Table.Td>{p.title}</Table.Td>
                    <Table.Td>{human(p.status)}</Table.Td>
                    <Table.Td>{formatMoney(p.price)}</Table.Td>
                    <Table.Td>
                      <Button size="xs" variant="subtle" color="red" onClick={() => patch.mutate({ productIds: c.productIds.filter((id) => id !== p.id) })} aria-label={`Remove ${p.title}`}>
                        Remove
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </div>
          {c.products.length === 0 && <Text data-testid="empty-state">No products yet: find one above and add it.</Text>}
        </Stack>
      </section>
      <ConfirmButton
        label="Delete collection"
        question={`Delete ${c.title}? Its products stay in the store.`}
        confirm="Yes, delete the collection"
        onConfirm={() => remove.mutate()}
        pending={remove.isPending}
        error={remove.error}
      />
    </Stack>
  );
}
