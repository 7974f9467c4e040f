import { List, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';

/** The order's events, newest first (first page). */
export function OrderTimeline({ orderId }: { orderId: string }) {
  const timeline = useQuery({
    queryKey: ['timeline', orderId],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/orders/{orderId}/timeline', { params: { path: { orderId }, query: { limit: 50 } } })).data.events
  });
  return (
    <section aria-labelledby="timeline-title">
      <Title order={2} size="h4" id="timeline-title">
        Timeline
      </Title>
      <List>
        {timeline.data?.map((event) => (
          <List.Item key={event.id}>
            <Text size="sm">
              {new Date(event.createdAt).toLocaleString()} — {event.type.replace(/_/g, ' ')}
              {event.body ? `: ${event.body}` : ''}
            </Text>
          </List.Item>
        ))}
      </List>
    </section>
  );
}
