/** Minor units in the store's currency, e.g. 1999 USD -> $19.99. */
export function formatMoney(amount: number | null | undefined, currency = 'USD') {
  if (amount === null || amount === undefined) return '—';
  return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount / 100);
}
