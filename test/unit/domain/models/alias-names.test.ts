import { aliasNameProblem } from '../../../../src/domain/models/aliases.service';

describe('alias names', () => {
  it.each(['champion', 'challenger-2', 'prod_eu', 'a', 'a'.repeat(63)])('accepts %s', (name) =>
    expect(aliasNameProblem(name)).toBeUndefined(),
  );

  it.each(['Champion', '2', '2nd', '-x', '_x', 'champ.ion', 'champ ion', 'a'.repeat(64), '', '@champion'])(
    'refuses %j, naming it',
    (name) => expect(aliasNameProblem(name)).toContain(`alias ${JSON.stringify(name)}`),
  );
});
