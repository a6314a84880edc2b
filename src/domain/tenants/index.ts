export { createClientsService } from './clients.service';
export type { ClientRow } from './client.view';
