import { Anchor, Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { FormError } from '../../components/FormError';

/** Starts the tax report job (tax collected and refunded per jurisdiction and month); its page follows it and downloads the CSV. */
export function TaxReport() {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const start = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/reports/tax', { body: { ...(from ? { from } : {}), ...(to ? { to } : {}) } })).data.job
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    start.mutate();
  };
  return (
    <Card withBorder component="section" aria-labelledby="tax-report-title">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="tax-report-title">
            Tax report
          </Title>
          <Text size="sm">Tax collected and refunded per jurisdiction, rate and month, as a CSV file.</Text>
          <Group align="flex-start">
            <TextInput label="From month (optional)" placeholder="2026-01" value={from} onChange={(e) => setFrom(e.currentTarget.value)} error={fieldError(start.error, 'from')} />
            <TextInput label="To month (optional)" placeholder="2026-12" value={to} onChange={(e) => setTo(e.currentTarget.value)} error={fieldError(start.error, 'to')} />
          </Group>
          <FormError error={start.error} fields={['from', 'to']} />
          <Group>
            <Button type="submit" loading={start.isPending}>
              Build tax report
            </Button>
            {start.data && (
              <Text role="status">
                Report started:{' '}
                <Anchor component={Link} to={`/jobs/${start.data.id}`}>
                  follow it and download it on its job page
                </Anchor>
              </Text>
            )}
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
