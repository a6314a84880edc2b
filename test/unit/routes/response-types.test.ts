import { typeErrors } from '../../helpers/type-errors';

/** A route module whose liveness handler answers `body`. */
const liveness = (body: string) => `
import type { Register } from './types';
export function register(route: Register) {
  route('getLiveness', async () => (${body}));
}
`;

describe("a route handler's answer", () => {
  it("is the document's success body of its operation, checked at compile time", () => {
    const errors = typeErrors('src/routes', {
      'documented.ts': liveness("{ status: 'ok' as const }"),
      'undocumented-value.ts': liveness("{ status: 'sleeping' as const }"),
      'missing-field.ts': liveness('{}'),
      'wrong-type.ts': liveness('{ status: 1 }'),
    });
    expect(errors['documented.ts']).toEqual([]);
    for (const file of ['undocumented-value.ts', 'missing-field.ts', 'wrong-type.ts']) {
      expect(errors[file].join('\n')).toMatch(/is not assignable/);
    }
  });
});
