import {
  Activity,
  BellRing,
  FileText,
  Inbox,
  KeyRound,
  LayoutDashboard,
  ListFilter,
  LogOut,
  Mail,
  MailCheck,
  Megaphone,
  Route as RouteIcon,
  ScrollText,
  ShieldCheck,
  Users,
  UsersRound,
  Waypoints,
  Webhook,
} from 'lucide-react';
import { Suspense, type ComponentType } from 'react';
import { NavLink, Outlet, useNavigate } from 'react-router';
import { useSession } from '../api/session';
import { useSignOutMutation } from '../data/auth/sign-out-mutation';
import { Skeleton } from './feedback';

interface NavItem {
  to: string;
  label: string;
  icon: ComponentType<{ size?: number; 'aria-hidden'?: boolean }>;
  end?: boolean;
}

const main: NavItem[] = [
  { to: '/studio', label: 'Overview', icon: LayoutDashboard, end: true },
  { to: '/studio/journeys', label: 'Journeys', icon: RouteIcon },
  { to: '/studio/contacts', label: 'Contacts', icon: Users },
  { to: '/studio/segments', label: 'Segments', icon: ListFilter },
  { to: '/studio/broadcasts', label: 'Broadcasts', icon: Megaphone },
  { to: '/studio/emails', label: 'Emails', icon: Mail },
  { to: '/studio/templates', label: 'Templates', icon: FileText },
  { to: '/studio/events', label: 'Events', icon: Activity },
  { to: '/studio/dlq', label: 'Dead letters', icon: Inbox },
];

const settings: NavItem[] = [
  { to: '/studio/settings/api-keys', label: 'API keys', icon: KeyRound },
  { to: '/studio/settings/webhooks', label: 'Webhooks', icon: Webhook },
  { to: '/studio/settings/alerts', label: 'Alerts', icon: BellRing },
  { to: '/studio/settings/members', label: 'Members', icon: UsersRound },
  { to: '/studio/settings/audit-log', label: 'Audit log', icon: ScrollText },
  { to: '/studio/settings/delivery-policy', label: 'Delivery policy', icon: ShieldCheck },
  { to: '/studio/settings/deliverability', label: 'Deliverability', icon: MailCheck },
];

function NavList({ items }: { items: NavItem[] }) {
  return items.map(({ to, label, icon: Icon, end }) => (
    <NavLink key={to} to={to} end={end} className="nav-link">
      <Icon size={16} aria-hidden />
      {label}
    </NavLink>
  ));
}

/** The signed-in frame: navigation, who is signed in, and the page (lazy-loaded per route). */
export function Layout() {
  const { user } = useSession();
  const navigate = useNavigate();
  const signOut = useSignOutMutation({ onSuccess: () => navigate('/studio/sign-in') });
  return (
    <div className="shell">
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <nav className="sidebar" aria-label="Studio">
        <div className="brand">
          <Waypoints size={20} aria-hidden /> Waymark
        </div>
        <NavList items={main} />
        <div className="nav-group">Settings</div>
        <NavList items={settings} />
        <div className="sidebar-footer">
          <span className="signed-in-as">
            {user.email}
            <br />
            <span className="badge">{user.role}</span>
          </span>
          <button type="button" onClick={() => signOut.mutate()}>
            <LogOut size={14} aria-hidden /> Sign out
          </button>
        </div>
      </nav>
      <main id="content">
        <Suspense fallback={<Skeleton rows={8} />}>
          <Outlet />
        </Suspense>
      </main>
    </div>
  );
}
