import type { ReactNode } from 'react';
import { Link, useRoute } from 'wouter';
import { useSession } from '../session-context';
import { LastRefreshed } from './last-refreshed';

const SECTIONS = [
  { href: '/', label: 'Overview', match: '/' },
  { href: '/registry', label: 'Registry', match: '/registry/*?' },
  { href: '/tenants', label: 'Tenants', match: '/tenants/*?' },
  { href: '/jobs', label: 'Jobs', match: '/jobs/*?' },
  { href: '/webhooks', label: 'Webhooks', match: '/webhooks/*?' },
];

function NavLink({ href, label, match }: (typeof SECTIONS)[number]) {
  const [active] = useRoute(match);
  return (
    <li>
      <Link href={href} aria-current={active ? 'page' : undefined}>
        {label}
      </Link>
    </li>
  );
}

/** The frame of every signed-in page: the sections, who is signed in, sign-out. */
export function Layout({ children }: { children: ReactNode }) {
  const { caller, signOut } = useSession();
  return (
    <>
      <header className="top">
        <span className="brand">Model Orchestration</span>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map((s) => (
              <NavLink key={s.href} {...s} />
            ))}
          </ul>
        </nav>
        <span className="who">
          Signed in as <strong>{caller.name}</strong>
          {caller.tenants.length > 0 && ` (tenants: ${caller.tenants.join(', ')})`}
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>
        <LastRefreshed />
        {children}
      </main>
    </>
  );
}
