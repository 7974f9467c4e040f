import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';

/** The store's shipping rates as choices (every zone's), for drafts and order edits: `rateId` → "Zone: Rate". */
export function useShippingRates() {
  return useQuery({
    queryKey: ['shipping-zones'],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/shipping-zones')).data.zones,
    select: (zones) => zones.flatMap((zone) => zone.rates.map((rate) => ({ value: rate.id, label: `${zone.name}: ${rate.name}` })))
  });
}
