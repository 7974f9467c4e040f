import { Anchor, Grid, Group, NativeSelect, Stack, Table, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { CampaignForm } from './CampaignForm';
import { CampaignStatus } from './CampaignStatus';
import { ListCampaignForm } from './ListCampaignForm';
import { human } from '../../components/labels';
import { ListState } from '../../components/ListState';

const STATUSES = ['scheduled', 'sending', 'sent', 'failed', 'cancelled'] as const;
const KINDS = ['generic', 'newsletter', 'old-customers', 'product-announcement', 'collection-announcement'] as const;
type Status = (typeof STATUSES)[number];
type Kind = (typeof KINDS)[number];

export function Campaigns() {
  const [selected, setSelected] = useState<string | null>(null);
  const [status, setStatus] = useState<Status | ''>('');
  const [type, setType] = useState<Kind | ''>('');
  const [q, setQ] = useState('');
  // Debounced like the customers list: one request once typing pauses, not one per key.
  const [search] = useDebouncedValue(q.trim(), 250);
  const campaigns = useQuery({
    queryKey: ['campaigns', status, type, search],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/admin/marketing/campaigns', {
          params: { query: { limit: 20, ...(status ? { status } : {}), ...(type ? { type } : {}), ...(search ? { q: search } : {}) } }
        })
      ).data.campaigns
  });
  return (
    <Stack>
      <Title order={1}>Marketing</Title>
      <Grid>
        <Grid.Col span={{ base: 12, md: 6 }}>
          <Stack>
            <CampaignForm onCreated={(campaign) => setSelected(campaign.id)} />
            <ListCampaignForm onCreated={(campaign) => setSelected(campaign.id)} />
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 6 }}>{selected && <CampaignStatus key={selected} campaignId={selected} />}</Grid.Col>
      </Grid>
      <Title order={2} size="h3">
        Campaigns, newest first
      </Title>
      <Group align="flex-end">
        <TextInput label="Search campaigns" placeholder="Part of the subject" value={q} onChange={(e) => setQ(e.currentTarget.value)} />
        <NativeSelect label="Campaign status" value={status} onChange={(e) => setStatus(e.currentTarget.value as Status | '')} data={[{ value: '', label: 'Any' }, ...STATUSES.map((value) => ({ value, label: human(value) }))]} />
        <NativeSelect label="Campaign kind" value={type} onChange={(e) => setType(e.currentTarget.value as Kind | '')} data={[{ value: '', label: 'Any' }, ...KINDS.map((value) => ({ value, label: human(value.replace(/-/g, ' ')) }))]} />
      </Group>
      <div className="table-scroll">
      <Table striped aria-label="Campaigns">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Subject</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Sent</Table.Th>
            <Table.Th>Failed</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {campaigns.data?.map((c) => (
            <Table.Tr key={c.id}>
              <Table.Td>
                <Anchor component="button" type="button" onClick={() => setSelected(c.id)}>
                  {c.subject}
                </Anchor>
              </Table.Td>
              <Table.Td data-testid="campaign-row-status">{human(c.status)}</Table.Td>
              <Table.Td>{c.sent}</Table.Td>
              <Table.Td>{c.failed}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      </div>
      <ListState query={campaigns} count={campaigns.data?.length} empty={status || type || search ? "No campaign matches these filters." : "No campaigns yet: send a newsletter above."} label="campaigns" />
    </Stack>
  );
}
