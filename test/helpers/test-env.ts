/** Values global-setup hands to test files through the environment. */
export const testEnv = {
  get databaseUrl(): string {
    return required('MOS_TEST_DATABASE_URL');
  },
  /** The suite's Temporal; the db tier starts none (jest.config.js), so a file there that asks for it fails here. */
  get temporalAddress(): string {
    return required('MOS_TEST_TEMPORAL_ADDRESS', NO_TEMPORAL);
  },
  /** Whether this run started (or was given) a Temporal server: not in the db tier. */
  get hasTemporal(): boolean {
    return Boolean(process.env.MOS_TEST_TEMPORAL_ADDRESS);
  },
  /** The service's TEMPORAL_TLS_* settings for the suite's Temporal (TEST_TEMPORAL=cluster requires mTLS); none otherwise. */
  get temporalTlsEnv(): Record<string, string> {
    return JSON.parse(process.env.MOS_TEST_TEMPORAL_TLS || '{}') as Record<string, string>;
  },
  /** Every frontend of the suite's Temporal: the cluster's several, or the one address. */
  get temporalFrontends(): string[] {
    return JSON.parse(process.env.MOS_TEST_TEMPORAL_FRONTENDS || '[]') as string[];
  },
  get workflowBundlePath(): string {
    return required('MOS_TEST_WORKFLOW_BUNDLE', NO_TEMPORAL);
  },
};

const NO_TEMPORAL =
  'the db tier starts no Temporal: a file that needs one belongs in test/temporal/ (jest.config.js, docs/architecture.md "Tests, in tiers")';

function required(name: string, orElse = 'run the tests through jest, whose global setup provides it'): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: ${orElse}`);
  return value;
}
