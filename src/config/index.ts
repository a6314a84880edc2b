/**
 * The service's settings, read once from the environment at start-up (src/config/settings.schema.ts says each
 * variable's type, bounds and default). A leaf: every layer imports it, so it imports none of them.
 */
export { loadConfig, requireProductionSettings, DEV_ISSUER, DEV_PLATFORM_CLIENT } from './load-config';
export { parseAllowedOrigins, parseMachineClients } from './list-settings';
export { ConfigError } from '../env-values';
export type {
  AccessClass,
  AuthConfig,
  Config,
  FairQueuingSettings,
  HttpLimits,
  JobTokenKey,
  LimitDefaults,
  MachineClientConfig,
} from './config.types';
