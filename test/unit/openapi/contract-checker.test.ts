import { ContractChecker } from '../../helpers/contract';
import { buildOpenApiDocument } from '../../../src/openapi/document';

const client = {
  client_id: 'acme',
  client_uuid: '0197a000-0000-7000-8000-000000000001',
  name: 'Acme',
  status: 'active',
  limits: { jobs_per_second: 50, burst: 200, max_running_jobs: null, fairness_weight: 1 },
  limits_override: null,
  created_at: '2025-06-02T09:00:00.000Z',
  updated_at: '2025-06-02T09:00:00.000Z',
};
const read = (body: unknown, status = 200) => ({ method: 'GET', path: '/v2/clients/acme', status, body, headers: {} });

describe('the contract check of integration-test responses', () => {
  const checker = new ContractChecker(buildOpenApiDocument());

  it('accepts a response the document describes', () => {
    expect(checker.check(read(client))).toEqual([]);
  });

  it('flags a body that contradicts the document, a status it does not declare, and a 401 without its challenge', () => {
    expect(checker.check(read({ ...client, status: 'paused' }))).toEqual([
      expect.stringContaining('body/status must be equal to one of the allowed values'),
    ]);
    expect(checker.check(read(client, 201))).toEqual([expect.stringContaining('status not declared')]);
    expect(checker.check(read({ success: false, message: 'no' }, 401))).toEqual([
      expect.stringContaining('missing required header WWW-Authenticate'),
    ]);
  });

  it('fails responses when the document is wrong, so a wrong response schema fails the tests', () => {
    const wrong: any = buildOpenApiDocument();
    wrong.components.schemas.Client.properties.name = { type: 'integer' };
    expect(new ContractChecker(wrong).check(read(client))).toEqual([expect.stringContaining('body/name must be integer')]);
  });

  it('holds answers outside the operations to the generic error shape', () => {
    expect(
      checker.check({
        method: 'PATCH',
        path: '/v2/clients/acme',
        status: 405,
        body: { success: false, message: 'x' },
        headers: { allow: 'GET, PUT' },
      }),
    ).toEqual([]);
    expect(checker.check({ method: 'GET', path: '/v2/nowhere', status: 200, body: {}, headers: {} })).toEqual([
      expect.stringContaining('no operation'),
    ]);
  });
});
