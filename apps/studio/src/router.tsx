import { lazy, type ComponentType } from 'react';
import { createBrowserRouter } from 'react-router';
import { RequireSession } from './components/require-session';
import { Layout } from './components/layout';
import { RouteError, RouteErrorPage } from './components/route-error';
import { NotFound, NotFoundPage } from './routes/not-found';

/** Route-level code splitting: each page is its own chunk, loaded on first visit. */
function page(load: () => Promise<{ default: ComponentType }>) {
  const Page = lazy(load);
  return <Page />;
}

/**
 * URL paths are part of the interface (docs/studio.md); filters live in the query string. Every
 * route has an errorElement, so a page that cannot be shown never meets React Router's default
 * screen; inside the signed-in frame it sits on a pathless route, so the navigation stays.
 */
export const router = createBrowserRouter([
  { path: '/studio/sign-in', element: page(() => import('./routes/sign-in')), errorElement: <RouteErrorPage /> },
  { path: '/studio/reset-password', element: page(() => import('./routes/reset-password')), errorElement: <RouteErrorPage /> },
  { path: '/studio/accept-invite', element: page(() => import('./routes/accept-invite')), errorElement: <RouteErrorPage /> },
  {
    path: '/studio',
    element: (
      <RequireSession>
        <Layout />
      </RequireSession>
    ),
    errorElement: <RouteErrorPage />,
    children: [
      {
        errorElement: <RouteError />,
        children: [
          { index: true, element: page(() => import('./routes/overview')) },
          { path: 'journeys', element: page(() => import('./routes/journeys')) },
          { path: 'journeys/:id', element: page(() => import('./routes/journey-detail')) },
          { path: 'contacts', element: page(() => import('./routes/contacts')) },
          { path: 'contacts/:id', element: page(() => import('./routes/contact-detail')) },
          { path: 'segments', element: page(() => import('./routes/segments')) },
          { path: 'segments/:id', element: page(() => import('./routes/segment-detail')) },
          { path: 'broadcasts', element: page(() => import('./routes/broadcasts')) },
          { path: 'broadcasts/:id', element: page(() => import('./routes/broadcast-detail')) },
          { path: 'emails', element: page(() => import('./routes/emails')) },
          { path: 'emails/:id', element: page(() => import('./routes/email-detail')) },
          { path: 'templates', element: page(() => import('./routes/templates')) },
          { path: 'events', element: page(() => import('./routes/events')) },
          { path: 'dlq', element: page(() => import('./routes/dlq')) },
          { path: 'settings/api-keys', element: page(() => import('./routes/settings/api-keys')) },
          { path: 'settings/webhooks', element: page(() => import('./routes/settings/webhooks')) },
          { path: 'settings/alerts', element: page(() => import('./routes/settings/alerts')) },
          { path: 'settings/members', element: page(() => import('./routes/settings/members')) },
          { path: 'settings/audit-log', element: page(() => import('./routes/settings/audit-log')) },
          { path: 'settings/delivery-policy', element: page(() => import('./routes/settings/delivery-policy')) },
          { path: 'settings/deliverability', element: page(() => import('./routes/settings/deliverability')) },
          { path: '*', element: <NotFound /> },
        ],
      },
    ],
  },
  { path: '*', element: <NotFoundPage /> },
]);
