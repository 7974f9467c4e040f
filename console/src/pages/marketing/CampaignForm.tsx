import { Button, Card, Stack, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';

type Campaign = components['schemas']['Campaign'];

/** A newsletter: every subscribed customer gets it, now or at the chosen time; the form is cleared once it is sent. */
export function CampaignForm({ onCreated }: { onCreated: (campaign: Campaign) => void }) {
  const [form, setForm] = useState({ subject: '', html: '', text: '', sendAt: '' });
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: async () => {
      const body = {
        subject: form.subject,
        html: form.html || `<p>${form.text.replace(/[<>&]/g, '')}</p>`,
        text: form.text,
        ...(form.sendAt ? { sendAt: new Date(form.sendAt).toISOString() } : {})
      };
      return unwrap(await api.POST('/api/v1/admin/marketing/campaigns/newsletter', { body })).data.campaign;
    },
    onSuccess: (campaign) => {
      void queryClient.invalidateQueries({ queryKey: ['campaigns'] });
      setForm({ subject: '', html: '', text: '', sendAt: '' });
      onCreated(campaign);
    }
  });
  const set = (field: keyof typeof form) => (e: { currentTarget: { value: string } }) => {
    const value = e.currentTarget.value;
    setForm((old) => ({ ...old, [field]: value }));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Card withBorder component="section" aria-labelledby="new-campaign">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="new-campaign">
            New newsletter
          </Title>
          <TextInput label="Subject" required value={form.subject} onChange={set('subject')} error={fieldError(create.error, 'subject')} />
          <Textarea label="Message (plain text)" required autosize minRows={4} value={form.text} onChange={set('text')} error={fieldError(create.error, 'text')} />
          <Textarea label="Message (HTML, optional)" autosize minRows={2} value={form.html} onChange={set('html')} error={fieldError(create.error, 'html')} />
          <TextInput label="Send at (empty: now)" type="datetime-local" value={form.sendAt} onChange={set('sendAt')} error={fieldError(create.error, 'sendAt')} />
          <FormError error={create.error} fields={['subject', 'text', 'html', 'sendAt']} />
          <Button type="submit" loading={create.isPending}>
            Send newsletter
          </Button>
        </Stack>
      </form>
    </Card>
  );
}
