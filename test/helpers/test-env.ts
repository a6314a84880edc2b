/** Values global-setup hands to test files through the environment. */
export const testEnv = {
  get databaseUrl(): string {
    return required('MOS_TEST_DATABASE_URL');
  },
  get temporalAddress(): string {
    return required('MOS_TEST_TEMPORAL_ADDRESS');
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
    return required('MOS_TEST_WORKFLOW_BUNDLE');
  },
};

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through jest, whose global setup provides it`);
  return value;
}
