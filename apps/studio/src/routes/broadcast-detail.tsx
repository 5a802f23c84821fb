import { Pause, Play, CircleX } from 'lucide-react';
import { Link, useParams } from 'react-router';
import type { components } from '../api/schema';
import { useSession } from '../api/session';
import { ConfirmButton } from '../components/confirm-button';
import { Badge, ErrorPanel, Skeleton } from '../components/feedback';
import { formatDate } from '../components/format';
import { PageHeader } from '../components/page';
import { useBroadcastQuery } from '../data/broadcasts/broadcast-query';
import { useBroadcastTransitionMutation } from '../data/broadcasts/broadcast-mutations';
import { refreshWhileLive } from '../data/broadcasts/live-statuses';
import { useCategoriesQuery } from '../data/categories/categories-query';
import { useListsQuery } from '../data/lists/lists-query';
import { useSegmentsQuery } from '../data/segments/segments-query';
import { useTemplatesQuery } from '../data/templates/templates-query';
import { audienceLabel } from './broadcast-detail/audience-label';
import { Composer } from './broadcast-detail/composer';
import { PausedNotice } from './broadcast-detail/paused-notice';
import { Recipients } from './broadcast-detail/recipients';
import { GoalPanel, Progress, StatsPanel, VariantResults } from './broadcast-detail/stats';
import { WarmupNotice } from './broadcast-detail/warmup-notice';

type Broadcast = components['schemas']['Broadcast'];

/** The composer's choices; the page waits for all of them, so every select starts filled. */
function ComposerPage({ broadcast }: { broadcast: Broadcast | undefined }) {
  const templates = useTemplatesQuery();
  const categories = useCategoriesQuery();
  const segments = useSegmentsQuery({ limit: 100, offset: 0 });
  const lists = useListsQuery({ enabled: true });
  const failed = [templates, categories, segments, lists].find((query) => query.isError);
  if (templates.data === undefined || categories.data === undefined || segments.data === undefined || lists.data === undefined)
    return (
      <div className="stack">
        <PageHeader title={broadcast?.name ?? 'New broadcast'} description={<Link to="/studio/broadcasts">All broadcasts</Link>} />
        {failed === undefined ? <Skeleton rows={8} /> : <ErrorPanel error={failed.error} />}
      </div>
    );
  return (
    <Composer
      broadcast={broadcast}
      choices={{ templates: templates.data.templates, categories: categories.data.categories, segments: segments.data.segments, lists: lists.data.lists }}
    />
  );
}

const pausable = new Set<Broadcast['status']>(['scheduled', 'sending', 'testing']);
const cancellable = new Set<Broadcast['status']>(['scheduled', 'sending', 'testing', 'paused']);

/** Pause, resume and cancel, offered as the status allows (the API answers 409 to any other). */
function Controls({ broadcast }: { broadcast: Broadcast }) {
  const transition = useBroadcastTransitionMutation();
  const run = (action: 'pause' | 'resume') => transition.mutate({ id: broadcast.id, action });
  return (
    <>
      {pausable.has(broadcast.status) ? (
        <button type="button" disabled={transition.isPending} onClick={() => run('pause')}>
          <Pause size={14} aria-hidden /> Pause
        </button>
      ) : null}
      {broadcast.status === 'paused' ? (
        <button type="button" className="primary" disabled={transition.isPending} onClick={() => run('resume')}>
          <Play size={14} aria-hidden /> Resume
        </button>
      ) : null}
      {cancellable.has(broadcast.status) ? (
        <ConfirmButton
          label={
            <>
              <CircleX size={14} aria-hidden /> Cancel
            </>
          }
          title={`Cancel “${broadcast.name}”?`}
          confirmLabel="Cancel the broadcast"
          danger
          onConfirm={() => transition.mutateAsync({ id: broadcast.id, action: 'cancel' })}
        >
          Nobody who has not had it yet will get it; what was sent stays sent. This cannot be undone.
        </ConfirmButton>
      ) : null}
      {transition.isError ? <ErrorPanel error={transition.error} /> : null}
    </>
  );
}

/** A broadcast past its draft: where it stands, what it did, and to whom. */
function Watch({ broadcast }: { broadcast: Broadcast }) {
  const { can } = useSession();
  const segments = useSegmentsQuery({ limit: 100, offset: 0 });
  const segmentName = (id: string) => segments.data?.segments.find((segment) => segment.id === id)?.name;
  const when =
    broadcast.completedAt !== null
      ? `finished ${formatDate(broadcast.completedAt)}`
      : broadcast.startedAt !== null
        ? `started ${formatDate(broadcast.startedAt)}`
        : broadcast.scheduledAt !== null
          ? `scheduled for ${formatDate(broadcast.scheduledAt)}`
          : '';
  return (
    <div className="stack">
      <PageHeader
        title={broadcast.name}
        description={
          <>
            <Link to="/studio/broadcasts">All broadcasts</Link> · <Badge value={broadcast.status} /> · to {audienceLabel(broadcast.audience, segmentName)} ·{' '}
            {broadcast.templateKey} · {broadcast.category}
            {broadcast.localTime === null ? '' : ` · at ${broadcast.localTime} local time`}
            {when === '' ? '' : ` · ${when}`}
          </>
        }
        actions={can.manageJourneys ? <Controls broadcast={broadcast} /> : undefined}
      />
      {broadcast.error === null ? null : (
        <div className="error-panel" role="alert">
          {broadcast.error}
        </div>
      )}
      <PausedNotice broadcast={broadcast} />
      <WarmupNotice broadcast={broadcast} />
      <Progress broadcast={broadcast} />
      <StatsPanel stats={broadcast.stats} />
      <GoalPanel broadcast={broadcast} />
      <VariantResults broadcast={broadcast} />
      <Recipients broadcast={broadcast} refetchInterval={refreshWhileLive([broadcast.status])} />
    </div>
  );
}

/**
 * /studio/broadcasts/new and /studio/broadcasts/:id?status=&variant=: a draft opens in the composer
 * (the same one /new shows, so saving a new draft keeps the page as it is), any other status in
 * the progress view.
 */
export default function BroadcastDetail() {
  const { id = 'new' } = useParams();
  const saved = useBroadcastQuery(id === 'new' ? undefined : id);
  if (id === 'new' || saved.data?.broadcast.status === 'draft') return <ComposerPage key="composer" broadcast={saved.data?.broadcast} />;
  if (saved.data === undefined)
    return (
      <div className="stack">
        <PageHeader title="Broadcast" description={<Link to="/studio/broadcasts">All broadcasts</Link>} />
        {saved.isError ? <ErrorPanel error={saved.error} /> : <Skeleton rows={8} />}
      </div>
    );
  return <Watch broadcast={saved.data.broadcast} />;
}
