/**
 * The rows of issue #38's table, as this run measured them: each bench that has a row records it
 * where it prints its own figures, and `npm run bench` prints them together at the end, each with
 * its goal and the bare hapi route of the bench that measured it.
 */
export interface GoalRow {
  row: string;
  figure: string;
  goal: string;
  met: boolean;
  /** The bare hapi route of the same bench, req/s (none where the bench has none: setup). */
  bare: number | null;
}

const rows: GoalRow[] = [];

export function recordGoal(row: GoalRow): void {
  rows.push(row);
}

export function printGoals(): void {
  if (!rows.length) return;
  console.log('\n# issue #38, this run: each row beside its goal and the bare hapi route of the bench that measured it');
  for (const row of rows) {
    console.log(`${row.met ? 'met   ' : 'MISSED'}  ${row.row.padEnd(62)} ${row.figure} (goal ${row.goal}${row.bare ? `; bare route ${row.bare} req/s` : ''})`);
  }
}
