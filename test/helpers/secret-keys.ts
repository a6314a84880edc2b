/** The SECRET_KEYS of the test apps and the processes tests spawn: one key, so a spawned worker opens what a harness sealed. */
export const TEST_SECRET_KEYS = `test-1=${Buffer.alloc(32, 7).toString('base64')}`;
