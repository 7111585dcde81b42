// The shell: the sign-in gate (a person's session, an API key, an invitation's or a password
// reset's link), the
// organization switcher for a person in several, navigation by what the credential may read
// (links keep the date range), the range picker, the pages.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, Route, Switch, useLocation, useSearch } from 'wouter';
import type { AccessScope } from '../../core/auth/scopes.js';
import { mayOpen } from './access.js';
import { storedApiKey, storeApiKey } from './api/api-key.js';
import { setCredential, type Credential } from './api/client.js';
import { currentSession, linkOf, sessionCredential, signOut } from './api/person-session.js';
import type { SessionView } from './api/types.js';
import { DateRangePicker } from './components/DateRangePicker.js';
import { AgentsPage } from './pages/agents/AgentsPage.js';
import { ApiKeysPage } from './pages/api-keys/ApiKeysPage.js';
import { AuditPage } from './pages/audit/AuditPage.js';
import { BudgetsPage } from './pages/budgets/BudgetsPage.js';
import { CustomerPage } from './pages/customers/CustomerPage.js';
import { CustomersPage } from './pages/customers/CustomersPage.js';
import { DimensionsPage } from './pages/dimensions/DimensionsPage.js';
import { EventsPage } from './pages/events/EventsPage.js';
import { MembersPage } from './pages/members/MembersPage.js';
import { OverviewPage } from './pages/overview/OverviewPage.js';
import { RateCardsPage } from './pages/rate-cards/RateCardsPage.js';
import { RatesPage } from './pages/rates/RatesPage.js';
import { ReconciliationPage } from './pages/reconciliation/ReconciliationPage.js';
import { RepricingsPage } from './pages/repricings/RepricingsPage.js';
import { RevenuePage } from './pages/revenue/RevenuePage.js';
import { SessionPage } from './pages/sessions/SessionPage.js';
import { SessionsPage } from './pages/sessions/SessionsPage.js';
import { AcceptInvitationPage } from './pages/signin/AcceptInvitationPage.js';
import { ResetPasswordPage } from './pages/signin/ResetPasswordPage.js';
import { SignInPage } from './pages/signin/SignInPage.js';
import { WebhooksPage } from './pages/webhooks/WebhooksPage.js';
import { useDateRange, withRange } from './range/date-range.js';

type NavEntry = readonly [path: string, label: string, scope: AccessScope];

/** The read pages and the scope their main figures need: a person sees the pages their role reads. */
const READ_NAV: readonly NavEntry[] = [
  ['/', 'Overview', 'costs:read'],
  ['/customers', 'Customers', 'costs:read'],
  ['/agents', 'Agents & workflows', 'costs:read'],
  ['/dimensions', 'Dimensions', 'dimensions:read'],
  ['/sessions', 'Sessions', 'costs:read'],
  ['/events', 'Events', 'usage:read'],
  ['/rates', 'Rates', 'costs:read'],
  ['/reconciliation', 'Reconciliation', 'costs:read'],
];

/** The pages that manage the organization, for its owners and admins, in a bar of their own. */
const MANAGE_NAV: readonly NavEntry[] = [
  ['/members', 'Members', 'organization:admin'],
  ['/api-keys', 'API keys', 'organization:admin'],
  ['/rate-cards', 'Rate cards', 'organization:admin'],
  ['/budgets', 'Budgets', 'organization:admin'],
  ['/webhooks', 'Webhooks', 'organization:admin'],
  ['/revenue', 'Revenue connection', 'organization:admin'],
  ['/repricings', 'Re-pricings', 'organization:admin'],
  ['/audit', 'Audit trail', 'organization:admin'],
];

/** Pages of no period: no date range there. */
const UNDATED_PAGES = new Set(['/members', '/api-keys', '/budgets', '/webhooks', '/repricings', '/revenue', '/rate-cards']);

type Gate =
  | { state: 'checking' }
  | { state: 'signed-out' }
  | { state: 'link'; page: 'accept-invitation' | 'reset-password'; token: string }
  | { state: 'no-organization'; session: SessionView }
  | { state: 'signed-in'; credential: Credential; session: SessionView | null };

function initialGate(): Gate {
  const link = linkOf(window.location.hash);
  if (link) return { state: 'link', ...link };
  const key = storedApiKey();
  if (key) {
    const credential: Credential = { kind: 'api_key', key };
    setCredential(credential);
    return { state: 'signed-in', credential, session: null };
  }
  return { state: 'checking' };
}

/** Signed in as a person, in one of their organizations (the client then speaks for it). */
function personGate(session: SessionView, organizationId?: string): Gate {
  const credential = sessionCredential(session, organizationId);
  setCredential(credential);
  return credential ? { state: 'signed-in', credential, session } : { state: 'no-organization', session };
}

