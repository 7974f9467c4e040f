/** An API state as an operator reads it: `PARTIALLY_REFUNDED` or `partially_refunded` → "Partially refunded". */
export function human(value: string | null | undefined): string {
  if (!value) return '—';
  const text = value.replace(/[_.]+/g, ' ').toLowerCase();
  return text.charAt(0).toUpperCase() + text.slice(1);
}
