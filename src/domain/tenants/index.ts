export { createClientsService } from './clients.service';
