import { RequestValidator } from '../../../src/http/request-validator';
import { operation, OPERATIONS } from '../../../src/openapi/operations';
import { querySchemas } from '../../../src/openapi/query-parameters';
import { buildOpenApiDocument } from '../../../src/openapi/document';
import { InvalidInputError } from '../../../src/errors';

const validator = new RequestValidator();
const query = (opId: string, q: Record<string, string | string[]>) => validator.query(operation(opId), q);

/** The 400 a query answers, or a failure naming what came back instead. */
function refusal(opId: string, q: Record<string, string | string[]>): string {
  try {
    return `accepted ${JSON.stringify(query(opId, q))}`;
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidInputError);
    return (err as Error).message;
  }
}

describe('query parameters validated against the operation table', () => {
  it('checks the very schemas the served document shows, page parameters included', () => {
    const document = buildOpenApiDocument();
    const shared = document.components.parameters as Record<string, { name: string; in: string; schema: object }>;
    for (const op of OPERATIONS) {
      const listed = (
        document.paths[op.path] as Record<string, { parameters: ({ $ref: string } | { name: string; in: string; schema: object })[] }>
      )[op.method.toLowerCase()].parameters.map((p) => ('$ref' in p ? shared[p.$ref.split('/').pop()!] : p));
      const inQuery = Object.fromEntries(listed.filter((p) => p.in === 'query').map((p) => [p.name, p.schema]));
      expect([op.id, inQuery]).toEqual([op.id, querySchemas(op)]);
    }
  });

  it('coerces integers and booleans to the types the handlers get', () => {
    expect(query('listClients', { limit: '20', cursor: 'abc', status: 'active' })).toEqual({ limit: 20, cursor: 'abc', status: 'active' });
    expect(query('getJobById', { wait: '0' })).toEqual({ wait: 0 });
    expect(query('listServices', { departed: 'false' })).toEqual({ departed: false });
    expect(query('updateModel', { dry_run: 'true' })).toEqual({ dry_run: true });
  });

  it('ignores parameters the operation does not declare, as before', () => {
    expect(query('listClients', { foo: 'bar', wait: 'x' })).toEqual({});
    expect(query('getJobById', { limit: 'lots' })).toEqual({});
  });

  it('refuses an integer out of range or not written in digits, naming it', () => {
    expect(refusal('listClients', { limit: '0' })).toBe('query parameter limit must be a whole number from 1 to 200');
    expect(refusal('listClients', { limit: '201' })).toBe('query parameter limit must be a whole number from 1 to 200');
    for (const bad of ['61', '-1', '1.5', 'soon', '1e1', ' 5', '0x10', 'Infinity', ''])
      expect([bad, refusal('getJobById', { wait: bad })]).toEqual([bad, 'query parameter wait must be a whole number from 0 to 60']);
  });

  it('refuses a value outside its enum, a bad boolean, a bad length, naming each', () => {
    expect(refusal('listClients', { status: 'gone' })).toBe('query parameter status must be one of active, suspended');
    expect(refusal('listServices', { departed: 'maybe' })).toBe('query parameter departed must be true or false');
    expect(refusal('searchJobs', { model_id: 'x'.repeat(201) })).toBe('query parameter model_id must be 1 to 200 characters long');
    expect(refusal('listClients', { status: 'gone', limit: '0' })).toBe(
      'query parameter status must be one of active, suspended; query parameter limit must be a whole number from 1 to 200',
    );
  });

  it('refuses an assignment_id that is not a UUID on both job lists, the urn: form the uuid column refuses too', () => {
    const id = '01890000-0000-7000-8000-000000000000';
    expect(query('searchJobs', { assignment_id: id })).toEqual({ assignment_id: id });
    for (const opId of ['searchJobs', 'listClientJobs'])
      for (const bad of ['nope', 'SY:%Kq!b', `urn:uuid:${id}`])
        expect([opId, bad, refusal(opId, { assignment_id: bad })]).toEqual([opId, bad, 'query parameter assignment_id must be a UUID']);
  });

  it('refuses a date-time that is not RFC 3339 with an offset', () => {
    for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '2026-12-01', '2026-12-01T10:00:00'])
      expect(refusal('getEffectiveAssignments', { at: bad })).toMatch(/^query parameter at must be an RFC 3339 date-time/);
    expect(query('searchJobs', { created_after: '2026-12-10T00:00:00Z' })).toEqual({ created_after: '2026-12-10T00:00:00Z' });
  });

  it('refuses a repeated parameter, declared or not', () => {
    expect(refusal('listClients', { limit: ['1', '2'] })).toBe('query parameter limit given more than once');
    expect(refusal('getHealth', { x: ['1', '2'] })).toBe('query parameter x given more than once');
  });
});
