import { lowStockScanJob } from '../../jobs/low-stock-scan.js';
import { scanLowStock } from '../../services/issues/index.js';
import { processorOf } from '../processor.js';

export const lowStockScanProcessor = processorOf(lowStockScanJob, (ctx) => scanLowStock(ctx));
