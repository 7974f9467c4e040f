/**
 * What processing one Stripe event did, recorded on its `stripe_events` row: `processed` (applied,
 * or already so), or `ignored` with the reason it changed nothing.
 */
export type EventOutcome = { ignored: false; outcome: string } | { ignored: true; reason: string };

export const applied = (outcome: string): EventOutcome => ({ ignored: false, outcome });
export const ignored = (reason: string): EventOutcome => ({ ignored: true, reason });
