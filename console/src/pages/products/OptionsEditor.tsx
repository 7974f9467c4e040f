import { Button, Group, Stack, TextInput } from '@mantine/core';
import type { OptionDraft } from './product-draft';

/** Up to three options (e.g. Size: S, M, L); "Make variants" turns them into one variant per combination. */
export function OptionsEditor({ options, onChange, onGenerate }: { options: OptionDraft[]; onChange: (options: OptionDraft[]) => void; onGenerate: () => void }) {
  const set = (index: number, patch: Partial<OptionDraft>) => onChange(options.map((option, i) => (i === index ? { ...option, ...patch } : option)));
  return (
    <Stack gap="xs">
      {options.map((option, index) => (
        <Group key={index} align="flex-end">
          <TextInput label={`Option ${index + 1} name`} placeholder="Size" value={option.name} onChange={(e) => set(index, { name: e.currentTarget.value })} />
          <TextInput label={`Option ${index + 1} values`} description="Separated by commas" placeholder="S, M, L" value={option.values} onChange={(e) => set(index, { values: e.currentTarget.value })} />
          <Button variant="subtle" color="red" onClick={() => onChange(options.filter((_, i) => i !== index))}>
            Remove option {index + 1}
          </Button>
        </Group>
      ))}
      <Group>
        <Button variant="default" disabled={options.length >= 3} onClick={() => onChange([...options, { name: '', values: '' }])}>
          Add option
        </Button>
        <Button variant="default" disabled={!options.length} onClick={onGenerate}>
          Make variants from options
        </Button>
      </Group>
    </Stack>
  );
}
