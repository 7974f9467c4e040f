import { Button, Card, Group, Progress, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { useLive } from '../../api/live';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';

type Campaign = components['schemas']['Campaign'];
const LIVE = new Set(['scheduled', 'sending']);

/** A campaign's live counts over its event stream (polling GET /admin/marketing/campaigns/{id} as the fallback). */
export function CampaignStatus({ campaignId }: { campaignId: string }) {
  const { value: c } = useLive<Campaign>({
    path: `/api/v1/admin/marketing/campaigns/${encodeURIComponent(campaignId)}/events`,
    name: 'campaign',
    ended: (campaign) => !LIVE.has(campaign.status),
    read: async (signal) => (await api.GET('/api/v1/admin/marketing/campaigns/{campaignId}', { params: { path: { campaignId } }, signal })).data?.data.campaign
  });
  // The campaigns table follows what the stream says: refreshed on each change of state and at the end.
  const queryClient = useQueryClient();
  const status = c?.status;
  const sent = c?.sent;
  useEffect(() => {
    if (status) void queryClient.invalidateQueries({ queryKey: ['campaigns'] });
  }, [status, sent, queryClient]);
  const cancel = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/marketing/campaigns/{campaignId}/cancel', { params: { path: { campaignId } } })).data.campaign
  });
  if (!c) return null;
  return (
    <Card withBorder component="section" aria-labelledby="campaign-status">
      <Stack gap="xs">
        <Title order={2} size="h4" id="campaign-status">
          {c.subject}
        </Title>
        <Progress value={c.progress.percent} aria-label="Campaign progress" />
        <Text role="status" aria-live="polite" data-testid="campaign-counts">
          {c.status}: {c.sent} sent, {c.failed} failed of {c.recipients} recipients
        </Text>
        {c.error && <Text c="red">{c.error}</Text>}
        {LIVE.has(c.status) && (
          <Group>
            <Button variant="default" color="red" onClick={() => cancel.mutate()} loading={cancel.isPending}>
              Cancel campaign
            </Button>
          </Group>
        )}
        <FormError error={cancel.error} />
      </Stack>
    </Card>
  );
}
