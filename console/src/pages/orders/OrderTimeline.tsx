import { Badge, Button, Checkbox, Group, List, Stack, Text, Textarea, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { useMe } from '../../api/me';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';
import { human } from '../../components/labels';
import { ListState } from '../../components/ListState';

type OrderEvent = components['schemas']['OrderEvent'];

/** The team's names (owners and admins may read them; staff see "a team member"). */
function useMemberNames(enabled: boolean) {
  return useQuery({
    queryKey: ['team'],
    enabled,
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/store/team')).data,
    select: (team) => new Map(team.members.map((m) => [m.userId, `${m.firstName} ${m.lastName}`.trim() || m.email]))
  });
}

function NoteForm({ orderId, note, onDone }: { orderId: string; note?: OrderEvent; onDone?: () => void }) {
  const queryClient = useQueryClient();
  const [body, setBody] = useState(note?.body ?? '');
  const [isPublic, setPublic] = useState(note?.isPublic ?? false);
  const save = useMutation({
    mutationFn: async () =>
      note
        ? unwrap(await api.PATCH('/api/v1/admin/orders/{orderId}/notes/{noteId}', { params: { path: { orderId, noteId: note.id } }, body: { body, isPublic } }))
        : unwrap(await api.POST('/api/v1/admin/orders/{orderId}/notes', { params: { path: { orderId } }, body: { body, isPublic } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['timeline', orderId] });
      if (!note) (setBody(''), setPublic(false));
      onDone?.();
    }
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} aria-label={note ? 'Editing a note' : 'Add a note'}>
      <Stack gap="xs">
        <Textarea label={note ? 'Edit note' : 'Note'} autosize minRows={2} value={body} onChange={(e) => setBody(e.currentTarget.value)} error={fieldError(save.error, 'body')} />
        <Checkbox label="Public (shown on the customer's tracking page)" checked={isPublic} onChange={(e) => setPublic(e.currentTarget.checked)} />
        <Group>
          <Button type="submit" size="xs" disabled={!body.trim()} loading={save.isPending}>
            {note ? 'Save note' : 'Add note'}
          </Button>
          {onDone && (
            <Button size="xs" variant="default" onClick={onDone}>
              Cancel editing
            </Button>
          )}
        </Group>
        <FormError error={save.error} fields={['body']} />
      </Stack>
    </form>
  );
}

/** The order's events, newest first, each with who did it; notes added, edited and deleted here (your own). */
export function OrderTimeline({ orderId }: { orderId: string }) {
  const me = useMe();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<string | null>(null);
  const names = useMemberNames(me.data !== undefined && me.data.role !== 'staff');
  const timeline = useQuery({
    queryKey: ['timeline', orderId],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/orders/{orderId}/timeline', { params: { path: { orderId }, query: { limit: 50 } } })).data.events
  });
  const remove = useMutation({
    mutationFn: async (noteId: string) => {
      const result = await api.DELETE('/api/v1/admin/orders/{orderId}/notes/{noteId}', { params: { path: { orderId, noteId } } });
      if (!result.response.ok) unwrap(result as never);
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['timeline', orderId] })
  });
  const actor = (event: OrderEvent) => {
    if (event.actor.type === 'system') return 'Shopwright';
    if (event.actor.type === 'webhook') return 'payment provider';
    if (event.actor.userId && event.actor.userId === me.data?.user.id) return 'you';
    return (event.actor.userId && names.data?.get(event.actor.userId)) || 'a team member';
  };
  return (
    <section aria-labelledby="timeline-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="timeline-title">
          Timeline and notes
        </Title>
        <NoteForm orderId={orderId} />
        <ListState query={timeline} count={timeline.data?.length} empty="No events yet." label="the timeline" />
        <List listStyleType="none" spacing="xs" aria-label="Timeline">
          {timeline.data?.map((event) => (
            <List.Item key={event.id} data-testid={event.type === 'note' ? 'note' : 'event'}>
              {editing === event.id ? (
                <NoteForm orderId={orderId} note={event} onDone={() => setEditing(null)} />
              ) : (
                <Stack gap={2}>
                  <Text size="sm">
                    <strong>{event.type === 'note' ? 'Note' : human(event.type)}</strong> by {actor(event)} · {new Date(event.createdAt).toLocaleString()}
                    {event.updatedAt ? ' (edited)' : ''}{' '}
                    {event.type === 'note' && (
                      <Badge size="xs" variant="outline" color={event.isPublic ? 'teal.9' : 'gray.8'}>
                        {event.isPublic ? 'Public' : 'Internal'}
                      </Badge>
                    )}
                  </Text>
                  {event.body && (
                    <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                      {event.body}
                    </Text>
                  )}
                  {event.type === 'note' && event.actor.userId === me.data?.user.id && (
                    <Group gap="xs">
                      <Button size="compact-xs" variant="subtle" onClick={() => setEditing(event.id)}>
                        Edit note
                      </Button>
                      <Button size="compact-xs" variant="subtle" color="red" onClick={() => remove.mutate(event.id)} loading={remove.isPending && remove.variables === event.id}>
                        Delete note
                      </Button>
                    </Group>
                  )}
                </Stack>
              )}
            </List.Item>
          ))}
        </List>
        <FormError error={remove.error} />
      </Stack>
    </section>
  );
}
