import { createSecretBox } from '../../src/secrets/secret-box';
import { parseSecretKeys } from '../../src/secrets/secret-keys';

/** The SECRET_KEYS of the test apps and the processes tests spawn: one key, so a spawned worker opens what a harness sealed. */
export const TEST_SECRET_KEYS = `test-1=${Buffer.alloc(32, 7).toString('base64')}`;

/** The box of TEST_SECRET_KEYS, for tests that build services or activities themselves. */
export const testSecretBox = createSecretBox(parseSecretKeys(TEST_SECRET_KEYS));
