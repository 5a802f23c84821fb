import { Link } from 'react-router';
import { PageHeader } from '../components/page';

/** Unknown address inside the studio. */
export function NotFound() {
  return (
    <div className="stack">
      <PageHeader title="Page not found" description="This address is not a page of Waymark Studio." />
      <Link to="/studio">Go to the overview</Link>
    </div>
  );
}

/** Unknown address outside the signed-in frame. */
export function NotFoundPage() {
  return (
    <main className="auth-page">
      <div className="card auth-card">
        <NotFound />
      </div>
    </main>
  );
}
