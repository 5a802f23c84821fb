import { ErrorPanel, Skeleton } from '../../components/feedback';
import { formatDate } from '../../components/format';
import { useJourneyLogsQuery } from '../../data/journeys/journey-logs-query';

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
            <strong>{log.action}</strong> {log.fromNodeId === null ? '' : `${log.fromNodeId} → `}
            <code>{log.toNodeId}</code>
          </span>
        </li>
      ))}
    </ol>
  );
}
