import { readdirSync } from 'node:fs';
import path from 'node:path';
import { chartDir, KUBE_VERSION, render, requiredSettings, run, settingsTheServiceReads, tool, yamlDocuments } from './deploy-tools';

const examples = readdirSync(path.join(chartDir, 'examples'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => path.join(chartDir, 'examples', f));

/** The environment variables each container of the rendered objects gets: its `env`, and the ConfigMaps of `envFrom`. */
function containerEnvs(objects: any[]): Map<string, string[]> {
  const configMaps = new Map(objects.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata.name, Object.keys(o.data)]));
  const envs = new Map<string, string[]>();
  for (const o of objects.filter((x) => x.kind === 'Deployment' || x.kind === 'Job')) {
    for (const c of o.spec.template.spec.containers) {
      const names = (c.env ?? []).map((e: any) => e.name as string);
      for (const from of c.envFrom ?? [])
        names.push(...(configMaps.get(from.configMapRef.name) ?? []).filter((k) => /^[A-Z][A-Z0-9_]*$/.test(k)));
      envs.set(`${o.kind}/${o.metadata.name}/${c.name}`, names);
    }
  }
  return envs;
}

describe('the Helm chart', () => {
  it('passes helm lint --strict with each example values file', () => {
    for (const values of examples) {
      const r = run(tool('helm'), ['lint', '--strict', chartDir, '-f', values, '--kube-version', KUBE_VERSION]);
      expect({ values, status: r.status, out: r.status === 0 ? '' : r.stdout + r.stderr }).toEqual({ values, status: 0, out: '' });
    }
  });

  it.each(examples.map((f) => [path.basename(f), f]))(
    'renders %s into objects that decode strictly into their API types',
    (_name, values) => {
      const r = run(tool('deploy-check'), [], render([values]));
      expect(r.stdout).not.toMatch(/^FAIL/m);
      expect(r.status).toBe(0);
    },
  );

  it("has a checker that fails a misspelt field, in a Kubernetes type and in KEDA's", () => {
    const rendered = render([path.join(chartDir, 'examples', 'temporal-cloud.yaml')]);
    for (const [right, wrong] of [
      ['imagePullPolicy:', 'imagePulPolicy:'],
      ['cooldownPeriod:', 'coolDownPeriod:'],
    ]) {
      const r = run(tool('deploy-check'), [], rendered.replace(right, wrong));
      expect(r.status).toBe(1);
      expect(r.stdout).toMatch(new RegExp(`^FAIL .*unknown field "[^"]*${wrong.slice(0, -1)}"`, 'm'));
    }
  });

  it('scales the workers with KEDA on the task queue when asked, with an HPA otherwise', () => {
    const kinds = (values: string) =>
      yamlDocuments(render([path.join(chartDir, 'examples', values)])).map((o) => `${o.kind}/${o.metadata.name}`);
    expect(kinds('temporal-cloud.yaml')).toEqual(
      expect.arrayContaining(['ScaledObject/mos-model-orchestration-worker', 'TriggerAuthentication/mos-model-orchestration-temporal']),
    );
    expect(kinds('temporal-cloud.yaml')).not.toContain('HorizontalPodAutoscaler/mos-model-orchestration-worker');
    const withHpa = yamlDocuments(render([path.join(chartDir, 'examples', 'evaluation.yaml')], ['worker.autoscaling.enabled=true']));
    expect(withHpa.map((o) => `${o.kind}/${o.metadata.name}`)).toContain('HorizontalPodAutoscaler/mos-model-orchestration-worker');
    const scaled = yamlDocuments(render([path.join(chartDir, 'examples', 'temporal-cloud.yaml')])).find((o) => o.kind === 'ScaledObject');
    expect(scaled.spec.triggers[0]).toMatchObject({ type: 'temporal', metadata: { taskQueue: 'model-jobs', namespace: 'mos-prod.a1b2c' } });
  });

  it('gives the pods the grace their drain and shutdown need, as the restricted Pod Security Standard asks', () => {
    const objects = yamlDocuments(render([path.join(chartDir, 'examples', 'temporal-cloud.yaml')]));
    const deployment = (name: string) => objects.find((o) => o.kind === 'Deployment' && o.metadata.name.endsWith(name)).spec.template.spec;
    const envOf = (spec: any) =>
      Object.fromEntries(spec.containers[0].env.filter((e: any) => 'value' in e).map((e: any) => [e.name, Number(e.value)]));
    const api = deployment('-api');
    const apiEnv = envOf(api);
    expect(api.terminationGracePeriodSeconds).toBeGreaterThan(apiEnv.SHUTDOWN_DELAY_SECONDS + apiEnv.SHUTDOWN_TIMEOUT_SECONDS);
    const worker = deployment('-worker');
    expect(worker.terminationGracePeriodSeconds).toBeGreaterThan(envOf(worker).WORKER_SHUTDOWN_GRACE_SECONDS);
    for (const o of objects.filter((x) => x.kind === 'Deployment' || x.kind === 'Job')) {
      const spec = o.spec.template.spec;
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      for (const c of spec.containers)
        expect(c.securityContext).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
    }
  });

  it('refuses a wrong value, naming its path', () => {
    const template = (set: string) =>
      run(tool('helm'), ['template', 'mos', chartDir, '--kube-version', KUBE_VERSION, '-f', examples[0], '--set', set]);
    const wrongType = template('worker.autoscaling.keda.targetQueueSize=many');
    expect(wrongType.status).not.toBe(0);
    expect(wrongType.stderr).toMatch(/worker[./]autoscaling[./]keda[./]targetQueueSize/);
    const misspelt = template('api.replica=3');
    expect(misspelt.status).not.toBe(0);
    expect(misspelt.stderr).toMatch(/replica/);
  });

  it('sets only settings the service reads, and every setting it requires, in each container', () => {
    const reads = settingsTheServiceReads();
    const required = requiredSettings();
    expect(required).toEqual(expect.arrayContaining(['DATABASE_URL', 'SECRET_KEYS']));
    for (const values of examples) {
      for (const [container, names] of containerEnvs(yamlDocuments(render([values])))) {
        expect({ container, unknown: names.filter((n) => !reads.has(n)) }).toEqual({
          container,
          unknown: [],
        });
        // The migration needs only the database, its keys and the Temporal namespace.
        const needed = container.endsWith('/migrate') ? ['DATABASE_URL', 'SECRET_KEYS', 'TEMPORAL_ADDRESS'] : required;
        expect({ container, missing: needed.filter((n) => !names.includes(n)) }).toEqual({ container, missing: [] });
      }
    }
  });
});
