import { checkoutReservationsReleaseJob, expiredCartsCleanupJob, idempotencyKeysPurgeJob } from '../../jobs/checkout-maintenance.js';
import { deleteExpiredCarts } from '../../services/carts/carts.js';
import { releaseExpiredSessions } from '../../services/checkout/sessions.js';
import { purgeExpiredIdempotencyKeys } from '../../platform/idempotency/idempotency.js';
import { processorOf } from '../processor.js';

export const checkoutReservationsReleaseProcessor = processorOf(checkoutReservationsReleaseJob, (ctx) => releaseExpiredSessions(ctx));

export const expiredCartsCleanupProcessor = processorOf(expiredCartsCleanupJob, (ctx) => deleteExpiredCarts(ctx));

export const idempotencyKeysPurgeProcessor = processorOf(idempotencyKeysPurgeJob, (ctx) => purgeExpiredIdempotencyKeys(ctx));
