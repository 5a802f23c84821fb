import { ErrorPanel, Skeleton } from '../../components/feedback';
import { formatDate } from '../../components/format';
import { useJourneyLogsQuery } from '../../data/journeys/journey-logs-query';

/** `: quiet_hours until 2026-12-01T08:00+01:00` for a held send (the recipient's clock), else nothing. */
function holdNote(detail: Record<string, unknown> | null): string {
  const reason = detail?.reason;
  const until = detail?.localUntil;
  return typeof reason === 'string' && typeof until === 'string' ? `: ${reason} until ${until}` : '';
}

/** The run log of one enrollment, opened from its row. */
export function StateLogs({ stateId }: { stateId: string }) {
  const logs = useJourneyLogsQuery(stateId);
  if (logs.isPending) return <Skeleton rows={2} />;
  if (logs.isError) return <ErrorPanel error={logs.error} />;
  return (
    <ol className="timeline" aria-label="Run log">
      {logs.data.logs.map((log) => (
        <li key={log.id}>
          <span className="muted">{formatDate(log.createdAt)}</span>
          <span>
            <strong>{log.action}</strong>
            {holdNote(log.detail)} {log.fromNodeId === null ? '' : `${log.fromNodeId} → `}
            <code>{log.toNodeId}</code>
          </span>
        </li>
      ))}
    </ol>
  );
}
