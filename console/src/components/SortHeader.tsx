import { Table, UnstyledButton } from '@mantine/core';

/**
 * A column header that sorts the list by the API's `?sort=` (`field` ascending, `-field` descending):
 * a button inside the header cell, with aria-sort on the cell saying the current order.
 */
export function SortHeader({ label, field, sort, onSort }: { label: string; field: string; sort: string; onSort: (sort: string) => void }) {
  const active = sort === field || sort === `-${field}`;
  const descending = sort === `-${field}`;
  return (
    <Table.Th aria-sort={active ? (descending ? 'descending' : 'ascending') : 'none'}>
      <UnstyledButton fw={700} fz="sm" onClick={() => onSort(active && !descending ? `-${field}` : field)}>
        {label} {active ? (descending ? '↓' : '↑') : ''}
      </UnstyledButton>
    </Table.Th>
  );
}

/** "Sorted by name, A to Z": the order a list is in, said in words. */
export function sortLabel(sort: string, names: Record<string, string>): string {
  const field = sort.replace(/^-/, '');
  return `Sorted by ${names[field] ?? field}, ${sort.startsWith('-') ? 'descending' : 'ascending'}`;
}
