export { createServicesService } from './services.service';
