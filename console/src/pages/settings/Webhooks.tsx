import { Alert, Badge, Button, Checkbox, Code, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';
import { WebhookDeliveries } from './WebhookDeliveries';

type Topic = components['schemas']['WebhookSubscription']['topics'][number];
// Keyed by every topic the API's schema names, so the console stops compiling when the server adds one.
const TOPIC_CHOICES = {
  'order.created': true,
  'order.paid': true,
  'order.fulfilled': true,
  'order.cancelled': true,
  'order.refunded': true,
  'order.updated': true,
  'dispute.created': true,
  'dispute.updated': true,
  'product.created': true,
  'product.updated': true,
  'product.deleted': true,
  'inventory.low': true,
  'customer.created': true,
  'customer.updated': true,
  'campaign.sent': true,
  'job.completed': true,
  'job.failed': true
} as const satisfies Record<Topic, true>;
const TOPICS = Object.keys(TOPIC_CHOICES) as Topic[];

/** Webhooks: create (the signing secret is shown once), rotate the secret, enable/disable, delete, ping, delivery log. */
export function Webhooks() {
  const [url, setUrl] = useState('');
  const [topics, setTopics] = useState<Topic[]>(['order.created']);
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const hooks = useQuery({ queryKey: ['webhooks'], queryFn: async () => unwrap(await api.GET('/api/v1/admin/store/webhooks')).data });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['webhooks'] });
  const create = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/store/webhooks', { body: { url, topics } })).data,
    onSuccess: (data) => (setSecret(data.secret), setUrl(''), setOpen(data.webhook.id), refresh())
  });
  const path = (webhookId: string) => ({ params: { path: { webhookId } } });
  const rotate = useMutation({
    mutationFn: async (webhookId: string) => unwrap(await api.POST('/api/v1/admin/store/webhooks/{webhookId}/rotate-secret', path(webhookId))).data,
    onSuccess: (data) => (setSecret(data.secret), refresh())
  });
  const toggle = useMutation({
    mutationFn: async ({ webhookId, enabled }: { webhookId: string; enabled: boolean }) =>
      unwrap(await api.PATCH('/api/v1/admin/store/webhooks/{webhookId}', { ...path(webhookId), body: { enabled } })),
    onSuccess: refresh
  });
  const remove = useMutation({
    mutationFn: async (webhookId: string) => unwrap(await api.DELETE('/api/v1/admin/store/webhooks/{webhookId}', path(webhookId))),
    onSuccess: () => (setOpen(null), refresh())
  });
  const ping = useMutation({
    mutationFn: async (webhookId: string) => unwrap(await api.POST('/api/v1/admin/store/webhooks/{webhookId}/ping', path(webhookId))),
    onSuccess: (_data, webhookId) => (setOpen(webhookId), void queryClient.invalidateQueries({ queryKey: ['webhook-deliveries', webhookId] }))
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const list = hooks.data?.webhooks ?? [];
  const opened = list.find((hook) => hook.id === open);
  return (
    <Stack>
      <Title order={1}>Webhooks</Title>
      <form onSubmit={submit}>
        <Stack>
          <TextInput label="Endpoint URL" required w={480} value={url} onChange={(e) => setUrl(e.currentTarget.value)} error={fieldError(create.error, 'url')} />
          <Checkbox.Group label="Topics" value={topics} onChange={(value) => setTopics(value as Topic[])} error={fieldError(create.error, 'topics')}>
            <Group mt="xs">
              {TOPICS.map((topic) => (
                <Checkbox key={topic} value={topic} label={topic} />
              ))}
            </Group>
          </Checkbox.Group>
          <Button type="submit" loading={create.isPending} w="fit-content">
            Create webhook
          </Button>
        </Stack>
      </form>
      {secret && (
        <Alert>
          <Text fw={700}>Copy the signing secret now: it is not shown again</Text>
          <Code>{secret}</Code>
        </Alert>
      )}
      <FormError error={create.error ?? rotate.error ?? toggle.error ?? remove.error ?? ping.error} fields={['url', 'topics']} />
      <Table striped aria-label="Webhooks">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>URL</Table.Th>
            <Table.Th>Topics</Table.Th>
            <Table.Th>State</Table.Th>
            <Table.Th>Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.map((hook) => (
            <Table.Tr key={hook.id}>
              <Table.Td>{hook.url}</Table.Td>
              <Table.Td>{hook.topics.join(', ')}</Table.Td>
              <Table.Td>
                <Badge color={hook.enabled ? 'teal.9' : 'dark.6'}>{hook.enabled ? 'enabled' : 'disabled'}</Badge>
                {hook.disabledReason && <Text size="sm">{hook.disabledReason}</Text>}
              </Table.Td>
              <Table.Td>
                <Group gap="xs">
                  <Button size="xs" variant="default" onClick={() => setOpen(hook.id)} aria-label={`Deliveries of ${hook.url}`}>
                    Deliveries
                  </Button>
                  <Button size="xs" variant="default" onClick={() => ping.mutate(hook.id)} aria-label={`Ping ${hook.url}`}>
                    Ping
                  </Button>
                  <Button size="xs" variant="default" onClick={() => rotate.mutate(hook.id)} aria-label={`Rotate secret of ${hook.url}`}>
                    Rotate secret
                  </Button>
                  <Button size="xs" variant="default" onClick={() => toggle.mutate({ webhookId: hook.id, enabled: !hook.enabled })} aria-label={`${hook.enabled ? 'Disable' : 'Enable'} ${hook.url}`}>
                    {hook.enabled ? 'Disable' : 'Enable'}
                  </Button>
                  <Button size="xs" variant="default" color="red" onClick={() => remove.mutate(hook.id)} aria-label={`Delete ${hook.url}`}>
                    Delete
                  </Button>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {opened && <WebhookDeliveries webhookId={opened.id} url={opened.url} />}
    </Stack>
  );
}
