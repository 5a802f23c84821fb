import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { Link } from 'react-router';
import { useSession } from '../api/session';
import { ErrorPanel, Skeleton } from '../components/feedback';
import { formatAgo, formatNumber } from '../components/format';
import { Cell, ColumnHeaders, TableRegion } from '../components/table-region';
import { PageHeader } from '../components/page';
import { useAlertHistoryQuery } from '../data/alerts/alert-history-query';
import { useJourneysQuery } from '../data/journeys/journeys-query';
import { useActivityQuery } from '../data/metrics/activity-query';
import { useLastWeekMetricsQuery } from '../data/metrics/metrics-query';

// recharts colors tooltip rows like their series; theme text keeps them readable in both themes
const tooltipStyle = {
  contentStyle: { background: 'var(--surface)', border: '1px solid var(--border)', color: 'var(--text)' },
  itemStyle: { color: 'var(--text)' },
  labelStyle: { color: 'var(--text)' },
};

function Stat({ to, value, label, title }: { to?: string; value: number | undefined; label: string; title?: string }) {
  const body = (
    <>
      <div className="stat-value">{formatNumber(value)}</div>
      <div className="stat-label">{label}</div>
    </>
  );
  // a figure with no list of its own (pending journey starts) is a plain tile
  return to === undefined ? (
    <div className="card stat" title={title}>
      {body}
    </div>
  ) : (
    <Link to={to} className="card stat" title={title}>
      {body}
    </Link>
  );
}

type SendRate = NonNullable<ReturnType<typeof useLastWeekMetricsQuery>['data']>['sendRate'];

/** "Sends per second (budget 14/s from SES)", with the fallback named when this api cannot reach Redis. */
function sendRateLabel(rate: SendRate): string {
  if (rate.limitPerSecond === null) return 'Sends per second (no budget: unlimited)';
  const from = rate.source === 'ses' ? 'from SES' : 'SES_MAX_SEND_RATE';
  const fallback = rate.fallback ? `; Redis unreachable, ${rate.sharePerSecond?.toFixed(1)}/s per process` : '';
  return `Sends per second (budget ${rate.limitPerSecond}/s, ${from}${fallback})`;
}

