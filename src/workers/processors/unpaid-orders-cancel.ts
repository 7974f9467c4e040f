import { unpaidOrdersCancelJob } from '../../jobs/unpaid-orders-cancel.js';
import { cancelOverdueManualOrders } from '../../services/orders/index.js';
import { processorOf } from '../processor.js';

export const unpaidOrdersCancelProcessor = processorOf(unpaidOrdersCancelJob, (ctx, _job, signal) => cancelOverdueManualOrders(ctx, signal));
