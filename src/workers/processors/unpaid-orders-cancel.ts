import { unpaidOrdersCancelJob } from '../../jobs/unpaid-orders-cancel.js';
import { cancelOverdueManualOrders } from '../../use-cases/cancel-unpaid-orders.js';
import { processorOf } from '../processor.js';

export const unpaidOrdersCancelProcessor = processorOf(unpaidOrdersCancelJob, (ctx, _job, signal) => cancelOverdueManualOrders(ctx, signal));
