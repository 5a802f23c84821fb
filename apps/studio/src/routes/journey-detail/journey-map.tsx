import { useState } from 'react';
import type { components } from '../../api/schema';
import { ErrorPanel, Skeleton } from '../../components/feedback';
import { formatNumber } from '../../components/format';
import { useJourneyMapQuery } from '../../data/journeys/journey-map-query';
import { layoutMap, NODE_HEIGHT, NODE_WIDTH, type Placed } from './map-layout';
import { Cell, ColumnHeaders, TableRegion } from '../../components/table-region';

type JourneyDetailBody = components['schemas']['JourneyDetail'];
type MapNode = components['schemas']['JourneyMapNode'];

/** The version literal of runs started before versions were recorded (the map route's query). */
export const UNVERSIONED = 'unversioned';

/** The versions the journey's numbers can be read for: this deployment's first, then those with runs. */
export function journeyVersions(detail: JourneyDetailBody): string[] {
  return [
    ...(detail.version === null ? [] : [detail.version]),
    ...detail.runningVersions.map((entry) => entry.version ?? UNVERSIONED).filter((entry) => entry !== detail.version),
  ];
}

const kindNames: Record<MapNode['kind'], string> = {
  trigger: 'Trigger',
  email: 'Email',
  sleep: 'Sleep',
  wait: 'Wait',
  branch: 'Branch',
  step: 'Step',
  exit: 'Exit',
  goal: 'Goal',
  end: 'End',
};

