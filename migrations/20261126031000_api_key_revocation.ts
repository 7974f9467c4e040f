import type { Knex } from 'knex';

/**
 * Why a key was revoked (issue #31): `revoked` when a person revoked it, `member_removed` when its
 * creator left the store (a key never outlives its creator's membership). Keys whose creator had
 * already been removed before this migration are revoked now, as they would have been. An index
 * finds a member's keys when their membership changes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE api_keys ADD COLUMN revoked_reason text;
    UPDATE api_keys SET revoked_reason = 'revoked' WHERE revoked_at IS NOT NULL;
    UPDATE api_keys k SET revoked_at = now(), revoked_reason = 'member_removed', updated_at = now()
     WHERE k.revoked_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.store_id = k.store_id AND m.user_id = k.created_by);
    ALTER TABLE api_keys
      ADD CONSTRAINT api_keys_revoked_reason_check CHECK (revoked_reason IN ('revoked', 'member_removed')),
      ADD CONSTRAINT api_keys_revoked_reason_set CHECK ((revoked_at IS NULL) = (revoked_reason IS NULL));
    CREATE INDEX api_keys_creator_idx ON api_keys (store_id, created_by);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX IF EXISTS api_keys_creator_idx;
    ALTER TABLE api_keys DROP COLUMN IF EXISTS revoked_reason;
  `);
}
