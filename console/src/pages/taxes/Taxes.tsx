import { Button, Group, Stack, Table, Title } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ListState } from '../../components/ListState';
import { nextCursorOf, Pager, useCursor } from '../../components/Pager';
import { percentOf, TaxRegionForm } from './TaxRegionForm';
import { TaxReport } from './TaxReport';
import { TaxSettings } from './TaxSettings';

type TaxRegion = components['schemas']['TaxRegion'];

/** Taxes: how tax is charged, the tax regions (create, edit, delete confirmed) and the tax report. */
export function Taxes() {
  const pager = useCursor();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<TaxRegion | null>(null);
  const [formKey, setFormKey] = useState(0);
  const regions = useQuery({
    queryKey: ['tax-regions', pager.cursor],
    placeholderData: keepPreviousData,
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/tax-regions', { params: { query: { limit: 50, ...(pager.cursor ? { cursor: pager.cursor } : {}) } } }))
  });
  const remove = useMutation({
    mutationFn: async (region: TaxRegion) => {
      const result = await api.DELETE('/api/v1/admin/tax-regions/{regionId}', { params: { path: { regionId: region.id } } });
      if (!result.response.ok) unwrap(result as never);
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['tax-regions'] })
  });
  const done = () => (setEditing(null), setFormKey((k) => k + 1));
  const list = regions.data?.data.taxRegions;
  return (
    <Stack>
      <Title order={1}>Taxes</Title>
      <TaxSettings />
      <TaxRegionForm key={editing?.id ?? `new-${formKey}`} editing={editing} onDone={done} />
      <Title order={2} size="h4">
        Tax regions
      </Title>
      <div className="table-scroll">
        <Table striped aria-label="Tax regions">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Where</Table.Th>
              <Table.Th>Tax</Table.Th>
              <Table.Th>Rate</Table.Th>
              <Table.Th>Class rates</Table.Th>
              <Table.Th>On shipping</Table.Th>
              <Table.Th>
                <span className="visually-hidden">Actions</span>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list?.map((r) => (
              <Table.Tr key={r.id} data-testid="tax-region-row">
                <Table.Td>{r.region ? `${r.country}, ${r.region}` : r.country}</Table.Td>
                <Table.Td>{r.name}</Table.Td>
                <Table.Td>{percentOf(r.rate)}%</Table.Td>
                <Table.Td>
                  {Object.entries(r.classRates)
                    .map(([name, bp]) => `${name} ${percentOf(bp)}%`)
                    .join(', ') || '—'}
                </Table.Td>
                <Table.Td>{r.taxShipping ? 'Yes' : 'No'}</Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap" align="flex-start">
                    <Button size="xs" variant="default" onClick={() => (setEditing(r), window.scrollTo({ top: 0 }))} aria-label={`Edit ${r.name}`}>
                      Edit
                    </Button>
                    <ConfirmButton
                      size="xs"
                      label="Delete"
                      ariaLabel={`Delete ${r.name}`}
                      question={`Delete ${r.name}? Orders placed keep their tax.`}
                      confirm="Yes, delete the region"
                      onConfirm={() => remove.mutate(r)}
                      pending={remove.isPending && remove.variables?.id === r.id}
                      error={remove.variables?.id === r.id ? remove.error : null}
                    />
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </div>
      <ListState query={regions} count={list?.length} empty="No tax regions: orders are charged no tax. Add one above." label="tax regions" />
      <Pager pager={pager} nextCursor={nextCursorOf(regions.data?.meta)} />
      <TaxReport />
    </Stack>
  );
}
