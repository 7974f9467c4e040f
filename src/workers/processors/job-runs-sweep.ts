import { jobRunsSweepJob } from '../../jobs/job-runs-sweep.js';
import { sweepLostJobRuns } from '../../services/job-history/index.js';
import { processorOf } from '../processor.js';

export const jobRunsSweepProcessor = processorOf(jobRunsSweepJob, (ctx) => sweepLostJobRuns(ctx));