/** /studio: the state of the installation at a glance; every figure links to its list. */
export default function Overview() {
  const { can } = useSession();
  const metrics = useLastWeekMetricsQuery();
  const activity = useActivityQuery({ hours: 24, days: 7 });
  const journeys = useJourneysQuery({ limit: 100 });
  // alert rules and history are full-admin on the API
  const alerts = useAlertHistoryQuery({ limit: 20 }, { enabled: can.administer });

  const m = metrics.data;
  const dayAgo = Date.now() - 86_400_000;
  const firing = alerts.data?.alerts.filter((alert) => new Date(alert.triggeredAt).getTime() > dayAgo) ?? [];
  return (
    <div className="stack">
      <PageHeader title="Overview" description="The last 7 days of this Waymark installation." />
      {metrics.isError ? <ErrorPanel error={metrics.error} /> : null}
      <section className="grid" aria-label="Headline figures">
        <Stat to="/studio/events" value={m?.events.ingested} label="Events ingested" />
        <Stat to="/studio/emails?status=sent" value={m?.emails.sent} label="Emails sent" />
        <Stat to="/studio/emails?status=delivered" value={m?.emails.delivered} label="Delivered" />
        <Stat to="/studio/emails?status=opened" value={m?.emails.opened} label="Opened" />
        <Stat to="/studio/emails?status=clicked" value={m?.emails.clicked} label="Clicked" />
        <Stat to="/studio/emails?status=bounced" value={m?.emails.bounced} label="Bounced" />
        <Stat to="/studio/dlq?status=pending" value={m?.dlq.pending} label="Dead letters pending" />
        <Stat
          value={m?.eventEffects.pending}
          label={
            m?.eventEffects.oldestPendingAt == null
              ? 'Journey effects waiting'
              : `Journey effects waiting (oldest stored ${formatAgo(m.eventEffects.oldestPendingAt)})`
          }
          title={
            m?.eventEffects.oldestPendingAt == null
              ? 'Journey starts, signals and exits of stored events not yet carried out: none'
              : `Journey starts, signals and exits of stored events not yet carried out (${m.journeyStarts.pending} starts); they wait here while Temporal is unreachable and the worker carries them out once it answers. Oldest since ${new Date(m.eventEffects.oldestPendingAt).toLocaleString()}`
          }
        />
        <Stat
          value={m === undefined ? undefined : m.sendRate.currentPerSecond === null ? undefined : Math.round(m.sendRate.currentPerSecond * 10) / 10}
          label={m === undefined ? 'Sends per second' : sendRateLabel(m.sendRate)}
          title="Send tokens handed out per second over the last 10 s, every worker together (docs/email.md, Send rate)"
        />
        <Stat value={m?.sendRate.waiting} label="Sends waiting for the rate" title="Sends waiting for their token of the shared send budget" />
        {can.administer ? <Stat to="/studio/settings/alerts" value={alerts.isPending ? undefined : firing.length} label="Alerts fired (24 h)" /> : null}
      </section>
      <div className="grid">
        <section className="card" aria-labelledby="events-hour">
          <h2 id="events-hour">Events per hour (24 h)</h2>
          {activity.isPending ? (
            <Skeleton />
          ) : activity.isError ? (
            <ErrorPanel error={activity.error} />
          ) : (
            <ResponsiveContainer width="100%" height={220}>
              <BarChart data={activity.data.eventsPerHour.map((row) => ({ hour: new Date(row.hour).getHours() + ':00', count: row.count }))}>
                <CartesianGrid strokeDasharray="3 3" opacity={0.3} />
                <XAxis dataKey="hour" fontSize={11} />
                <YAxis allowDecimals={false} fontSize={11} width={40} />
                <Tooltip {...tooltipStyle} />
                <Bar dataKey="count" name="events" fill="#6366f1" />
              </BarChart>
            </ResponsiveContainer>
          )}
        </section>
        <section className="card" aria-labelledby="emails-day">
          <h2 id="emails-day">Emails per day (7 days)</h2>
          {activity.isPending ? (
            <Skeleton />
          ) : activity.isError ? (
            <ErrorPanel error={activity.error} />
          ) : (
            <ResponsiveContainer width="100%" height={220}>
              <LineChart
                data={activity.data.emailsPerDay.map((row) => ({ ...row, day: new Date(row.day).toLocaleDateString(undefined, { weekday: 'short' }) }))}
              >
                <CartesianGrid strokeDasharray="3 3" opacity={0.3} />
                <XAxis dataKey="day" fontSize={11} />
                <YAxis allowDecimals={false} fontSize={11} width={40} />
                <Tooltip {...tooltipStyle} />
                <Legend />
                <Line dataKey="sent" stroke="#6366f1" />
                <Line dataKey="delivered" stroke="#16a34a" />
                <Line dataKey="opened" stroke="#0891b2" />
                <Line dataKey="clicked" stroke="#ca8a04" />
                <Line dataKey="bounced" stroke="#dc2626" />
              </LineChart>
            </ResponsiveContainer>
          )}
        </section>
      </div>
      <section className="card" aria-labelledby="enrollments">
        <h2 id="enrollments">Enrollments by journey</h2>
        {journeys.isPending ? (
          <Skeleton />
        ) : journeys.isError ? (
          <ErrorPanel error={journeys.error} />
        ) : (
          <TableRegion label="Active and waiting enrollments per journey">
            <ColumnHeaders names={['Journey', 'Active', 'Waiting']} />
            <tbody>
              {journeys.data.journeys.map((journey) => (
                <tr key={journey.id}>
                  <Cell label="Journey">
                    <Link to={`/studio/journeys/${encodeURIComponent(journey.id)}`}>{journey.name}</Link>
                  </Cell>
                  <Cell label="Active">
                    <Link to={`/studio/journeys/${encodeURIComponent(journey.id)}?status=active`}>{formatNumber(journey.counts.active)}</Link>
                  </Cell>
                  <Cell label="Waiting">
                    <Link to={`/studio/journeys/${encodeURIComponent(journey.id)}?status=waiting`}>{formatNumber(journey.counts.waiting)}</Link>
                  </Cell>
                </tr>
              ))}
            </tbody>
          </TableRegion>
        )}
      </section>
    </div>
  );
}
