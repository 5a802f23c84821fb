import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { components } from '../api/schema';
import { useSession } from '../api/session';
import { ConfirmButton } from '../components/confirm-button';
import { ErrorPanel, Skeleton } from '../components/feedback';
import { FormFooter } from '../components/form-footer';
import { formatDate } from '../components/format';
import { PageHeader } from '../components/page';
import { useListsQuery } from '../data/lists/lists-query';
import { useSegmentCreateMutation, useSegmentDeleteMutation, useSegmentUpdateMutation } from '../data/segments/segment-mutations';
import { useSegmentQuery } from '../data/segments/segment-query';
import { useTemplatesQuery } from '../data/templates/templates-query';
import { ConditionBuilder } from './segment-detail/condition-builder';
import { problemOf, type Condition } from './segment-detail/conditions';
import { ConditionsJson } from './segment-detail/json-panel';
import { SegmentPreview } from './segment-detail/preview';

type Segment = components['schemas']['Segment'];

function SegmentEditor({ segment }: { segment: Segment | undefined }) {
  const { can } = useSession();
  const navigate = useNavigate();
  const [name, setName] = useState(segment?.name ?? '');
  const [description, setDescription] = useState(segment?.description ?? '');
  const [conditions, setConditions] = useState<Condition>(segment?.conditions ?? { all: [] });
  // a tree loaded from the JSON remounts the builder, so no field keeps typing from before
  const [generation, setGeneration] = useState(0);
  const [problem, setProblem] = useState<string>();
  const lists = useListsQuery({ enabled: true });
  const templates = useTemplatesQuery();
  const create = useSegmentCreateMutation({ onSuccess: (data) => navigate(`/studio/segments/${data.segment.id}`, { replace: true }) });
  const update = useSegmentUpdateMutation();
  const remove = useSegmentDeleteMutation({ onSuccess: () => navigate('/studio/segments') });
  const saving = segment === undefined ? create : update;
  const dirty =
    segment === undefined ||
    name !== segment.name ||
    description !== (segment.description ?? '') ||
    JSON.stringify(conditions) !== JSON.stringify(segment.conditions);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const missing = name.trim() === '' ? 'Give the segment a name.' : problemOf(conditions);
    setProblem(missing);
    if (missing !== undefined) return;
    if (segment === undefined) create.mutate({ name: name.trim(), conditions, ...(description.trim() === '' ? {} : { description: description.trim() }) });
    else update.mutate({ id: segment.id, body: { name: name.trim(), description: description.trim() === '' ? null : description.trim(), conditions } });
  };

  return (
    <div className="stack">
      <PageHeader
        title={segment?.name ?? 'New segment'}
        description={
          <>
            <Link to="/studio/segments">All segments</Link>
            {segment === undefined
              ? ' · pick conditions and watch the count; nothing is saved until you save.'
              : ` · last changed ${formatDate(segment.updatedAt)}`}
          </>
        }
        actions={
          segment !== undefined && can.manageJourneys ? (
            <ConfirmButton
              label="Delete segment"
              title={`Delete the segment “${segment.name}”?`}
              confirmLabel="Delete segment"
              danger
              onConfirm={() => remove.mutateAsync(segment.id)}
            >
              Its contacts are not touched. A broadcast that is scheduled or sending to it keeps the segment until it is done.
            </ConfirmButton>
          ) : undefined
        }
      />
      {can.manageJourneys ? null : <p className="notice">You can try conditions and see who matches; saving a segment needs the editor role.</p>}
      <div className="grid" style={{ gridTemplateColumns: 'repeat(auto-fit, minmax(min(100%, 420px), 1fr))', alignItems: 'start' }}>
        <form className="card stack" aria-labelledby="conditions-heading" onSubmit={submit} noValidate>
          <label className="field">
            Name
            <input value={name} onChange={(event) => setName(event.target.value)} required maxLength={200} />
          </label>
          <label className="field">
            Description (optional)
            <input value={description} onChange={(event) => setDescription(event.target.value)} maxLength={1000} />
          </label>
          <h2 id="conditions-heading">Conditions</h2>
          <ConditionBuilder
            key={generation}
            value={conditions}
            onChange={setConditions}
            choices={{ lists: (lists.data?.lists ?? []).map((list) => list.key), templates: (templates.data?.templates ?? []).map((template) => template.key) }}
          />
          {lists.isError ? <ErrorPanel error={lists.error} /> : null}
          {can.manageJourneys ? (
            <>
              <FormFooter
                problem={problem}
                error={saving.error}
                submitLabel={segment === undefined ? 'Save segment' : 'Save changes'}
                busy={saving.isPending || !dirty}
              />
              <p className="muted" role="status">
                {update.isSuccess && !dirty ? 'Saved.' : dirty && segment !== undefined ? 'Unsaved changes.' : ''}
              </p>
            </>
          ) : null}
        </form>
        <div className="stack">
          <SegmentPreview conditions={conditions} />
          <ConditionsJson
            conditions={conditions}
            onApply={(next) => {
              setConditions(next);
              setGeneration((value) => value + 1);
            }}
          />
        </div>
      </div>
    </div>
  );
}

/** /studio/segments/:id (and /studio/segments/new): the condition builder, who matches now, and the tree as JSON. */
export default function SegmentDetail() {
  const { id = 'new' } = useParams();
  const saved = useSegmentQuery(id === 'new' ? undefined : id);
  if (id === 'new') return <SegmentEditor key="new" segment={undefined} />;
  if (saved.isPending || saved.isError)
    return (
      <div className="stack">
        <PageHeader title="Segment" description={<Link to="/studio/segments">All segments</Link>} />
        {saved.isError ? <ErrorPanel error={saved.error} /> : <Skeleton />}
      </div>
    );
  return <SegmentEditor key={saved.data.segment.id} segment={saved.data.segment} />;
}
