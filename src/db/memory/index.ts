/**
 * In-memory implementations of the domain's store ports, beside their Postgres ones in src/db/: the unit tests run
 * the rules on these (nothing started), the integration tests on Postgres.
 */
export { MemoryJobStore, MemorySubscriptionStore } from './job-stores';
export { MemoryOutboxStore } from './outbox-store';
export { MemoryClientStore } from './client-store';
