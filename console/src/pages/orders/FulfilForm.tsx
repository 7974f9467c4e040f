import { Button, Card, Checkbox, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { FormError } from '../../components/FormError';

/** Fulfils everything not yet fulfilled, with the carrier's tracking details. */
export function FulfilForm({ orderId }: { orderId: string }) {
  const [tracking, setTracking] = useState({ trackingCompany: '', trackingNumber: '', trackingUrl: '' });
  const [notifyCustomer, setNotify] = useState(true);
  const queryClient = useQueryClient();
  const fulfil = useMutation({
    mutationFn: async () => {
      const body = {
        trackingCompany: tracking.trackingCompany || null,
        trackingNumber: tracking.trackingNumber || null,
        trackingUrl: tracking.trackingUrl || null,
        notifyCustomer
      };
      return unwrap(await api.POST('/api/v1/admin/orders/{orderId}/fulfillments', { params: { path: { orderId } }, body })).data;
    },
    onSuccess: (data) => {
      queryClient.setQueryData(['order', orderId], data.order);
      void queryClient.invalidateQueries({ queryKey: ['timeline', orderId] });
    }
  });
  const set = (field: keyof typeof tracking) => (e: { currentTarget: { value: string } }) => {
    const value = e.currentTarget.value;
    setTracking((old) => ({ ...old, [field]: value }));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    fulfil.mutate();
  };
  return (
    <Card withBorder component="section" aria-labelledby="fulfil-title">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="fulfil-title">
            Fulfil
          </Title>
          <TextInput label="Carrier" value={tracking.trackingCompany} onChange={set('trackingCompany')} error={fieldError(fulfil.error, 'trackingCompany')} />
          <TextInput label="Tracking number" value={tracking.trackingNumber} onChange={set('trackingNumber')} error={fieldError(fulfil.error, 'trackingNumber')} />
          <TextInput label="Tracking URL" type="url" value={tracking.trackingUrl} onChange={set('trackingUrl')} error={fieldError(fulfil.error, 'trackingUrl')} />
          <Checkbox label="Email the customer" checked={notifyCustomer} onChange={(e) => setNotify(e.currentTarget.checked)} />
          <FormError error={fulfil.error} fields={['trackingCompany', 'trackingNumber', 'trackingUrl']} />
          <Button type="submit" loading={fulfil.isPending}>
            Fulfil items
          </Button>
        </Stack>
      </form>
    </Card>
  );
}
