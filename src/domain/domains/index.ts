export { createDomainsService } from './domains.service';
