import { median } from '../http-load';
import { CPU_PARTS, type CpuSnapshot } from '../cpu';

export const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 0) : '-');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Each round's figures by name (`service.inits`, `bare.read.job`, ...), printed as medians and per-round lists. */
export function createFigures() {
  const figures: Record<string, number[]> = {};
  const note = (name: string, value: number) => (figures[name] ??= []).push(value);
  return {
    note,
    noteCpu: (side: string, per: CpuSnapshot) => {
      for (const k of CPU_PARTS) note(`${side}.cpu.${k}`, per[k]);
    },
    /** The median of the rounds, NaN when not measured. */
    m: (k: string) => (figures[k] ? median(figures[k]) : NaN),
    /** Each round's figure, slash-separated. */
    all: (k: string, f = fmt) => (figures[k] ? figures[k].map(f).join(' / ') : '-'),
  };
}
export type Figures = ReturnType<typeof createFigures>;
