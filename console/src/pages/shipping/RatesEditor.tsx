import { Button, Card, Group, NativeSelect, Stack, TextInput } from '@mantine/core';
import { fieldError } from '../../api/errors';
import { emptyRate, RATE_TYPES, type RateDraft, type RateType } from './rate-draft';

/**
 * A zone's rates: name, kind, and the price, or the bands of a weight or subtotal rate ("up to"
 * empty on the last band: no upper limit), free over an amount, a delivery estimate. Each field is
 * labelled with its rate's number so an API error on `rates[1].bands[0].price` reads as the field.
 */
export function RatesEditor({ rates, onChange, error }: { rates: RateDraft[]; onChange: (rates: RateDraft[]) => void; error: unknown }) {
  const update = (i: number, patch: Partial<RateDraft>) => onChange(rates.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <Stack gap="sm">
      {rates.map((rate, i) => {
        const n = i + 1;
        const at = (field: string) => fieldError(error, `rates.${i}.${field}`);
        const banded = rate.type === 'weight' || rate.type === 'subtotal';
        return (
          <Card withBorder key={rate.id ?? `new-${i}`} data-testid="rate" role="group" aria-label={`Rate ${n}`}>
            <Stack gap="xs">
              <Group align="flex-start">
                <TextInput label={`Rate ${n} name`} required value={rate.name} onChange={(e) => update(i, { name: e.currentTarget.value })} error={at('name')} />
                <NativeSelect label={`Rate ${n} kind`} value={rate.type} data={RATE_TYPES} onChange={(e) => update(i, { type: e.currentTarget.value as RateType })} />
                {!banded && (
                  <TextInput label={`Rate ${n} price`} inputMode="decimal" required={rate.type === 'flat'} value={rate.price} onChange={(e) => update(i, { price: e.currentTarget.value })} error={at('price')} w={130} />
                )}
                <TextInput label={`Rate ${n} free over`} inputMode="decimal" value={rate.freeOver} onChange={(e) => update(i, { freeOver: e.currentTarget.value })} error={at('freeOver')} w={130} />
                <TextInput label={`Rate ${n} delivery estimate`} placeholder="3 to 5 days" value={rate.estimate} onChange={(e) => update(i, { estimate: e.currentTarget.value })} error={at('estimate.text')} />
              </Group>
              {banded &&
                rate.bands.map((band, b) => (
                  <Group key={b} align="flex-start" data-testid="band">
                    <TextInput
                      label={`Rate ${n} band ${b + 1} up to ${rate.type === 'weight' ? '(grams)' : '(subtotal)'}`}
                      description={b === rate.bands.length - 1 ? 'empty: no upper limit' : undefined}
                      inputMode="decimal"
                      value={band.upTo}
                      onChange={(e) => update(i, { bands: rate.bands.map((x, k) => (k === b ? { ...x, upTo: e.currentTarget.value } : x)) })}
                      error={fieldError(error, `rates.${i}.bands.${b}.upTo`)}
                    />
                    <TextInput
                      label={`Rate ${n} band ${b + 1} price`}
                      inputMode="decimal"
                      required
                      value={band.price}
                      onChange={(e) => update(i, { bands: rate.bands.map((x, k) => (k === b ? { ...x, price: e.currentTarget.value } : x)) })}
                      error={fieldError(error, `rates.${i}.bands.${b}.price`)}
                      w={130}
                    />
                    {rate.bands.length > 1 && (
                      <Button variant="subtle" color="red" mt={24} onClick={() => update(i, { bands: rate.bands.filter((_, k) => k !== b) })} aria-label={`Remove rate ${n} band ${b + 1}`}>
                        Remove band
                      </Button>
                    )}
                  </Group>
                ))}
              <Group>
                {banded && (
                  <Button size="xs" variant="default" onClick={() => update(i, { bands: [...rate.bands, { upTo: '', price: '' }] })}>
                    Add band to rate {n}
                  </Button>
                )}
                <Button size="xs" variant="subtle" color="red" onClick={() => onChange(rates.filter((_, j) => j !== i))} aria-label={`Remove rate ${n}`}>
                  Remove rate
                </Button>
              </Group>
            </Stack>
          </Card>
        );
      })}
      <Button variant="default" w="fit-content" onClick={() => onChange([...rates, emptyRate()])}>
        Add rate
      </Button>
    </Stack>
  );
}
