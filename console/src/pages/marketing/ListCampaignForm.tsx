import { Button, Card, Checkbox, Group, NativeSelect, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';

type Campaign = components['schemas']['Campaign'];

/** A campaign from a template to the subscribed members of chosen lists (POST /admin/marketing/campaigns/generic). */
export function ListCampaignForm({ onCreated }: { onCreated: (campaign: Campaign) => void }) {
  const queryClient = useQueryClient();
  const [templateId, setTemplateId] = useState('');
  const [listIds, setListIds] = useState<string[]>([]);
  const [sendAt, setSendAt] = useState('');
  const templates = useQuery({
    queryKey: ['templates'],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/marketing/templates', { params: { query: { limit: 50 } } })).data.templates
  });
  const lists = useQuery({
    queryKey: ['marketing-lists'],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/marketing/lists', { params: { query: { limit: 50 } } })).data.lists
  });
  const [key, setKey] = useState(() => crypto.randomUUID());
  const create = useMutation({
    mutationFn: async () => {
      const body = { templateId, audience: { listIds }, ...(sendAt ? { sendAt: new Date(sendAt).toISOString() } : {}) };
      return unwrap(await api.POST('/api/v1/admin/marketing/campaigns/generic', { body, headers: { 'idempotency-key': key } })).data.campaign;
    },
    onSuccess: (campaign) => {
      void queryClient.invalidateQueries({ queryKey: ['campaigns'] });
      setTemplateId('');
      setListIds([]);
      setSendAt('');
      setKey(crypto.randomUUID());
      onCreated(campaign);
    }
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const noTemplates = templates.data?.length === 0;
  const noLists = lists.data?.length === 0;
  return (
    <Card withBorder component="section" aria-labelledby="list-campaign">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="list-campaign">
            Campaign to lists
          </Title>
          {noTemplates || noLists ? (
            <Text size="sm">Create {noTemplates ? 'an email template' : ''}{noTemplates && noLists ? ' and ' : ''}{noLists ? 'a list' : ''} first (Email templates, Lists and audiences).</Text>
          ) : (
            <>
              <NativeSelect
                label="Template"
                required
                value={templateId}
                onChange={(e) => setTemplateId(e.currentTarget.value)}
                error={fieldError(create.error, 'templateId')}
                data={[{ value: '', label: 'Choose a template' }, ...(templates.data ?? []).map((t) => ({ value: t.id, label: t.name }))]}
              />
              <Checkbox.Group label="Send to the subscribed members of" value={listIds} onChange={setListIds} error={fieldError(create.error, 'audience.listIds')}>
                <Group mt="xs">
                  {lists.data?.map((list) => (
                    <Checkbox key={list.id} value={list.id} label={`${list.name} (${list.memberCount})`} />
                  ))}
                </Group>
              </Checkbox.Group>
              <TextInput label="Send list campaign at (empty: now)" type="datetime-local" value={sendAt} onChange={(e) => setSendAt(e.currentTarget.value)} error={fieldError(create.error, 'sendAt')} />
              <FormError error={create.error} fields={['templateId', 'sendAt', 'audience.listIds']} />
              <Button type="submit" loading={create.isPending} disabled={!templateId || listIds.length === 0} w="fit-content">
                Send to lists
              </Button>
            </>
          )}
        </Stack>
      </form>
    </Card>
  );
}
