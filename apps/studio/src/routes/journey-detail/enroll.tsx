import { useState, type FormEvent } from 'react';
import { ErrorPanel } from '../../components/feedback';
import { useJourneyEnrollBatchMutation, useJourneyEnrollMutation } from '../../data/journeys/journey-enroll-mutations';
import { parseEnrollmentCsv } from './enrollment-csv';

/** Enroll one user (editors and up) or, with `batch` (full admins), a pasted list. */
export function Enroll({ journeyId, batch }: { journeyId: string; batch: boolean }) {
  const [userId, setUserId] = useState('');
  const [userEmail, setUserEmail] = useState('');
  const [csv, setCsv] = useState('');
  const one = useJourneyEnrollMutation(journeyId);
  const many = useJourneyEnrollBatchMutation(journeyId);
  const submitOne = (event: FormEvent) => {
    event.preventDefault();
    one.mutate({ userId, userEmail });
  };
  return (
    <section className="card stack" aria-labelledby="enroll">
      <h2 id="enroll">Enroll</h2>
      <form className="filters" onSubmit={submitOne}>
        <label className="field">
          User id
          <input required value={userId} onChange={(e) => setUserId(e.target.value)} />
        </label>
        <label className="field">
          Email
          <input type="email" required value={userEmail} onChange={(e) => setUserEmail(e.target.value)} />
        </label>
        <button type="submit" className="primary" disabled={one.isPending}>
          Enroll user
        </button>
      </form>
      {one.isSuccess ? (
        <p role="status">
          Dispatched {one.data.event} for {one.data.userId}; entry rules decide whether a run starts.
        </p>
      ) : null}
      {one.isError ? <ErrorPanel error={one.error} /> : null}
      {batch ? (
        <form
          className="stack"
          onSubmit={(event) => {
            event.preventDefault();
            many.mutate(parseEnrollmentCsv(csv));
          }}
        >
          <label className="field">
            Batch (one <code>userId,email</code> per line, up to 500)
            <textarea value={csv} onChange={(e) => setCsv(e.target.value)} style={{ minHeight: 100 }} />
          </label>
          <div>
            <button type="submit" disabled={many.isPending || csv.trim() === ''}>
              Enroll batch
            </button>
          </div>
          {many.isSuccess ? (
            <p role="status">
              {many.data.enrolled} enrolled, {many.data.skipped} skipped by entry rules.
            </p>
          ) : null}
          {many.isError ? <ErrorPanel error={many.error} /> : null}
        </form>
      ) : null}
    </section>
  );
}
