import { NativeSelect } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router-dom';
import { session } from '../api/session';

interface Membership {
  storeId: string;
  storeName: string;
  role: string;
}

/** Picks the store every admin call is made for (x-store-id). */
export function StoreSwitcher({ memberships, current }: { memberships: Membership[]; current: string | null }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return (
    <NativeSelect
      aria-label="Store"
      value={current ?? ''}
      data={memberships.map((m) => ({ value: m.storeId, label: `${m.storeName} (${m.role})` }))}
      onChange={(event) => {
        session.chooseStore(event.currentTarget.value);
        queryClient.clear();
        navigate('/');
      }}
    />
  );
}
