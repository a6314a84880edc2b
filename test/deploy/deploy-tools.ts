import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, requireProductionSettings } from '../../src/config';
import type { Env } from '../../src/env-values';

export const root = path.resolve(__dirname, '../..');
export const chartDir = path.join(root, 'deploy/helm/model-orchestration');

/** The tools `npm run setup:deploy-tools` puts in .tools/bin (built from the Go module proxy, cached per machine). */
export function tool(name: 'helm' | 'deploy-check'): string {
  const bin = path.join(root, '.tools/bin', name);
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run npm run setup:deploy-tools`);
  return bin;
}

export function run(cmd: string, args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { input, encoding: 'utf8', cwd: root, maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** YAML documents as objects, read by the checker's YAML → JSON (merge keys resolved). */
export function yamlDocuments(text: string): any[] {
  const r = run(tool('deploy-check'), ['json'], text);
  if (r.status !== 0) throw new Error(`deploy-check json failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/**
 * The Kubernetes version `helm template` renders for: a helm built by `go install` has no version stamped in and
 * would say v1.20, below the chart's kubeVersion.
 */
export const KUBE_VERSION = '1.31.0';

/** `helm template` of the chart with these values files and `--set`s; throws with helm's message on failure. */
export function render(valuesFiles: string[], sets: string[] = []): string {
  const args = ['template', 'mos', chartDir, '--namespace', 'mos', '--kube-version', KUBE_VERSION];
  for (const f of valuesFiles) args.push('-f', f);
  for (const s of sets) args.push('--set', s);
  const r = run(tool('helm'), args);
  if (r.status !== 0) throw new Error(`helm template failed: ${r.stderr}`);
  return r.stdout;
}

/** Every variable loadConfig reads, recorded as it asks (the README table's test reads them the same way). */
export function settingsTheServiceReads(): Set<string> {
  const read = new Set<string>();
  loadConfig(
    new Proxy<Env>(
      {},
      {
        get: (_t, name) => {
          if (typeof name === 'string') read.add(name);
          return undefined;
        },
      },
    ),
  );
  return read;
}

/** The settings the API and the worker refuse to start without, as requireProductionSettings names them. */
export function requiredSettings(): string[] {
  try {
    requireProductionSettings(loadConfig({}));
  } catch (err) {
    return (err as Error).message.replace(/^missing required settings: /, '').split(', ');
  }
  throw new Error('an empty environment passed requireProductionSettings');
}
