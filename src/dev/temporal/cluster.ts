import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ensurePrivateDir } from '../../paths';
import { dynamicConfigYaml, type DynamicValue } from './server-tuning';
import { stopChild } from './child-process';
import { adminEndpoint, ensureNamespace, lowFreePort, prepareDatabases, SERVER_PORTS, serverProcess, type ServerTls } from './server';

/**
 * The production-shaped server split into its services, as a multi-host cluster runs it: 2 frontend, 2 history and
 * 2 matching processes and the worker service, each on a loopback address of its own (7 consecutive addresses from
 * `firstAddress`), with membership between them through Postgres, SQL visibility, and the same dynamic
 * configuration (fairness on) as the single process.
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
  /** Most Postgres connections of each process to its main and visibility databases (7 processes). Default 3 and 1. */
  postgresConnections?: { main: number; visibility: number };
  /**
   * The first of the 7 consecutive loopback addresses the nodes bind (frontends first, then history, matching and
   * the worker service); 127.a.b.2 in a /24 picked at random when omitted, so two clusters on one machine do not meet.
   */
  firstAddress?: string;
  /** The first of the 9 consecutive ports every node uses on its own address (below 32768); free ones when omitted. */
  basePort?: number;
  /** TLS on the frontends and between the nodes (src/dev/temporal/server.ts, `ServerTls`); plaintext when omitted. */
  tls?: ServerTls;
  onOutput?: (line: string) => void;
}

const LAYOUT: ClusterNode['service'][] = ['frontend', 'frontend', 'history', 'history', 'matching', 'matching', 'worker'];

/**
 * The loopback addresses of a cluster's nodes, in LAYOUT's order: 7 consecutive ones from `first`, or from 127.a.b.2
 * in a /24 picked at random (for certificates that must name them before the cluster starts).
 */
export function clusterAddresses(first = `127.${1 + Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}.2`): string[] {
  return consecutiveAddresses(first, LAYOUT.length);
}

/** `count` consecutive IPv4 addresses from `first`, within its /24. */
function consecutiveAddresses(first: string, count: number): string[] {
  const parts = first.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255) || parts[0] !== 127)
    throw new Error(`the cluster's first address must be a loopback IPv4 address (127.x.y.z), got "${first}"`);
  if (parts[3] + count - 1 > 254) throw new Error(`the cluster needs ${count} addresses from ${first}, past the end of its /24`);
  return Array.from({ length: count }, (_, i) => `${parts[0]}.${parts[1]}.${parts[2]}.${parts[3] + i}`);
}

export async function startTemporalCluster(options: TemporalClusterOptions): Promise<TemporalCluster> {
  const pg = new URL(options.postgresUrl);
  const namespace = options.namespace ?? 'default';
  const databases = await prepareDatabases(pg, options.databasePrefix ?? 'temporal_cluster');

  // One set of ports for every node: each binds its own address.
  const ports: Record<string, number> = {};
  for (const [i, name] of SERVER_PORTS.entries()) ports[name] = options.basePort ? options.basePort + i : await lowFreePort();
  if (Math.max(...Object.values(ports)) > 32767)
    throw new Error('the cluster’s ports must be below 32768 (membership ports are smallints)');
  const nodes: ClusterNode[] = clusterAddresses(options.firstAddress).map((ip, i) => ({ service: LAYOUT[i], ip }));
  const frontends = nodes.filter((n) => n.service === 'frontend').map((n) => `${n.ip}:${ports.frontendGrpc}`);

  ensurePrivateDir(options.workDir);
  const dynamicConfig = path.join(options.workDir, 'dynamic-config.yaml');
  writeFileSync(dynamicConfig, dynamicConfigYaml(options.dynamicConfig));
  const spawnNode = (node: ClusterNode, i: number) => {
    const start = serverProcess(
      path.join(options.workDir, `${node.service}-${i}`),
      {
        pg,
        ...databases,
        shards: options.historyShards ?? 4,
        connections: options.postgresConnections ?? { main: 3, visibility: 1 },
        ports,
        dynamicConfig,
        tls: options.tls,
        ip: node.ip,
        frontendAddress: frontends[0],
      },
      { service: node.service, onOutput: options.onOutput },
    );
    const spawned = start();
    node.pid = spawned.child.pid;
    return { node, ...spawned };
  };
  // The first process writes the cluster's metadata to a fresh database; several at once race on it and fail.
  const children = [spawnNode(nodes[0], 0)];
  const killAll = () => children.forEach((c) => c.child.kill('SIGKILL'));
  process.once('exit', killAll);
  const stop = async () => {
    process.removeListener('exit', killAll);
    await Promise.all(children.map((c) => stopChild(c.child, c.exited, 15000)));
  };
  try {
    await untilListening(frontends[0], children[0].child, 60000);
    children.push(...nodes.slice(1).map((node, i) => spawnNode(node, i + 1)));
    for (const [i, address] of frontends.entries()) {
      const frontend = children.find((c) => c.node.service === 'frontend' && address.startsWith(`${c.node.ip}:`))!;
      await ensureNamespace(adminEndpoint(address, options.tls), namespace, frontend, 120000).catch((err: Error) => {
        throw new Error(`frontend ${i + 1} of the cluster: ${err.message}`);
      });
    }
    for (const c of children)
      if (c.child.exitCode !== null)
        throw new Error(`the cluster's ${c.node.service} at ${c.node.ip} exited with code ${c.child.exitCode}`);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    frontends,
    nodes,
    databases,
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
