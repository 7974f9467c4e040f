import { Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ListState } from '../../components/ListState';
import { formatMoney } from '../../components/Money';
import { ZoneForm } from './ZoneForm';

type Zone = components['schemas']['ShippingZone'];
type Rate = components['schemas']['ShippingRate'];

/** A rate in a few words: "Ground: by weight from $5.00, free over $50.00". */
function describeRate(rate: Rate): string {
  const price =
    rate.type === 'flat'
      ? formatMoney(rate.price)
      : rate.type === 'pickup'
        ? `pickup, ${rate.price ? formatMoney(rate.price) : 'free'}`
        : `by ${rate.type === 'weight' ? 'weight' : 'subtotal'} from ${formatMoney(Math.min(...(rate.bands ?? []).map((b) => b.price)))}`;
  return `${rate.name}: ${price}${rate.freeOver !== null ? `, free over ${formatMoney(rate.freeOver)}` : ''}`;
}

/**
 * Shipping zones (where the store ships) and their rates, in the order shoppers see them: create,
 * edit, delete (confirmed). The store has at most 100 zones, so the list has no pages.
 */
export function ShippingZones() {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Zone | null>(null);
  const [formKey, setFormKey] = useState(0);
  const zones = useQuery({ queryKey: ['shipping-zones'], queryFn: async () => unwrap(await api.GET('/api/v1/admin/shipping-zones')).data.zones });
  const remove = useMutation({
    mutationFn: async (zone: Zone) => unwrap(await api.DELETE('/api/v1/admin/shipping-zones/{zoneId}', { params: { path: { zoneId: zone.id } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['shipping-zones'] })
  });
  const done = () => (setEditing(null), setFormKey((k) => k + 1));
  return (
    <Stack>
      <Title order={1}>Shipping</Title>
      <ZoneForm key={editing?.id ?? `new-${formKey}`} editing={editing} onDone={done} />
      <Title order={2} size="h4">
        Zones, in the order shoppers see them
      </Title>
      <div className="table-scroll">
        <Table striped aria-label="Shipping zones">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Zone</Table.Th>
              <Table.Th>Ships to</Table.Th>
              <Table.Th>Rates</Table.Th>
              <Table.Th>
                <span className="visually-hidden">Actions</span>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {zones.data?.map((zone) => (
              <Table.Tr key={zone.id} data-testid="zone-row">
                <Table.Td>{zone.name}</Table.Td>
                <Table.Td>
                  {zone.countries.length ? zone.countries.join(', ') : 'Everywhere'}
                  {zone.regions.length ? ` (${zone.regions.join(', ')})` : ''}
                  {zone.postcodes.length ? <Text size="xs">Postcodes {zone.postcodes.join(', ')}</Text> : null}
                </Table.Td>
                <Table.Td>
                  {zone.rates.length === 0 ? 'No rates' : zone.rates.map((rate) => <Text size="sm" key={rate.id}>{describeRate(rate)}</Text>)}
                </Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap" align="flex-start">
                    <Button size="xs" variant="default" onClick={() => (setEditing(zone), window.scrollTo({ top: 0 }))} aria-label={`Edit ${zone.name}`}>
                      Edit
                    </Button>
                    <ConfirmButton
                      size="xs"
                      label="Delete"
                      ariaLabel={`Delete ${zone.name}`}
                      question={`Delete ${zone.name} and its rates?`}
                      confirm="Yes, delete the zone"
                      onConfirm={() => remove.mutate(zone)}
                      pending={remove.isPending && remove.variables?.id === zone.id}
                      error={remove.variables?.id === zone.id ? remove.error : null}
                    />
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </div>
      <ListState query={zones} count={zones.data?.length} empty="No shipping zones: checkout offers no shipping. Create one above." label="shipping zones" />
    </Stack>
  );
}