export function App() {
  const [gate, setGate] = useState<Gate>(initialGate);
  const queryClient = useQueryClient();
  const enter = (session: SessionView, organizationId?: string) => setGate(personGate(session, organizationId));
  const leave = () => {
    setCredential(null);
    queryClient.clear();
    setGate({ state: 'signed-out' });
  };
  useEffect(() => {
    if (gate.state !== 'checking') return;
    void currentSession().then((session) => setGate(session ? personGate(session) : { state: 'signed-out' }));
  }, [gate.state]);
  switch (gate.state) {
    case 'checking':
      return <div className="loading">Loading…</div>;
    case 'link': {
      if (gate.page === 'reset-password') return <ResetPasswordPage token={gate.token} onDone={() => setGate({ state: 'signed-out' })} />;
      return (
        <AcceptInvitationPage
          token={gate.token}
          onSession={(session) => {
            // Used up: the token leaves the address bar.
            window.history.replaceState(null, '', '/');
            enter(session);
          }}
        />
      );
    }
    case 'signed-out':
      return (
        <SignInPage
          onSession={(session) => enter(session)}
          onApiKey={(key) => {
            storeApiKey(key);
            const credential: Credential = { kind: 'api_key', key };
            setCredential(credential);
            setGate({ state: 'signed-in', credential, session: null });
          }}
        />
      );
    case 'no-organization':
      return (
        <div className="signin">
          <div className="signin-card note warning" role="alert">
            You ({gate.session.email}) are not a member of any organization. Ask an owner for an invitation.
          </div>
        </div>
      );
    case 'signed-in': {
      const { credential, session } = gate;
      const signOutHere = async (everywhere: boolean) => {
        if (credential.kind === 'session') await signOut(everywhere).catch(() => undefined);
        else storeApiKey(null);
        leave();
      };
      return (
        <Shell
          credential={credential}
          session={session}
          onSwitch={(organizationId) => session && enter(session, organizationId)}
          onSignOut={(everywhere) => void signOutHere(everywhere)}
        />
      );
    }
  }
}

function Shell(props: {
  credential: Credential;
  session: SessionView | null;
  onSwitch: (organizationId: string) => void;
  onSignOut: (everywhere: boolean) => void;
}) {
  const { credential, session } = props;
  const range = useDateRange();
  const search = useSearch();
  const [location] = useLocation();
  const manage = MANAGE_NAV.filter(([, , scope]) => mayOpen(credential, scope));
  const links = (entries: readonly NavEntry[]) =>
    entries
      .filter(([, , scope]) => mayOpen(credential, scope))
      .map(([path, label]) => (
        <Link key={path} href={withRange(path, range)} className={(active) => (active ? 'active' : '')} data-nav={label}>
          {label}
        </Link>
      ));
  return (
    <div className="shell">
      <header className="topbar">
        <span className="brand">Marginal</span>
        <nav aria-label="Figures">{links(READ_NAV)}</nav>
        {credential.kind === 'session' && session ? (
          <div className="who" data-who={credential.email}>
            <OrganizationSwitcher session={session} organizationId={credential.organizationId} onSwitch={props.onSwitch} />
            <span className="badge" data-role={credential.role}>
              {credential.role}
            </span>
            <span className="muted">{credential.email}</span>
            <button type="button" className="link" onClick={() => props.onSignOut(false)}>
              Sign out
            </button>
            <button type="button" className="link" onClick={() => props.onSignOut(true)} title="Ends your sessions on every device">
              Sign out everywhere
            </button>
          </div>
        ) : (
          <div className="who">
            <span className="muted">API key</span>
            <button type="button" className="link" onClick={() => props.onSignOut(false)}>
              Sign out
            </button>
          </div>
        )}
      </header>
      {manage.length > 0 && (
        <nav className="managebar" aria-label="Manage">
          <span className="muted">Manage</span>
          {links(manage)}
        </nav>
      )}
      {!UNDATED_PAGES.has(location) && (
        <div className="toolbar">
          <DateRangePicker key={search} />
        </div>
      )}
      <main key={credential.kind === 'session' ? credential.organizationId : 'key'}>
        <Switch>
          <Route path="/" component={OverviewPage} />
          <Route path="/customers" component={CustomersPage} />
          <Route path="/customers/:endUserId" component={CustomerPage} />
          <Route path="/agents" component={AgentsPage} />
          <Route path="/dimensions" component={DimensionsPage} />
          <Route path="/sessions" component={SessionsPage} />
          <Route path="/sessions/:sessionId" component={SessionPage} />
          <Route path="/events" component={EventsPage} />
          <Route path="/rates" component={RatesPage} />
          <Route path="/reconciliation" component={ReconciliationPage} />
          <Route path="/members" component={MembersPage} />
          <Route path="/api-keys" component={ApiKeysPage} />
          <Route path="/budgets" component={BudgetsPage} />
          <Route path="/webhooks" component={WebhooksPage} />
          <Route path="/repricings" component={RepricingsPage} />
          <Route path="/rate-cards" component={RateCardsPage} />
          <Route path="/revenue" component={RevenuePage} />
          <Route path="/audit" component={AuditPage} />
          <Route>
            <div className="note">
              No such page. <Link href={withRange('/', range)}>Back to the overview</Link>.
            </div>
          </Route>
        </Switch>
      </main>
    </div>
  );
}

/** One organization: its name; several: a switcher (every request then names the one picked). */
function OrganizationSwitcher(props: { session: SessionView; organizationId: string; onSwitch: (organizationId: string) => void }) {
  const organizations = props.session.organizations;
  if (organizations.length === 1)
    return <span data-organization={organizations[0]!.organization_id}>{organizations[0]!.organization_name}</span>;
  return (
    <select aria-label="Organization" value={props.organizationId} onChange={(e) => props.onSwitch(e.target.value)}>
      {organizations.map((m) => (
        <option key={m.organization_id} value={m.organization_id}>
          {m.organization_name} ({m.role})
        </option>
      ))}
    </select>
  );
}
