/*
 * The one composition of the API and the worker. Every process (src/api-process.ts, src/worker-process.ts,
 * src/dev/runner.ts) and the test harness open their resources (or call openResources), then assemble the API and
 * the worker here; each keeps only what is its own (reading the environment, signals, test-only hooks). Each shared
 * object of a process (the schema compiler, the secret box, the admission, the running-job slots) is built once,
 * in ./job-core.ts, and passed down.
 */
export { openResources, temporalClientInterceptors, type Resources } from './resources';
export { composeApi, type ApiOptions, type ApiParts } from './api';
export { composeWorker, type WorkerCompositionOptions, type WorkerParts } from './worker';
export { slotReleaserFor } from './slot-releaser';
export { createApp, type AppDeps } from './app';
