import { useQuery } from '@tanstack/react-query';
import { api } from './client';
import { unwrap } from './errors';
import { session } from './session';

export type Role = 'owner' | 'admin' | 'staff';

/** The signed-in operator and their stores (GET /auth/me); the chosen store defaults to the first. */
export function useMe() {
  return useQuery({
    queryKey: ['me'],
    queryFn: async () => {
      const me = unwrap(await api.GET('/api/v1/auth/me')).data;
      const chosen = me.memberships.find((m) => m.storeId === session.storeId()) ?? me.memberships[0];
      if (chosen) session.chooseStore(chosen.storeId);
      return { ...me, store: chosen ?? null, role: (chosen?.role ?? 'staff') as Role };
    },
    enabled: Boolean(session.token())
  });
}
