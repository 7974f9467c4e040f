/** A raw pg connection (the import's COPY connection, inside its own transaction). */
interface RawConnection {
  query(text: string, values: unknown[]): Promise<{ rowCount: number | null }>;
}

/**
 * One partition's checkpoint of a partitioned job (the customers import), written in the caller's
 * transaction on its own connection: the partition's entry under `checkpoint.partitions[partition]`
 * and the job's progress, which sums every partition's counts from the row as it stands (the other
 * partition may have committed meanwhile), in one statement. It applies only if the partition's
 * `rowsDone` is still `rowsDoneBefore`: returns 1 then, 0 when another worker moved it on.
 */
export async function savePartitionCheckpoint(
  connection: RawConnection,
  save: { jobId: string; partition: number; checkpoint: { rowsDone: number }; percent: number; rowsDoneBefore: number; empty: unknown }
): Promise<{ rowCount: number | null }> {
  const merged = `jsonb_set(coalesce(checkpoint, $5::jsonb), array['partitions', $6::text], $2::jsonb)`;
  const summed = (field: string) => `(select coalesce(sum((e->'counts'->>'${field}')::int), 0) from jsonb_array_elements(${merged}->'partitions') e)`;
  return connection.query(
    `update jobs set checkpoint = ${merged},
         progress = jsonb_build_object('percent', $3::int, 'processedRows', ${summed('totalRows')}, 'invalidRows', ${summed('invalidRows')}),
         updated_at = now()
       where id = $1 and coalesce((checkpoint #>> array['partitions', $6::text, 'rowsDone'])::int, 0) = $4::int`,
    [save.jobId, JSON.stringify(save.checkpoint), save.percent, save.rowsDoneBefore, JSON.stringify(save.empty), String(save.partition)]
  );
}
