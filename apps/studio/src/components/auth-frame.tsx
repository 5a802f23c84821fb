import { Waypoints } from 'lucide-react';
import type { ReactNode } from 'react';
import { PageHeader } from './page';

/** The centered card of the signed-out pages (sign-in, reset password, accept invite). */
export function AuthFrame({ title, description, children }: { title: string; description?: ReactNode; children: ReactNode }) {
  return (
    <main className="auth-page">
      <div className="card auth-card stack">
        <div className="brand">
          <Waypoints size={20} aria-hidden /> Waymark Studio
        </div>
        <PageHeader title={title} description={description} />
        {children}
      </div>
    </main>
  );
}

/** Only same-studio paths are followed after sign-in (no open redirect through ?next=). */
export function safeNext(next: string | null): string {
  return next !== null && next.startsWith('/studio') && !next.startsWith('//') ? next : '/studio';
}
