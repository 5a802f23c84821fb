import type { components } from '../../api/schema';

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
        <table aria-label="Running versions">
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Running</th>
              <th scope="col">Where</th>
            </tr>
          </thead>
          <tbody>
            {detail.runningVersions.map((entry) => (
              <tr key={entry.version ?? 'unknown'}>
                <td>
                  <code>{entry.version === null ? 'unknown (started before versions)' : `v${entry.version}`}</code>
                  {entry.version !== null && entry.version === detail.version ? ' (this deployment)' : null}
                </td>
                <td>{entry.running.toLocaleString('en-US')}</td>
                <td>
                  {entry.steps.map((step) => (
                    <div key={`${step.nodeId}:${step.status}`}>
                      {step.count.toLocaleString('en-US')} {step.status} at <code>{step.nodeId}</code>
                    </div>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