/** "3 waiting · 120 sent · 40 opened · 9 clicked": the numbers a node has, for its accessible name and its second line. */
function numbersOf(node: MapNode): string {
  const parts: string[] = [];
  if (node.waiting !== null) parts.push(`${formatNumber(node.waiting)} waiting`);
  if (node.sent !== null) parts.push(`${formatNumber(node.sent)} sent`);
  if (node.humanOpened !== null) parts.push(`${formatNumber(node.humanOpened)} opened`);
  if (node.humanClicked !== null) parts.push(`${formatNumber(node.humanClicked)} clicked`);
  if (node.converted !== null) parts.push(`${formatNumber(node.converted)} converted`);
  return parts.join(' · ');
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const rowId = (index: number) => `journey-map-row-${index}`;

/** The outline of a node: pills for where a run starts and stops, a hexagon for a branch, a box for a step. */
function Shape({ node }: { node: MapNode }) {
  const stroke = node.kind === 'email' ? 'var(--accent)' : node.kind === 'exit' ? 'var(--danger)' : node.kind === 'goal' ? 'var(--ok)' : 'var(--muted)';
  if (node.kind === 'branch') {
    const h = NODE_HEIGHT;
    const w = NODE_WIDTH;
    return <polygon points={`0,${h / 2} 14,0 ${w - 14},0 ${w},${h / 2} ${w - 14},${h} 14,${h}`} fill="var(--surface)" stroke={stroke} strokeWidth={1.5} />;
  }
  const pill = node.kind === 'trigger' || node.kind === 'end' || node.kind === 'exit' || node.kind === 'goal';
  return (
    <rect
      width={NODE_WIDTH}
      height={NODE_HEIGHT}
      rx={pill ? NODE_HEIGHT / 2 : 6}
      fill="var(--surface)"
      stroke={stroke}
      strokeWidth={1.5}
      strokeDasharray={node.kind === 'sleep' || node.kind === 'wait' ? '5 3' : undefined}
    />
  );
}

function Edge({ from, to, label, anyTime }: { from: Placed; to: Placed; label: string | null; anyTime: boolean }) {
  // a step below leaves from the bottom; the exit beside the trigger is reached from the side
  const beside = anyTime;
  const x1 = beside ? from.x + NODE_WIDTH : from.x + NODE_WIDTH / 2;
  const y1 = beside ? from.y + NODE_HEIGHT / 2 : from.y + NODE_HEIGHT;
  const x2 = to.x + NODE_WIDTH / 2;
  const y2 = to.y;
  const path = beside ? `M${x1},${y1} H${x2} V${y2}` : `M${x1},${y1} C${x1},${(y1 + y2) / 2} ${x2},${(y1 + y2) / 2} ${x2},${y2}`;
  return (
    <g>
      <path d={path} fill="none" stroke="var(--muted)" strokeWidth={1.2} strokeDasharray={anyTime ? '4 4' : undefined} markerEnd="url(#journey-map-arrow)" />
      {label === null ? null : (
        <text
          x={beside ? x2 + 6 : (x1 + x2) / 2 + 4}
          y={beside ? (y1 + y2) / 2 + 4 : (y1 + y2) / 2}
          fontSize={11}
          fill="var(--muted)"
          paintOrder="stroke"
          stroke="var(--bg)"
          strokeWidth={4}
        >
          {clip(label, 34)}
        </text>
      )}
    </g>
  );
}

/**
 * The journey as a graph drawn from its code, with the chosen version's numbers on each node, then
 * the same numbers as a table. Each node is a link to its row of the table: Tab walks the map in
 * the order of the run, Enter moves to the node's numbers.
 */
export function JourneyMap({ detail }: { detail: JourneyDetailBody }) {
  const [version, setVersion] = useState<string | undefined>(undefined);
  const map = useJourneyMapQuery(detail.id, version);
  const versions = journeyVersions(detail);
  const picker =
    versions.length > 1 ? (
      <label className="field">
        Numbers of version
        <select
          value={version ?? detail.version ?? ''}
          onChange={(event) => setVersion(event.target.value === detail.version ? undefined : event.target.value)}
        >
          {versions.map((entry) => (
            <option key={entry} value={entry}>
              {entry === UNVERSIONED ? 'started before versions' : `v${entry}`}
              {entry === detail.version ? ' (this deployment)' : ''}
            </option>
          ))}
        </select>
      </label>
    ) : null;

  return (
    <div className="stack">
      {picker}
      {map.isPending ? <Skeleton rows={4} /> : map.isError ? <ErrorPanel error={map.error} /> : <Drawing name={detail.name} body={map.data.map} />}
    </div>
  );
}

function Drawing({ name, body }: { name: string; body: components['schemas']['JourneyMap'] }) {
  if (body.untraceable !== null) return <p role="status">This journey cannot be drawn from its code: {body.untraceable}</p>;
  const focusRow = (index: number) => {
    const row = document.getElementById(rowId(index));
    row?.focus();
    row?.scrollIntoView({ block: 'nearest' });
  };
  const layout = layoutMap(body.nodes, body.edges);
  const place = (id: string) => layout.at.get(id) ?? { x: 0, y: 0 };
  return (
    <>
      <div style={{ overflowX: 'auto' }}>
        <svg
          className="journey-map"
          role="group"
          aria-label={`Map of ${name}`}
          width={layout.width}
          height={layout.height}
          viewBox={`0 0 ${layout.width} ${layout.height}`}
        >
          <defs>
            <marker id="journey-map-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M0,0 L10,5 L0,10 z" fill="var(--muted)" />
            </marker>
          </defs>
          {body.edges.map((edge) => (
            <Edge key={`${edge.from}>${edge.to}`} from={place(edge.from)} to={place(edge.to)} label={edge.label} anyTime={edge.anyTime} />
          ))}
          {body.nodes.map((node, index) => {
            const at = place(node.id);
            const numbers = numbersOf(node);
            return (
              <a
                key={node.id}
                href={`#${rowId(index)}`}
                aria-label={numbers === '' ? node.label : `${node.label}: ${numbers}`}
                onClick={(event) => {
                  event.preventDefault();
                  focusRow(index);
                }}
              >
                <g transform={`translate(${at.x},${at.y})`}>
                  <Shape node={node} />
                  <text x={NODE_WIDTH / 2} y={numbers === '' ? NODE_HEIGHT / 2 + 4 : 21} textAnchor="middle" fontSize={12} fill="var(--text)">
                    {clip(node.label, 38)}
                  </text>
                  {numbers === '' ? null : (
                    <text x={NODE_WIDTH / 2} y={39} textAnchor="middle" fontSize={11} fill="var(--muted)">
                      {clip(numbers, 44)}
                    </text>
                  )}
                </g>
              </a>
            );
          })}
        </svg>
      </div>
      <TableRegion label="Journey map numbers">
        <ColumnHeaders names={['Node', 'Kind', 'Waiting', 'Sent', 'Opened by people', 'Clicked by people', 'Converted after']} />
        <tbody>
          {body.nodes.map((node, index) => (
            <tr key={node.id} id={rowId(index)} tabIndex={-1}>
              <th scope="row">{node.label}</th>
              <Cell label="Kind">{kindNames[node.kind]}</Cell>
              <Cell label="Waiting">{formatNumber(node.waiting)}</Cell>
              <Cell label="Sent">{formatNumber(node.sent)}</Cell>
              <Cell label="Opened by people">{formatNumber(node.humanOpened)}</Cell>
              <Cell label="Clicked by people">{formatNumber(node.humanClicked)}</Cell>
              <Cell label="Converted after">{formatNumber(node.converted)}</Cell>
            </tr>
          ))}
        </tbody>
      </TableRegion>
      {body.elsewhere.length === 0 ? null : (
        <p className="muted">
          Runs of this version are also at steps the current code does not have:{' '}
          {body.elsewhere.map((step) => (
            <span key={step.nodeId}>
              <code>{step.nodeId}</code> ({formatNumber(step.waiting)} waiting, {formatNumber(step.sent)} sent){' '}
            </span>
          ))}
        </p>
      )}
    </>
  );
}
