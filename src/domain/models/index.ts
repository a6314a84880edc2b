export { createAliasesService } from './aliases.service';
export { reportedArtifacts } from './artifacts';
export { type AssignmentCompatibility, type Compatibility, createCompatibility } from './compatibility';
export { createModelsService } from './models.service';
export { createRetirementService } from './retirement.service';
export { createSubscriptionsService } from './subscriptions.service';
export { createModelSearch, parseMetadataFilter, parseTagFilter } from './model-search.service';
export { createModelTagsService } from './model-tags.service';
