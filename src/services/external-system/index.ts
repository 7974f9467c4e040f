/**
 * The face of module external-system: links to the external system, its upserts and nightly sync.
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { runBackfill } from './backfill.js';
export { BACKFILL_JOB_TYPE, LINK_STATUSES, connectLink, disconnectLink, getLink, previewLink, requestSync, type LinkRequest } from './links.js';
export { externalSystemModule } from './module.js';
export { queueNightlySyncs } from './nightly.js';
export { receiveExternalTrigger } from './triggers.js';
