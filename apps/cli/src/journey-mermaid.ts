import type { JourneyMapEdge, JourneyMapNode } from '@waymark/journey';

/**
 * A journey's map as a Mermaid flowchart (`waymark journeys map`, docs/journeys.md, "Journey map"),
 * for a README or a pull request, where GitHub and most docs sites draw it. Node ids are `n0`, `n1`,
 * … because the map's own ids carry spaces, colons and question marks; every label is quoted, with
 * its quotes written as Mermaid's `#quot;`.
 */

const quoted = (text: string) => `"${text.replaceAll('"', '#quot;')}"`;

/** The shape says the kind: a stadium where a run starts or stops, a parallelogram where it waits, a rhombus where it branches. */
function shape(node: JourneyMapNode): string {
  const label = quoted(node.label);
  switch (node.kind) {
    case 'trigger':
    case 'end':
    case 'exit':
    case 'goal':
      return `([${label}])`;
    case 'sleep':
    case 'wait':
      return `[/${label}/]`;
    case 'branch':
      return `{${label}}`;
    case 'email':
    case 'step':
      return `[${label}]`;
  }
}

export function journeyMermaid(title: string, nodes: readonly JourneyMapNode[], edges: readonly JourneyMapEdge[]): string {
  const ids = new Map(nodes.map((node, index) => [node.id, `n${index}`]));
  const lines = [`%% ${title}, drawn from its code by waymark journeys map`, 'flowchart TD'];
  for (const node of nodes) lines.push(`  ${ids.get(node.id)}${shape(node)}`);
  for (const edge of edges) {
    const arrow = edge.anyTime ? '-.->' : '-->';
    lines.push(`  ${ids.get(edge.from)} ${arrow}${edge.label === null ? '' : `|${quoted(edge.label)}|`} ${ids.get(edge.to)}`);
  }
  return `${lines.join('\n')}\n`;
}
