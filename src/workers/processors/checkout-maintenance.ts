import { checkoutReservationsReleaseJob, expiredCartsCleanupJob, idempotencyKeysPurgeJob } from '../../jobs/checkout-maintenance.js';
import { deleteExpiredCarts, releaseExpiredSessions } from '../../services/checkout/index.js';
import { purgeExpiredIdempotencyKeys } from '../../platform/idempotency/idempotency.js';
import { processorOf } from '../processor.js';

export const checkoutReservationsReleaseProcessor = processorOf(checkoutReservationsReleaseJob, (ctx) => releaseExpiredSessions(ctx));

export const expiredCartsCleanupProcessor = processorOf(expiredCartsCleanupJob, (ctx) => deleteExpiredCarts(ctx));

export const idempotencyKeysPurgeProcessor = processorOf(idempotencyKeysPurgeJob, (ctx) => purgeExpiredIdempotencyKeys(ctx));
