export { modelJobWorkflow } from './model-job.workflow';
export { pingWorkflow } from './ping.workflow';
export { webhookDeliveryWorkflow } from './webhook-delivery.workflow';
export { scheduledJobWorkflow } from './scheduled-job.workflow';
