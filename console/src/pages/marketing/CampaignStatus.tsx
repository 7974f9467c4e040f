import { Button, Card, Group, Progress, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { FormError } from '../../components/FormError';

const LIVE = new Set(['scheduled', 'sending']);

/** A campaign's live counts: re-read every second while it is scheduled or sending. */
export function CampaignStatus({ campaignId }: { campaignId: string }) {
  const campaign = useQuery({
    queryKey: ['campaign', campaignId],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/marketing/campaigns/{campaignId}', { params: { path: { campaignId } } })).data.campaign,
    refetchInterval: (query) => (query.state.data && !LIVE.has(query.state.data.status) ? false : 1000)
  });
  const cancel = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/marketing/campaigns/{campaignId}/cancel', { params: { path: { campaignId } } })).data.campaign,
    onSuccess: () => void campaign.refetch()
  });
  const c = campaign.data;
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
