import { createApiClient, type Schemas } from './index.js';

async function main() {
  const api = createApiClient({ baseUrl: process.env.API ?? 'http://localhost:8080', token: process.env.TOKEN! });

  const { data: started, error } = await api.POST('/v2/clients/{client_id}/domains/{domain_id}/service/init', {
    params: { path: { client_id: 'acme', domain_id: 'flights' }, header: { 'Idempotency-Key': 'init-LH-401' } },
    body: { service_id: 'LH-401', departure_datetime: '2031-07-01T11:00:00Z', static_features: { seats: 120 } },
  });
  if (error) throw new Error(error.message); // ErrorResponse: { success: false, message }

  const { data: job } = await api.GET('/v2/jobs/{job_id}', { params: { path: { job_id: started.job_id } } });
  const status: Schemas['ModelJob']['status'] | undefined = job?.status;
  console.log(`job ${started.job_id}: ${status}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
