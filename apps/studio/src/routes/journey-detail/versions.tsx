import type { components } from '../../api/schema';
import { Cell, ColumnHeaders, TableRegion } from '../../components/table-region';

type JourneyDetailBody = components['schemas']['JourneyDetail'];

/** "v3a9f1c (this deployment): 1,204 running · 1,180 waiting at sleep:2 days" per version with live runs. */
export function Versions({ detail }: { detail: JourneyDetailBody }) {
  return (
    <div className="stack">
      <p>
        This deployment runs version <code>{detail.version === null ? 'unknown' : `v${detail.version}`}</code>.
      </p>
      {detail.runningVersions.length === 0 ? (
        <p className="muted">No enrollment is running.</p>
      ) : (
        <TableRegion label="Running versions">
          <ColumnHeaders names={['Version', 'Running', 'Where']} />
          <tbody>
            {detail.runningVersions.map((entry) => (
              <tr key={entry.version ?? 'unknown'}>
                <th scope="row">
                  <code>{entry.version === null ? 'unknown (started before versions)' : `v${entry.version}`}</code>
                  {entry.version !== null && entry.version === detail.version ? ' (this deployment)' : null}
                </th>
                <Cell label="Running">{entry.running.toLocaleString('en-US')}</Cell>
                <Cell label="Where">
                  {entry.steps.map((step) => (
                    <div key={`${step.nodeId}:${step.status}`}>
                      {step.count.toLocaleString('en-US')} {step.status} at <code>{step.nodeId}</code>
                    </div>
                  ))}
                </Cell>
              </tr>
            ))}
          </tbody>
        </TableRegion>
      )}
    </div>
  );
}
