import { Graph as LayoutGraph, layout, type EdgeLabel, type GraphLabel, type NodeLabel } from '@dagrejs/dagre';
import { Link } from 'wouter';

export interface GraphNode {
  id: string;
  label: string;
  /** Where the node links to (a console path). */
  href?: string;
  tone?: 'good' | 'bad' | 'neutral' | 'current';
}

export interface GraphEdge {
  from: string;
  to: string;
  label?: string;
}

const MIN_WIDTH = 190;
const HEIGHT = 44;
// About the widest glyph advance of the 12px label font: a box sized by it holds its whole label.
const CHAR_WIDTH = 7.5;

/** A node's box fits its whole label: a shortened label would not be the link's name (axe: label-content-name-mismatch). */
const widthOf = (label: string) => Math.max(MIN_WIDTH, Math.ceil(label.length * CHAR_WIDTH) + 16);

/** A directed graph laid out by dagre (left to right) and drawn as SVG; nodes are links. Loaded with the pages that draw one. */
export function Graph({ nodes, edges, title }: { nodes: GraphNode[]; edges: GraphEdge[]; title: string }) {
  const g = new LayoutGraph<GraphLabel, NodeLabel, EdgeLabel>();
  g.setGraph({ rankdir: 'LR', nodesep: 16, ranksep: 48, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: widthOf(n.label), height: HEIGHT });
  for (const e of edges) g.setEdge(e.from, e.to);
  layout(g);
  const { width = MIN_WIDTH, height = HEIGHT } = g.graph();
  return (
    // A figure named by its caption, not an svg role="img": an image's content is presentational, and the nodes are links.
    <figure className="graph">
      <figcaption>{title}</figcaption>
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`}>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto">
            <path d="M0,0 L10,5 L0,10 z" className="edge-head" />
          </marker>
        </defs>
        {g.edges().map((e) => {
          const points = g.edge(e).points ?? [];
          const d = points.map((p, i) => `${i ? 'L' : 'M'}${p.x},${p.y}`).join(' ');
          return <path key={`${e.v}->${e.w}`} d={d} className="edge" markerEnd="url(#arrow)" />;
        })}
        {nodes.map((n) => {
          const { x = 0, y = 0 } = g.node(n.id);
          const width = widthOf(n.label);
          const box = (
            <g transform={`translate(${x - width / 2},${y - HEIGHT / 2})`} className={`node node-${n.tone ?? 'neutral'}`}>
              <rect width={width} height={HEIGHT} rx={6} />
              <text x={8} y={HEIGHT / 2 + 4}>
                {n.label}
              </text>
            </g>
          );
          // The link's name is its visible text, the whole label.
          return n.href ? (
            <Link key={n.id} href={n.href}>
              {box}
            </Link>
          ) : (
            <g key={n.id}>{box}</g>
          );
        })}
      </svg>
    </figure>
  );
}
