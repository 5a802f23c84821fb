// @vitest-environment happy-dom
import mermaid from 'mermaid';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from './program';

/**
 * `waymark journeys map` prints Mermaid that Mermaid itself parses: `mermaid.parse` and the
 * flowchart's own database (its vertices and edges), in happy-dom, since Mermaid needs a DOM even
 * to parse; @mermaid-js/parser, which needs none, does not parse flowcharts.
 */
async function mapOf(id: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void (err += args.join(' ')));
  const code = await runCli(['journeys', 'map', id]);
  vi.restoreAllMocks();
  return { code, out, err };
}

afterEach(() => {
  vi.restoreAllMocks();
});

interface Vertex {
  text: string;
  type: string;
}
interface FlowEdge {
  start: string;
  end: string;
  text: string;
  stroke: string;
}

async function parsed(text: string): Promise<{ vertices: Map<string, Vertex>; edges: FlowEdge[] }> {
  expect(await mermaid.parse(text)).toMatchObject({ diagramType: 'flowchart-v2' });
  const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
  const db = diagram.db as unknown as { getVertices(): Map<string, Vertex>; getEdges(): FlowEdge[] };
  return { vertices: db.getVertices(), edges: db.getEdges() };
}

describe('waymark journeys map', () => {
  it.each(['welcome-series', 'trial-conversion', 're-engagement', 'trial-ending', 'payment-recovery'])('%s prints a flowchart Mermaid parses', async (id) => {
    const { code, out } = await mapOf(id);
    expect(code).toBe(0);
    expect(out).toMatch(/^%% .*\nflowchart TD\n/);
    const { vertices, edges } = await parsed(out);
    expect(vertices.size).toBeGreaterThan(2);
    expect(edges.length).toBeGreaterThanOrEqual(vertices.size - 1);
  });

  it('draws re-engagement as its code runs: the wait with both outcomes, the quoted exit rule, the exit at any time', async () => {
    const { vertices, edges } = await parsed((await mapOf('re-engagement')).out);
    const text = (id: string) => vertices.get(id)?.text;
    const byText = (label: string) => [...vertices.entries()].find(([, vertex]) => vertex.text === label)?.[0];
    const wait = byText('Wait up to 7 days for session.started')!;
    expect(vertices.get(wait)?.type).toBe('lean_right');
    expect(edges.filter((edge) => edge.start === wait).map((edge) => [edge.text, text(edge.end)])).toEqual([
      ['got session.started', 'Send reengage-welcome-back'],
      ['after 7 days', 'Step last-call'],
    ]);
    const [exit, exitVertex] = [...vertices.entries()].find(([, vertex]) => vertex.text.startsWith('Exit on '))!;
    // the rule's quotes are Mermaid's #quot; entity, which its parser holds in its own escape (ﬂ°…¶ß) until it draws a quote
    expect(exitVertex).toMatchObject({
      type: 'stadium',
      text: 'Exit on user.deleted, or subscription.cancelled where reason eq ﬂ°quot¶ßaccount_closedﬂ°quot¶ß',
    });
    expect(edges.find((edge) => edge.end === exit)).toMatchObject({
      start: byText('Trigger: user.inactive where daysInactive gte 14'),
      stroke: 'dotted',
      text: 'any time',
    });
  });

  it('refuses an unknown journey with the known ones (exit 2)', async () => {
    const { code, err } = await mapOf('no-such-journey');
    expect(code).toBe(2);
    expect(err).toContain("no journey 'no-such-journey' (known: ");
  });
});
