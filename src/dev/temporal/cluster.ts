import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ensurePrivateDir } from '../../paths';
import { dynamicConfigYaml, type DynamicValue } from './server-tuning';
import { spawnLogged, stopChild } from './child-process';
import { binary, ensureNamespace, lowFreePort, prepareDatabase, serverConfig } from './server';

/**
 * The production-shaped server split into its services, as a multi-host cluster runs it: 2 frontend, 2 history and
 * 2 matching processes and the worker service, each on a loopback address of its own (127.x.y.2 to .8, one /24 picked
 * at random so two clusters on one machine do not meet), with membership between them through Postgres, SQL
 * visibility, and the same dynamic configuration (fairness on) as the single process.
 */
export interface TemporalCluster {
  /** The frontends' addresses; a client may take any. */
  frontends: string[];
  nodes: ClusterNode[];
  databases: { main: string; visibility: string };
  /** SIGKILLs one node (a host lost); resolves once it is gone. */
  kill(node: ClusterNode): Promise<void>;
  stop(): Promise<void>;
}

export interface ClusterNode {
  service: 'frontend' | 'history' | 'matching' | 'worker';
  ip: string;
  pid?: number;
}

export interface TemporalClusterOptions {
  postgresUrl: string;
  databasePrefix?: string;
  workDir: string;
  namespace?: string;
  dynamicConfig?: Record<string, DynamicValue>;
  historyShards?: number;
  /** Most Postgres connections of each process to its main and visibility databases (7 processes). Default 4 and 2. */
  postgresConnections?: { main: number; visibility: number };
  onOutput?: (line: string) => void;
}

const LAYOUT: ClusterNode['service'][] = ['frontend', 'frontend', 'history', 'history', 'matching', 'matching', 'worker'];

export async function startTemporalCluster(options: TemporalClusterOptions): Promise<TemporalCluster> {
  const pg = new URL(options.postgresUrl);
  const main = options.databasePrefix ?? 'temporal_cluster';
  const visibility = `${main}_visibility`;
  const namespace = options.namespace ?? 'default';
  await prepareDatabase(pg, main, 'postgresql/v12/temporal');
  await prepareDatabase(pg, visibility, 'postgresql/v12/visibility');

  // One set of ports for every node: each binds its own address.
  const ports: Record<string, number> = {};
  for (const name of ['frontendGrpc', 'frontendHttp', 'frontendMembership', 'historyGrpc', 'historyMembership'])
    ports[name] = await lowFreePort();
  for (const name of ['matchingGrpc', 'matchingMembership', 'workerGrpc', 'workerMembership']) ports[name] = await lowFreePort();
  const subnet = `127.${1 + Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
  const nodes: ClusterNode[] = LAYOUT.map((service, i) => ({ service, ip: `${subnet}.${i + 2}` }));
  const frontends = nodes.filter((n) => n.service === 'frontend').map((n) => `${n.ip}:${ports.frontendGrpc}`);

  ensurePrivateDir(options.workDir);
  const dynamicConfig = path.join(options.workDir, 'dynamic-config.yaml');
  writeFileSync(dynamicConfig, dynamicConfigYaml(options.dynamicConfig));
  const spawnNode = (node: ClusterNode, i: number) => {
    const dir = path.join(options.workDir, `${node.service}-${i}`);
    ensurePrivateDir(path.join(dir, 'config'));
    writeFileSync(
      path.join(dir, 'config', 'production.yaml'),
      serverConfig({
        pg,
        main,
        visibility,
        shards: options.historyShards ?? 4,
        connections: options.postgresConnections ?? { main: 4, visibility: 2 },
        ports,
        dynamicConfig,
        ip: node.ip,
        frontendAddress: frontends[0],
      }),
    );
    const spawned = spawnLogged(
      binary('temporal-server'),
      ['--root', dir, '--config', 'config', '--env', 'production', '--allow-no-auth', 'start', '--service', node.service],
      options.onOutput,
    );
    node.pid = spawned.child.pid;
    return { node, ...spawned };
  };
  // The first process writes the cluster's metadata to a fresh database; several at once race on it and fail.
  const children = [spawnNode(nodes[0], 0)];
  const killAll = () => children.forEach((c) => c.child.kill('SIGKILL'));
  process.once('exit', killAll);
  const stop = async () => {
    process.removeListener('exit', killAll);
    for (const c of [...children].reverse()) await stopChild(c.child, c.exited, 15000);
  };
  try {
    await untilListening(frontends[0], children[0].child, 60000);
    children.push(...nodes.slice(1).map((node, i) => spawnNode(node, i + 1)));
    for (const address of frontends) await ensureNamespace({ address }, namespace, children[0].child, 120000);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    frontends,
    nodes,
    databases: { main, visibility },
    async kill(node) {
      const c = children.find((x) => x.node === node);
      if (!c || c.child.exitCode !== null || c.child.signalCode !== null) return;
      c.child.kill('SIGKILL');
      await c.exited;
    },
    stop,
  };
}

async function untilListening(address: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const [host, port] = address.split(':');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`temporal-server (frontend) exited with code ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(port), host, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`the first frontend did not listen on ${address} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 300));
  }
}
