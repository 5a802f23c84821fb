/**
 * Where the journey map's nodes go (docs/journeys.md, "Journey map"): top to bottom, each node one
 * row below the lowest node that leads to it, so every step of the run points down; the exit (and
 * the goal), which can happen at any time, sit beside the first step. Pure, so it is unit-tested.
 */

export interface LayoutNode {
  id: string;
}
export interface LayoutEdge {
  from: string;
  to: string;
  anyTime: boolean;
}

export const NODE_WIDTH = 260;
export const NODE_HEIGHT = 52;
const COLUMN_GAP = 40;
const ROW_GAP = 56;
const MARGIN = 16;

export interface Placed {
  x: number;
  y: number;
}

export interface MapLayout {
  width: number;
  height: number;
  at: Map<string, Placed>;
}

export function layoutMap(nodes: readonly LayoutNode[], edges: readonly LayoutEdge[]): MapLayout {
  const rank = new Map<string, number>(nodes.map((node, index) => [node.id, index === 0 ? 0 : -1]));
  const flow = edges.filter((edge) => !edge.anyTime);
  // longest path from the trigger; the bound stops a loop from relaxing for ever
  for (let pass = 0; pass < nodes.length; pass++) {
    let changed = false;
    for (const edge of flow) {
      const from = rank.get(edge.from) ?? -1;
      if (from >= 0 && (rank.get(edge.to) ?? -1) < from + 1) {
        rank.set(edge.to, from + 1);
        changed = true;
      }
    }
    if (!changed) break;
  }
  for (const edge of edges) if (edge.anyTime) rank.set(edge.to, 1);
  const rows: string[][] = [];
  for (const node of nodes) {
    const row = Math.max(0, rank.get(node.id) ?? 0);
    (rows[row] ??= []).push(node.id);
  }
  // exits and goals last in their row, at the right
  const anyTime = new Set(edges.filter((edge) => edge.anyTime).map((edge) => edge.to));
  for (const row of rows) if (row !== undefined) row.sort((a, b) => Number(anyTime.has(a)) - Number(anyTime.has(b)));
  const widest = Math.max(1, ...rows.map((row) => row?.length ?? 0));
  const width = MARGIN * 2 + widest * NODE_WIDTH + (widest - 1) * COLUMN_GAP;
  const at = new Map<string, Placed>();
  rows.forEach((row, index) => {
    if (row === undefined) return;
    const rowWidth = row.length * NODE_WIDTH + (row.length - 1) * COLUMN_GAP;
    const left = (width - rowWidth) / 2;
    row.forEach((id, column) => at.set(id, { x: left + column * (NODE_WIDTH + COLUMN_GAP), y: MARGIN + index * (NODE_HEIGHT + ROW_GAP) }));
  });
  return { width, height: MARGIN * 2 + rows.length * NODE_HEIGHT + Math.max(0, rows.length - 1) * ROW_GAP, at };
}
