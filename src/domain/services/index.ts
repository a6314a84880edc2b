export { createServicesService } from './services.service';
export type { ServiceRow, ServiceStatus } from './service.view';
