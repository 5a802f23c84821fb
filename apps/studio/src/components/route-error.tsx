import type { ReactNode } from 'react';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { ApiError, errorMessage } from '../api/client';
import { AuthFrame } from './auth-frame';
import { SlowDownPanel } from './feedback';
import { PageHeader } from './page';

interface ErrorView {
  title: string;
  description?: string;
  body: ReactNode;
}

/**
 * What a page that could not be shown says (the router's errorElement), in the studio's own
 * words instead of React Router's default screen: a rate limit gets the slow-down panel; a page
 * whose code could not be fetched (a deploy since the tab opened, a dropped connection) or that
 * failed to render offers a reload.
 */
function useErrorView(): ErrorView {
  const error = useRouteError();
  if (error instanceof ApiError && error.status === 429) {
    return { title: 'Slow down', body: <SlowDownPanel retryAfterSeconds={error.retryAfterSeconds} /> };
  }
  const detail = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : errorMessage(error);
  return {
    title: 'This page could not be shown',
    description: 'Reloading usually fixes it: a new version of the studio may have been deployed since this tab opened, or the connection dropped.',
    body: (
      <>
        <div className="row">
          <button type="button" className="primary" onClick={() => window.location.reload()}>
            Reload the page
          </button>
        </div>
        <details>
          <summary>Details</summary>
          <pre>{detail}</pre>
        </details>
      </>
    ),
  };
}

/** Inside the signed-in frame: the navigation stays. */
export function RouteError() {
  const view = useErrorView();
  return (
    <div className="stack">
      <PageHeader title={view.title} description={view.description} />
      {view.body}
    </div>
  );
}

/** Outside it (sign-in, password reset, invitations, or the frame itself failing). */
export function RouteErrorPage() {
  const view = useErrorView();
  return (
    <AuthFrame title={view.title} description={view.description}>
      {view.body}
    </AuthFrame>
  );
}
