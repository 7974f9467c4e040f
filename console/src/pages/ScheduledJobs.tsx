import { Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { unwrap } from '../api/errors';
import { human } from '../components/labels';
import { ListState } from '../components/ListState';

const UNITS = [
  { ms: 24 * 3_600_000, name: 'day' },
  { ms: 3_600_000, name: 'hour' },
  { ms: 60_000, name: 'minute' },
  { ms: 1_000, name: 'second' }
] as const;

/** An interval in words: 60 000 → "Every minute", 900 000 → "Every 15 minutes". */
export function everyInWords(ms: number): string {
  const unit = UNITS.find((u) => ms % u.ms === 0) ?? { ms: 1, name: 'millisecond' };
  const count = ms / unit.ms;
  return count === 1 ? `Every ${unit.name}` : `Every ${count} ${unit.name}s`;
}

/** A cron pattern in words where it is a plain daily one ("0 3 * * *" → "Daily at 03:00 UTC"), else the pattern itself. */
export function patternInWords(pattern: string): string {
  const daily = /^(\d{1,2}) (\d{1,2}) \* \* \*$/.exec(pattern.trim());
  if (daily) return `Daily at ${daily[2]!.padStart(2, '0')}:${daily[1]!.padStart(2, '0')} UTC`;
  return `Cron ${pattern} (UTC)`;
}

/** The platform's scheduled kinds (the same for every store), their interval and next run; re-read every 30 s. */
export function ScheduledJobs() {
  const scheduled = useQuery({
    queryKey: ['jobs', 'scheduled'],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/jobs/scheduled')).data.scheduledJobs,
    refetchInterval: 30_000
  });
  return (
    <Stack gap="xs">
      <Title order={2} size="h3">
        Scheduled
      </Title>
      <Text size="sm">Maintenance the platform runs on its own, for every store. The next run is unknown until a worker has registered the schedule.</Text>
      <div className="table-scroll">
        <Table striped aria-label="Scheduled jobs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Kind</Table.Th>
              <Table.Th>Runs</Table.Th>
              <Table.Th>Next run</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {scheduled.data?.map((job) => (
              <Table.Tr key={job.name}>
                <Table.Td>{human(job.name.replace(/-/g, ' '))}</Table.Td>
                <Table.Td>{job.every ? everyInWords(job.every) : job.pattern ? patternInWords(job.pattern) : '—'}</Table.Td>
                <Table.Td>{job.nextRunAt ? new Date(job.nextRunAt).toLocaleString() : 'Not known yet'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </div>
      <ListState query={scheduled} count={scheduled.data?.length} empty="No scheduled jobs." label="scheduled jobs" />
    </Stack>
  );
}
