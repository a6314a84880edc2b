export { type ChangeContext, type ChangePreview, UNATTRIBUTED, emptyPreview, inChangeTransaction, shows } from './dry-run';
export { FeatureDefinition, FeatureRules, type FeatureValues, formatFeatureProblems } from './features';
export { type FeatureMismatch, featureContractMismatches, freezeAsSchema, freezeIncompatibilities } from './freeze';
export { UserSchemaCompiler, canonicalJson } from './json-schemas';
export { LIMIT_BOUNDS, type LimitDefaults, type LimitsOverride, type TenantLimits, effectiveLimits, tenantClass } from './limits';
export {
  assertClientActive,
  requireAssignableVersion,
  requireClient,
  requireDomain,
  requireDomainOfActiveClient,
  requireModel,
  requireService,
  requireVersion,
} from './lookups';
export { type SchemaChange, diffSchemas, isBreaking } from './schema-diff';
export { TRAINABLE_STATUSES, VERSION_TRANSITIONS, assignRefusal, canMoveVersion, runRefusal } from './version-status';
export { toAssignment, toClient, toDomain, toJob, toLineage, toModel, toService, toSubscription, toVersion } from './views';
