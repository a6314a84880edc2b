export { type HealthService, createHealthService } from './health.service';
