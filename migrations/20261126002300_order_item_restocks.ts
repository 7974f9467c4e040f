import type { Knex } from 'knex';

/**
 * `order_items.restocked_quantity` (issue #31): how many units of the line were already put back
 * on the shelf, by whichever path (a cancel with restock, a refund with restock, a received return
 * with restock, the unpaid-order schedule). Every restock is capped at `quantity` less this, under
 * the order's lock, so the same unit never goes back twice (cancel then refund took stock 7 → 10 → 13).
 *
 * Filled from what already happened, each source capped by the line's quantity:
 * - a cancel whose timeline event says `restocked` put every unit back;
 * - a succeeded refund put back its lines marked `restock`;
 * - a received (or closed) return with `restocked` put back its received lines.
 * The CHECK is the last guard: a bug that tried to put back more than was sold fails the
 * transaction instead of adding stock.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE order_items ADD COLUMN restocked_quantity integer NOT NULL DEFAULT 0;

    WITH put_back AS (
      SELECT i.store_id, i.id, i.quantity AS units
        FROM order_items i
        JOIN order_events e ON e.store_id = i.store_id AND e.order_id = i.order_id
       WHERE e.type = 'cancelled' AND (e.data->>'restocked')::boolean IS TRUE
      UNION ALL
      SELECT r.store_id, (line->>'orderItemId')::uuid, (line->>'quantity')::integer
        FROM order_refunds r, jsonb_array_elements(r.items) AS line
       WHERE r.status = 'succeeded' AND (line->>'restock')::boolean IS TRUE
      UNION ALL
      SELECT r.store_id, (line->>'orderItemId')::uuid, (line->>'quantity')::integer
        FROM order_returns r, jsonb_array_elements(coalesce(r.received_items, '[]'::jsonb)) AS line
       WHERE r.status IN ('received', 'closed') AND r.restocked
    ), per_line AS (
      SELECT store_id, id, sum(units) AS units FROM put_back GROUP BY store_id, id
    )
    UPDATE order_items i SET restocked_quantity = least(i.quantity, p.units)
      FROM per_line p
     WHERE i.store_id = p.store_id AND i.id = p.id;

    ALTER TABLE order_items ADD CONSTRAINT order_items_restocked_quantity_check CHECK (restocked_quantity BETWEEN 0 AND quantity);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE order_items DROP COLUMN IF EXISTS restocked_quantity');
}
