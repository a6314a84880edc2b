import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from '../../src/openapi/document';
import { scheduledJobId } from '../../src/domain/schedules/schedule-fires';
import { uuidv7 } from '../../src/ids';

const root = path.resolve(__dirname, '../..');
const version = (uuid: string) => uuid[14];

describe('job ids as the documents describe them', () => {
  it("lets a client compute a schedule fire's job id with the recipe of docs/schedules.md", () => {
    const page = readFileSync(path.join(root, 'docs/schedules.md'), 'utf8');
    const identity = page.slice(page.indexOf('**Identity.**'), page.indexOf('**The job path.**'));
    const recipe = /```bash\n([\s\S]*?)```/.exec(identity.replace(/^ {2}/gm, ''))?.[1];
    expect(recipe).toBeDefined();
    const scheduleId = '0190b7c4-5a1e-7c3d-9f00-1234567890ab';
    const nominal = new Date('2031-07-01T00:00:00.000Z');
    const computed = execFileSync('bash', ['-c', recipe!], { env: { ...process.env, SCHEDULE_ID: scheduleId }, encoding: 'utf8' }).trim();
    expect(computed).toBe(scheduledJobId(scheduleId, nominal));
  });

  it('describes ModelJob.job_id as what it is: a UUIDv7, or a UUIDv8 for schedule fires', () => {
    const schemas = buildOpenApiDocument().components.schemas as Record<string, { properties: Record<string, { description: string }> }>;
    const description = schemas.ModelJob.properties.job_id.description;
    expect(version(uuidv7())).toBe('7');
    expect(version(scheduledJobId('s', new Date(0)))).toBe('8');
    expect(description).toMatch(/UUIDv7/);
    expect(description).toMatch(/UUIDv8[^.]*schedule fire/);
  });
});
