export { modelJobWorkflow } from './model-job.workflow';
export { pingWorkflow } from './ping.workflow';
