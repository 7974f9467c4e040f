import { Button, Card, Group, Radio, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { FormError } from '../../components/FormError';
import { formatMoney } from '../../components/Money';
import type { DraftOrder } from './draft-form-state';

type Choice = 'mark_paid' | 'pending' | 'invoice';

const CHOICES: Array<{ value: Choice; label: string; description: string }> = [
  { value: 'mark_paid', label: 'Mark as paid', description: 'The payment was collected by hand: the order is made paid.' },
  { value: 'pending', label: 'Payment pending', description: 'The order is made now; mark it paid when the money arrives.' },
  { value: 'invoice', label: 'Send an invoice', description: 'The customer is emailed a payment link; the order is made when they pay.' }
];

/**
 * Completes a draft with one of the API's three payment choices (asked once more before it goes):
 * stock is taken at this moment (409 naming a line without stock). An invoice answers its link,
 * handed to the page to show; the other two make the order the page then links.
 */
export function CompleteDraft({ draft, onInvoice }: { draft: DraftOrder; onInvoice: (url: string) => void }) {
  const queryClient = useQueryClient();
  const [payment, setPayment] = useState<Choice>('mark_paid');
  const [confirming, setConfirming] = useState(false);
  const [key, setKey] = useState(() => crypto.randomUUID());
  const complete = useMutation({
    mutationFn: async () => {
      const data = unwrap(
        await api.POST('/api/v1/admin/draft-orders/{draftOrderId}/complete', { params: { path: { draftOrderId: draft.id } }, body: { payment }, headers: { 'idempotency-key': key } })
      ).data as { order?: { id: string; number: number }; invoice?: { url: string } };
      return data;
    },
    onSuccess: (data) => {
      // The link is shown once (only its hash is stored): the page keeps it after the draft turns invoiced.
      if (data.invoice) onInvoice(data.invoice.url);
      setConfirming(false);
      setKey(crypto.randomUUID());
      void queryClient.invalidateQueries({ queryKey: ['draft-order', draft.id] });
      void queryClient.invalidateQueries({ queryKey: ['draft-orders'] });
      void queryClient.invalidateQueries({ queryKey: ['orders'] });
    }
  });
  const chosen = CHOICES.find((choice) => choice.value === payment)!;
  return (
    <Card withBorder component="section" aria-labelledby="complete-title">
      <Stack>
        <Title order={2} size="h4" id="complete-title">
          Complete the draft
        </Title>
        <Radio.Group label="Payment" value={payment} onChange={(value) => (setPayment(value as Choice), setConfirming(false))}>
          <Stack gap={6} mt={4}>
            {CHOICES.map((choice) => (
              <Radio key={choice.value} value={choice.value} label={choice.label} description={choice.description} />
            ))}
          </Stack>
        </Radio.Group>
        {!confirming ? (
          <Button w="fit-content" onClick={() => setConfirming(true)} disabled={draft.lines.length === 0}>
            {payment === 'invoice' ? 'Send invoice' : 'Create order'}
          </Button>
        ) : (
          <Stack gap="xs">
            <Text role="status">
              {chosen.label} for {formatMoney(draft.total, draft.currency)}? The stock of its lines is taken now.
            </Text>
            <Group>
              <Button onClick={() => complete.mutate()} loading={complete.isPending}>
                Yes, {chosen.label.toLowerCase()}
              </Button>
              <Button variant="default" onClick={() => setConfirming(false)}>
                Not yet
              </Button>
            </Group>
          </Stack>
        )}
        <FormError error={complete.error} />
      </Stack>
    </Card>
  );
}
